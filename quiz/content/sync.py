"""Saving a parsed document into the database: its source document, its set or deck, the
questions with their choices, the cards and their topics.

Items are matched to their rows by identity, never by position alone (see `match_items`): the
key an export file carries, else the exact text, else the position for an item edited in
place, with a warning when that moves learners' history to a new text. Reordering or removing
items therefore never moves history onto another item, and a row with history is never
deleted: a re-import that drops one is refused. Topics are set only on items whose source names them (a `Topics:` line, a
"topics" key), so topics added in the admin survive re-importing a source that has none.
A row that other records protect is not deleted: saving stops with a ContentError. A document
whose items with problems were skipped (ParsedDocument.skipped) neither deletes a row nor matches
one by position, and its items keep their places in the source: the rows the skipped items would
have updated stay as they are.
"""

import hashlib
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Prefetch, ProtectedError

from ..models import Card, Choice, Deck, Question, QuestionSet, SourceDocument, Topic
from .cloze import cloze_front
from .documents import CARD_PARTS, ContentError, ParsedDocument, shorten
from .media import with_stored_media


@dataclass
class Outcome:
    """How many rows saving one document created, updated and deleted; summary() is its report line."""

    document: ParsedDocument
    created: int = 0
    updated: int = 0
    deleted: int = 0
    warnings: list = field(default_factory=list)  # edits that move learners' history to a new text

    @property
    def changed(self):
        return bool(self.created or self.updated or self.deleted)

    def summary(self):
        doc = self.document
        noun = "questions" if doc.kind == SourceDocument.Kind.QUIZ else "cards"
        counts = f"{self.created} new, {self.updated} updated"
        if self.deleted:
            counts += f", {self.deleted} removed"
        if doc.skipped:
            counts += f", {len(doc.skipped)} skipped for their problems"
        return f'{doc.file}: {doc.kind} "{doc.title}": {len(doc.items)} {noun} ({counts})'


def save_document(document, *, now, owner=None):
    """Create or update one set or deck (and its source document) to match `document`, among
    `owner`'s content (the shared library when None). A new set or deck of an owner is private."""
    source = _source_document(document, now, owner)
    # The document's images are stored first: its items then show them by their stored names, and
    # a re-import's items match their rows by text as ever (the same picture keeps its name).
    if document.kind == SourceDocument.Kind.QUIZ:
        container = _container(QuestionSet, document, source, now, owner)
        outcome = _save_questions(with_stored_media(container, document), container)
    else:
        container = _container(Deck, document, source, now, owner)
        outcome = _save_cards(with_stored_media(container, document), container)
    title_changed = _update_title(container, document.title, source)
    if source:
        _update_source(source, document, outcome.changed or title_changed, now)
    return outcome


def _source_document(document, now, owner):
    if document.file_name is None:
        return None
    source, _ = SourceDocument.objects.get_or_create(
        owner=owner,
        file_name=document.file_name,
        defaults={"kind": document.kind, "title": document.title, "checksum": document.checksum, "imported_at": now},
    )
    if source.kind != document.kind:
        raise ContentError(
            document.file,
            1,
            f"{document.file_name} was imported as a {source.kind} before, now it reads as a {document.kind}",
        )
    return source


def _container(model, document, source, now, owner):
    return existing_container(model, document, owner) or model.objects.create(
        title=document.title, source=source, created_at=now, owner=owner
    )


def existing_container(model, document, owner):
    """The owner's set or deck that `document` updates: the one of its source document, or
    (a document without one) their unsourced one with its title; None when it is new."""
    if document.file_name is not None:
        found = model.objects.filter(owner=owner, source__file_name=document.file_name)
    else:
        found = model.objects.filter(owner=owner, source=None, title=document.title)
    return found.order_by("pk").first()


def _update_title(container, title, source):
    """The document's title, unless the owner renamed the set or deck: a title other than the
    one the last import gave it is theirs, and a re-import keeps it."""
    renamed = source is not None and source.title != container.title
    if container.title == title or renamed:
        return False
    container.title = title
    container.save(update_fields=["title"])
    return True


