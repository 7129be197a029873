"""Saving a parsed document into the database: its source document, its set or deck, the
questions with their choices, the cards and their topics.

Rows are matched by stable keys (`q3` from "Question 3", `c2` for the second card), never by
their text, so fixing a typo in a source updates the row in place and the attempts that point
at it survive. Topics are set only on items whose source names them (a `Topics:` line, a
"topics" key), so topics added in the admin survive re-importing a source that has none.
A row that other records protect is not deleted: saving stops with a ContentError.
"""

from dataclasses import dataclass

from django.db.models import Prefetch, ProtectedError

from ..models import Card, Choice, Deck, Question, QuestionSet, SourceDocument, Topic
from .documents import CARD_PARTS, ContentError, ParsedDocument


@dataclass
class Outcome:
    """How many rows saving one document created, updated and deleted; summary() is its report line."""

    document: ParsedDocument
    created: int = 0
    updated: int = 0
    deleted: int = 0

    @property
    def changed(self):
        return bool(self.created or self.updated or self.deleted)

    def summary(self):
        doc = self.document
        noun = "questions" if doc.kind == SourceDocument.Kind.QUIZ else "cards"
        counts = f"{self.created} new, {self.updated} updated"
        if self.deleted:
            counts += f", {self.deleted} removed"
        return f'{doc.file}: {doc.kind} "{doc.title}": {len(doc.items)} {noun} ({counts})'


def save_document(document, *, now):
    """Create or update one set or deck (and its source document) to match `document`."""
    source = _source_document(document, now)
    if document.kind == SourceDocument.Kind.QUIZ:
        container = _container(QuestionSet, document, source, now)
        outcome = _save_questions(document, container)
    else:
        container = _container(Deck, document, source, now)
        outcome = _save_cards(document, container)
    title_changed = _update_title(container, document.title)
    if source:
        _update_source(source, document, outcome.changed or title_changed, now)
    return outcome


def _source_document(document, now):
    if document.file_name is None:
        return None
    source, _ = SourceDocument.objects.get_or_create(
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


def _container(model, document, source, now):
    """The set or deck of this source, or (no source) the unsourced one with this title."""
    found = model.objects.filter(source=source) if source else model.objects.filter(source=None, title=document.title)
    return found.order_by("pk").first() or model.objects.create(title=document.title, source=source, created_at=now)


def _update_title(container, title):
    if container.title == title:
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
    existing = {
        question.key: question
        for question in question_set.questions.prefetch_related(
            Prefetch("choices", Choice.objects.order_by("position", "pk")), "topics"
        )
    }
    for position, parsed in enumerate(document.items, start=1):
        question = existing.pop(parsed.key, None)
        if question is None:
            question = _create_question(question_set, parsed, position)
            _add_topics(question, parsed.topics, topics)
            outcome.created += 1
        elif _update_question(document, question, parsed, position, topics):
            outcome.updated += 1
    for question in existing.values():
        _delete(document, question, f"cannot remove question {question.key}: learners have answered it")
        outcome.deleted += 1
    return outcome


def _create_question(question_set, parsed, position):
    question = Question.objects.create(
        question_set=question_set, key=parsed.key, position=position, stem=parsed.stem, explanation=parsed.explanation
    )
    Choice.objects.bulk_create(
        Choice(question=question, text=text, is_correct=correct, position=index)
        for index, (text, correct) in enumerate(parsed.choices, start=1)
    )
    return question


def _update_question(document, question, parsed, position, topics):
    changed = _changed_fields(question, position=position, stem=parsed.stem, explanation=parsed.explanation)
    choices_changed = _sync_choices(document, question, parsed.choices)
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


def _sync_choices(document, question, parsed_choices):
    """Make the question's choices match the source without changing what any row means.

    Learners' answers point at choice rows (for statistics; the attempt itself keeps a
    snapshot), so a row must keep its text across re-imports: a choice is matched first by
    its exact text (reordering the source moves rows, it never swaps their texts), then, if
    its text is new, by its position (a typo fixed in place). Rows left over are deleted
    (answers that pointed at them keep their snapshot) and new texts get new rows.
    """
    existing = list(question.choices.all())
    wanted = [(position, text, correct) for position, (text, correct) in enumerate(parsed_choices, start=1)]
    if [(c.position, c.text, c.is_correct) for c in existing] == wanted:
        return False
    matches = _match_choices(existing, wanted)
    matched_pks = {choice.pk for choice in matches.values()}
    removed = [choice for choice in existing if choice.pk not in matched_pks]
    for choice in removed:
        _delete(document, choice, f"cannot remove choice {choice.text[:40]!r} of question {question.key}")
    _clear_stale_marks(matches, wanted)
    for position, text, correct in wanted:
        choice = matches.get(position)
        if choice and (changed := _changed_fields(choice, position=position, text=text, is_correct=correct)):
            choice.save(update_fields=changed)
    Choice.objects.bulk_create(
        Choice(question=question, position=position, text=text, is_correct=correct)
        for position, text, correct in wanted
        if position not in matches
    )
    return True


def _match_choices(existing, wanted):
    """{new position: existing Choice}: by exact text first, then by unchanged position."""
    unmatched = list(existing)
    matches = {}
    for position, text, _ in wanted:
        if choice := next((c for c in unmatched if c.text == text), None):
            matches[position] = choice
            unmatched.remove(choice)
    for position, _, _ in wanted:
        if position not in matches and (choice := next((c for c in unmatched if c.position == position), None)):
            matches[position] = choice
            unmatched.remove(choice)
    return matches


def _clear_stale_marks(matches, wanted):
    # The partial unique index allows one correct choice per question at any moment, so every
    # kept choice that stops being correct is cleared before the new correct one is saved
    # (removed choices are already gone).
    stale = [matches[p] for p, _, correct in wanted if p in matches and matches[p].is_correct and not correct]
    Choice.objects.filter(pk__in=[choice.pk for choice in stale]).update(is_correct=False)
    for choice in stale:
        choice.is_correct = False  # as the row now is, so it is not saved a second time


def _save_cards(document, deck):
    outcome = Outcome(document)
    topics = _topic_rows(document.items)
    existing = {card.key: card for card in deck.cards.prefetch_related("topics")}
    for position, parsed in enumerate(document.items, start=1):
        card = existing.pop(parsed.key, None)
        texts = {name: getattr(parsed, name) for name in CARD_PARTS}
        if card is None:
            card = Card.objects.create(deck=deck, key=parsed.key, position=position, **texts)
            _add_topics(card, parsed.topics, topics)
            outcome.created += 1
            continue
        changed = _changed_fields(card, position=position, **texts)
        if _sync_topics(card, parsed.topics, topics) or changed:
            card.save(update_fields=changed + ["updated_at"])
            outcome.updated += 1
    for card in existing.values():
        _delete(document, card, f"cannot remove card {card.key}: other records refer to it")
        outcome.deleted += 1
    return outcome


def _topic_rows(items):
    """{name: Topic} for every topic the items name, creating the missing rows."""
    names = {name for item in items for name in item.topics or ()}
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


def _delete(document, instance, message):
    try:
        instance.delete()
    except ProtectedError as error:
        raise ContentError(document.file, None, message) from error