def _update_source(source, document, content_changed, now):
    # Re-importing an unchanged document must not touch the row (not even imported_at).
    new_bytes = document.checksum_of_source and source.checksum != document.checksum
    if not (content_changed or new_bytes or source.title != document.title):
        return
    source.title, source.checksum, source.imported_at = document.title, document.checksum, now
    source.save(update_fields=["title", "checksum", "imported_at"])


def _save_questions(document, question_set):
    outcome = Outcome(document)
    topics = _topic_rows(document.items)
    rows = question_set.questions.prefetch_related(Prefetch("choices", Choice.objects.order_by("position", "pk")), "topics")
    existing, retired_keys = _current_and_retired(rows)
    pairs, leftover = match_items(document, existing, text=lambda item: item.stem)
    _warn_about_edited_history(document, outcome, pairs, Question, "question", text=lambda item: item.stem)
    removed, kept = removed_and_kept(document, leftover)
    for question in removed:
        _delete(document.file, question, f"cannot remove question {_named(question.key, question.stem)}: learners have answered it")
        outcome.deleted += 1
    keys = KeyChooser([*(row.key for _, row in pairs if row is not None), *(row.key for row in kept), *retired_keys])
    for position, (parsed, question) in zip(document.positions(), pairs):
        if question is None:
            question = _create_question(question_set, parsed, position, keys.claim(parsed.key, parsed.stem))
            _add_topics(question, parsed.topics, topics)
            outcome.created += 1
        elif _update_question(document, question, parsed, position, topics):
            outcome.updated += 1
    return outcome


def _current_and_retired(rows):
    """The rows a document is matched against, and the keys of retired rows. A retired item
    (deleted in the editor, kept for its history) is no longer the document's to update or
    remove, but its key stays taken. Split in Python: one query, as before retiring existed."""
    rows = list(rows)
    return [row for row in rows if not row.is_retired], [row.key for row in rows if row.is_retired]


def match_items(document, existing, *, text):
    """Pair each parsed item with the row it updates: [(parsed, row or None)], and the rows
    no item claims (to be removed).

    An item's row is found by, in this order: its key, when the document carries real
    identities (an export file writes each row's key); its exact text (a question's stem, a
    card's front), so reordering or removing items never moves a learner's history onto
    another text; its position, for an item whose text was edited in place. A document with
    skipped items matches nothing by position: a place may be a skipped item's, whose row must
    stay as it is, so an item whose text changed is new until the file is fixed.
    """
    unmatched = {row.pk: row for row in sorted(existing, key=lambda row: (row.position, row.pk))}
    positions = document.positions()
    rows = [None] * len(document.items)
    if document.keys_are_identities:
        by_key = {row.key: row for row in existing}
        for index, item in enumerate(document.items):
            row = by_key.get(item.key)
            if row is not None and row.pk in unmatched:
                rows[index] = unmatched.pop(row.pk)
    for index, item in enumerate(document.items):
        if rows[index] is None:
            row = next((row for row in unmatched.values() if text(row) == text(item)), None)
            if row is not None:
                rows[index] = unmatched.pop(row.pk)
    for index in range(len(document.items) if not document.skipped else 0):
        if rows[index] is None:
            row = next((row for row in unmatched.values() if row.position == positions[index]), None)
            if row is not None:
                rows[index] = unmatched.pop(row.pk)
    return list(zip(document.items, rows)), list(unmatched.values())


def removed_and_kept(document, leftover):
    """(rows to delete, rows kept) of the rows no item claims. A document with skipped items
    removes none: any of them may be the row a skipped item would have updated (matched by its
    text, which could not be read), and a fix of the file updates it then."""
    return ([], list(leftover)) if document.skipped else (list(leftover), [])


def _warn_about_edited_history(document, outcome, pairs, model, noun, *, text, shown=None):
    """An item matched by position whose text changed is an edit: the learners' history of the
    old text now belongs to the new one. Say so for every such item that has history, naming
    its old text as `shown` says (as learners read it), or as it is."""
    edited = {row.pk: (item, row) for item, row in pairs if row is not None and text(row) != text(item)}
    if not edited:
        return
    with_history = model.objects.filter(pk__in=edited).filter(memories__isnull=False)
    if model is Question:
        with_history = with_history | model.objects.filter(pk__in=edited, slots__isnull=False)
    for pk in sorted(set(with_history.values_list("pk", flat=True))):
        item, row = edited[pk]
        outcome.warnings.append(
            f"{document.file}:{item.line}: {noun} {row.key} was {shorten((shown or text)(row))!r}; its text changed, and "
            "learners' answers and reviews of it now belong to the new text"
        )


def _named(key, text):
    return f"{key} ({shorten(text)!r})"


def _card_text(card):
    """A card as messages name it: its front, or a cloze card's question (its deletion blank)."""
    return card.front if card.cloze is None else cloze_front(card.front, card.cloze)


class KeyChooser:
    """Keys for new rows: the document's own (`q3`, `c2`) while no row of the set or deck has
    it, else one made from the text, so a new item never takes an identity that is in use."""

    def __init__(self, taken):
        self.taken = set(taken)

    def claim(self, wanted, text):
        key = wanted
        if key in self.taken:
            digest = hashlib.sha256(text.encode()).hexdigest()
            key = next(f"{wanted}-{digest[:8 + n]}" for n in range(57) if f"{wanted}-{digest[:8 + n]}" not in self.taken)
        self.taken.add(key)
        return key


def _create_question(question_set, parsed, position, key):
    question = Question.objects.create(
        question_set=question_set, key=key, position=position, stem=parsed.stem, explanation=parsed.explanation,
        kind=parsed.kind, partial_credit=parsed.partial_credit, case_sensitive=parsed.case_sensitive,
        markup=parsed.markup,
    )
    Choice.objects.bulk_create(
        Choice(question=question, text=text, is_correct=correct, weight=weight, tolerance=tolerance, match=match, position=position)
        for position, text, correct, weight, tolerance, match in _wanted_choices(parsed.choices)
    )
    return question


def _update_question(document, question, parsed, position, topics):
    changed = _changed_fields(
        question, position=position, stem=parsed.stem, explanation=parsed.explanation,
        kind=parsed.kind, partial_credit=parsed.partial_credit, case_sensitive=parsed.case_sensitive,
        markup=parsed.markup,
    )
    choices_changed = sync_choices(question, parsed.choices, file=document.file)
    topics_changed = _sync_topics(question, parsed.topics, topics)
    if changed or choices_changed or topics_changed:
        # updated_at also moves when only the choices or topics changed: the question did change.
        question.save(update_fields=changed + ["updated_at"])
    return bool(changed or choices_changed or topics_changed)


def _changed_fields(instance, **values):
    """Set the differing attributes on `instance`; return their names (nothing saved)."""
    changed = [name for name, value in values.items() if getattr(instance, name) != value]
    for name in changed:
        setattr(instance, name, values[name])
    return changed


def sync_choices(question, parsed_choices, *, file=None):
    """Make the question's choices match the source (or the editor's form: `parsed_choices`
    are (text, is_correct) or (text, is_correct, weight)) without changing what any row means.

    Learners' answers point at choice rows (for statistics; the attempt itself keeps a
    snapshot), so a row must keep its text across re-imports: a choice is matched first by
    its exact text (reordering the source moves rows, it never swaps their texts), then, if
    its text is new, by its position (a typo fixed in place). Rows left over are deleted
    (answers that pointed at them keep their snapshot) and new texts get new rows.
    """
    existing = list(question.choices.all())
    wanted = _wanted_choices(parsed_choices)
    if [(c.position, c.text, c.is_correct, _weight(c.weight), _tolerance(c.tolerance), c.match) for c in existing] == wanted:
        return False
    matches = _match_choices(existing, wanted)
    matched_pks = {choice.pk for choice in matches.values()}
    removed = [choice for choice in existing if choice.pk not in matched_pks]
    for choice in removed:
        _delete(file, choice, f"cannot remove choice {choice.text[:40]!r} of question {question.key}")
    for position, text, correct, weight, tolerance, match in wanted:
        choice = matches.get(position)
        changed = choice and _changed_fields(
            choice, position=position, text=text, is_correct=correct, weight=weight, tolerance=tolerance, match=match
        )
        if changed:
            choice.save(update_fields=changed)
    Choice.objects.bulk_create(
        Choice(question=question, position=position, text=text, is_correct=correct, weight=weight, tolerance=tolerance,
               match=match)
        for position, text, correct, weight, tolerance, match in wanted
        if position not in matches
    )
    return True


def _wanted_choices(parsed_choices):
    """[(position, text, correct, weight, tolerance, match)] from (text, correct[, weight[, tolerance[, match]]])."""
    return [
        (
            position, choice[0], choice[1], _weight(choice[2] if len(choice) > 2 else None),
            _tolerance(choice[3] if len(choice) > 3 else None), choice[4] if len(choice) > 4 else "",
        )
        for position, choice in enumerate(parsed_choices, start=1)
    ]


def _tolerance(value):
    return None if value is None else Decimal(value).quantize(Decimal("0.0000000001"))


def _weight(value):
    """A weight as the column holds it (5 places), so an unchanged one compares equal."""
    return None if value is None else Decimal(value).quantize(Decimal("0.0000001"))


def _match_choices(existing, wanted):
    """{new position: existing Choice}: by exact text first, then by unchanged position."""
    unmatched = list(existing)
    matches = {}
    for position, text, *_ in wanted:
        if choice := next((c for c in unmatched if c.text == text), None):
            matches[position] = choice
            unmatched.remove(choice)
    for position, *_ in wanted:
        if position not in matches and (choice := next((c for c in unmatched if c.position == position), None)):
            matches[position] = choice
            unmatched.remove(choice)
    return matches


def _save_cards(document, deck):
    outcome = Outcome(document)
    topics = _topic_rows(document.items)
    existing, retired_keys = _current_and_retired(deck.cards.prefetch_related("topics"))
    # A cloze note's cards share their texts: each is its note's text and its number.
    pairs, leftover = match_items(document, existing, text=lambda item: (item.front, item.cloze))
    _warn_about_edited_history(document, outcome, pairs, Card, "card", text=lambda item: item.front, shown=_card_text)
    removed, kept = removed_and_kept(document, leftover)
    for card in removed:
        _delete(document.file, card, f"cannot remove card {_named(card.key, _card_text(card))}: learners have studied it")
        outcome.deleted += 1
    keys = KeyChooser([*(row.key for _, row in pairs if row is not None), *(row.key for row in kept), *retired_keys])
    for position, (parsed, card) in zip(document.positions(), pairs):
        texts = {name: getattr(parsed, name) for name in (*CARD_PARTS, "markup", "cloze")}
        if card is None:
            key = keys.claim(parsed.key, parsed.front)
            card = Card.objects.create(deck=deck, key=key, position=position, **texts)
            _add_topics(card, parsed.topics, topics)
            outcome.created += 1
            continue
        changed = _changed_fields(card, position=position, **texts)
        if _sync_topics(card, parsed.topics, topics) or changed:
            card.save(update_fields=changed + ["updated_at"])
            outcome.updated += 1
    return outcome


def _topic_rows(items):
    """{name: Topic} for every topic the items name, creating the missing rows."""
    return topic_rows({name for item in items for name in item.topics or ()})


def topic_rows(names):
    """{name: Topic} for these names, creating the missing rows."""
    if not names:
        return {}
    rows = {topic.name: topic for topic in Topic.objects.filter(name__in=names)}
    if missing := names - rows.keys():
        # ignore_conflicts and a second read, so an import running at the same moment that
        # creates the same topic is not an IntegrityError: its row is read back instead.
        Topic.objects.bulk_create([Topic(name=name) for name in sorted(missing)], ignore_conflicts=True)
        rows.update((topic.name, topic) for topic in Topic.objects.filter(name__in=missing))
    return rows


def _add_topics(item, names, topics):
    if names:
        item.topics.add(*(topics[name] for name in names))


def set_topics(item, names):
    """Make a question's or card's topics exactly `names` (the editor's form); True if changed."""
    return _sync_topics(item, names, topic_rows(set(names)))


def _sync_topics(item, names, topics):
    """Make the item's topics exactly `names` (None: leave them); return whether they changed.

    Reads the prefetched `topics`, so an unchanged item costs no query.
    """
    if names is None:
        return False
    current = {topic.name: topic for topic in item.topics.all()}
    if current.keys() == set(names):
        return False
    if stale := [topic for name, topic in current.items() if name not in names]:
        item.topics.remove(*stale)
    _add_topics(item, [name for name in names if name not in current], topics)
    return True


def _delete(file, instance, message):
    try:
        instance.delete()
    except ProtectedError as error:
        raise ContentError(file, None, message) from error
