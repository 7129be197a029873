"""What the editor writes: a question or card saved from its form, items moved, removed
(deleted, or retired when learners used them), and whole sets and decks copied or deleted.

Keyword-only functions over several models, like `quiz.content.sync`, whose choice and
topic rules they share so an edit and a re-import treat rows the same way.
"""

import re
import secrets

from django.db import transaction
from django.db.models import Max, Prefetch, ProtectedError
from django.utils import timezone

from quiz.content.cloze import cloze_numbers
from quiz.content.documents import MAX_KEY
from quiz.content.media import copy_images
from quiz.content.sync import set_topics, sync_choices
from quiz.lib.content_version import content_changed
from quiz.lib.sql import BULK_UPDATE_BATCH
from quiz.models import (
    Assignment,
    AttemptSlot,
    Card,
    Choice,
    Deck,
    Markup,
    MemoryState,
    Question,
    QuestionPool,
    QuestionSet,
    SourceDocument,
)

CARD_FIELDS = ("front", "back", "misconception", "correction")


def new_key(prefix):
    """A key for an item made in the editor: random, so it never takes the identity of an item a
    document imports later (`q3`), nor of a retired one."""
    return f"{prefix}-{secrets.token_hex(5)}"


@transaction.atomic
def save_question(*, question_set, question=None, stem, explanation, choices, topics,
                  kind=Question.Kind.SINGLE, partial_credit=False, case_sensitive=False, markup=Markup.PLAIN):
    """Create a question at the end of the set, or update `question`. `choices` are
    (text, is_correct[, weight]) in order. Choice rows keep their meaning (matched by text
    first), so statistics on a choice never jump to another text."""
    content_changed()
    if question is None:
        question = Question(question_set=question_set, key=new_key("q"), position=_next_position(question_set.questions))
    question.stem, question.explanation, question.markup = stem, explanation, markup
    question.kind, question.partial_credit, question.case_sensitive = kind, partial_credit, case_sensitive
    question.save()
    sync_choices(question, choices)
    set_topics(question, topics)
    return question


@transaction.atomic
def save_card(*, deck, card=None, topics, markup=Markup.PLAIN, **texts):
    """Create a card at the end of the deck, or update `card`; `texts` are its four sides."""
    content_changed()
    if card is None:
        card = Card(deck=deck, key=new_key("c"), position=_next_position(deck.cards))
    for name in CARD_FIELDS:
        setattr(card, name, texts[name])
    card.markup = markup
    card.save()
    set_topics(card, topics)
    if card.cloze is not None or cloze_numbers(card.front):
        return _save_cloze_note(card, topics)
    return card


def _save_cloze_note(card, topics):
    """A cloze card's edit is its note's: every card of the note (same key but for its `-cN`)
    takes the texts, a new number gets a card (its retired one back, memory and all, if it had
    one), a number gone retires its card as removing a card does. Returns the card to show: the
    one edited, unless its own number went."""
    numbers = cloze_numbers(card.front)
    suffix = f"-c{card.cloze}"
    prefix = card.key[: -len(suffix)] if card.cloze is not None and card.key.endswith(suffix) else card.key
    keys = {f"{prefix}-c{number}": number for number in numbers}
    if card.cloze is None:  # an ordinary card given markers: it becomes its first number's card
        card.cloze, card.key = numbers[0], f"{prefix}-c{numbers[0]}"
        if Card.objects.filter(deck=card.deck_id, key=card.key).exists():
            card.key = f"{new_key('c')}-c{numbers[0]}"
            prefix = card.key[: -len(f"-c{numbers[0]}")]
            keys = {f"{prefix}-c{number}": number for number in numbers}
        card.save(update_fields=["cloze", "key"])
    sibling = re.compile(re.escape(prefix) + r"-c\d+")  # not another note's whose key starts with this one
    note = {row.key: row for row in Card.objects.select_for_update().filter(
        deck=card.deck_id, cloze__isnull=False, key__startswith=f"{prefix}-c") if sibling.fullmatch(row.key)}
    note[card.key] = card
    shown = None
    for key, row in note.items():
        if key not in keys:
            if row.retired_at is None and (numbers or row.pk != card.pk):
                remove_item(row, now=timezone.now())
            continue
        for name in (*CARD_FIELDS, "markup"):
            setattr(row, name, getattr(card, name))
        row.cloze, row.retired_at = keys[key], None
        row.save()
        set_topics(row, topics)
        shown = shown or row
    position = _next_position(Card.objects.filter(deck=card.deck_id))
    for key, number in keys.items():
        if key not in note:
            if len(key) > MAX_KEY or Card.objects.filter(deck=card.deck_id, key=key).exists():
                key = f"{new_key('c')}-c{number}"  # taken by a card outside the note, or too long
            row = Card.objects.create(deck_id=card.deck_id, key=key, position=position, cloze=number, markup=card.markup,
                                      **{name: getattr(card, name) for name in CARD_FIELDS})
            set_topics(row, topics)
            position += 1
            shown = shown or row
    if not numbers:  # no markers left: the edited card is an ordinary card again
        card.cloze = None
        Card.objects.filter(pk=card.pk).update(cloze=None, retired_at=None)
        card.retired_at = None
        return card
    return card if card.key in keys else shown


def _next_position(items):
    return (items.aggregate(last=Max("position"))["last"] or 0) + 1


def siblings(item):
    """The other items of the item's set or deck (retired ones included)."""
    if isinstance(item, Question):
        return Question.objects.filter(question_set=item.question_set_id)
    return Card.objects.filter(deck=item.deck_id)


@transaction.atomic
def move_item(item, direction):
    """Swap the item with the current item before ("up") or after ("down") it, then number the
    current items 1, 2, 3... Rows are locked, so two moves at once cannot lose one."""
    content_changed()
    items = list(siblings(item).current().select_for_update().order_by("position", "pk"))
    index = next((i for i, row in enumerate(items) if row.pk == item.pk), None)
    other = None if index is None else index + {"up": -1, "down": 1}.get(direction, 0)
    if other is None or other == index or not 0 <= other < len(items):
        return False
    items[index], items[other] = items[other], items[index]
    for position, row in enumerate(items, start=1):
        row.position = position
    type(item).objects.bulk_update(items, ["position"], batch_size=BULK_UPDATE_BATCH)
    return True


def remove_item(item, *, now):
    """Delete an item nobody used; retire one that learners answered or studied (or that a
    question pool holds), keeping it for their history. Returns True if it was retired."""
    content_changed()
    if not type(item).objects.filter(pk=item.pk).in_use().exists():
        try:
            with transaction.atomic():
                item.delete()
            return False
        except ProtectedError:
            pass  # a learner started on it meanwhile: retire it after all
    type(item).objects.filter(pk=item.pk).update(retired_at=now)
    item.retired_at = now
    return True


def learners_by_item(items):
    """{item pk: how many learners have history with it}, for retired items: two queries for
    questions (attempts, memories), one for cards, whatever the number of items."""
    items = list(items)
    if not items:
        return {}
    kind = "question" if isinstance(items[0], Question) else "card"
    pairs = set(MemoryState.objects.filter(**{f"{kind}__in": items}).values_list(f"{kind}_id", "user_id"))
    if kind == "question":
        pairs |= set(AttemptSlot.objects.filter(question__in=items).values_list("question_id", "attempt__user_id"))
    counts = dict.fromkeys((item.pk for item in items), 0)
    for pk, _ in pairs:
        counts[pk] += 1
    return counts


def rename_container(container, title):
    """A set's or deck's new title; a re-import of its document keeps it (sync._update_title)."""
    content_changed()
    container.title = title
    container.save(update_fields=["title"])
    return container


def copy_title(title):
    suffix, room = " (copy)", QuestionSet._meta.get_field("title").max_length
    return title[: room - len(suffix)] + suffix


@transaction.atomic
def duplicate_set(question_set, *, owner, now):
    """A private copy for `owner` of the set's current questions: new keys, no source, no history."""
    content_changed()
    copy = QuestionSet.objects.create(title=copy_title(question_set.title), owner=owner, created_at=now)
    originals = list(question_set.questions.current().order_by("position", "pk").prefetch_related("choices", "topics"))
    copies = Question.objects.bulk_create(
        Question(
            question_set=copy, key=new_key("q"), position=n, stem=q.stem, explanation=q.explanation,
            kind=q.kind, partial_credit=q.partial_credit, case_sensitive=q.case_sensitive, markup=q.markup,
        )
        for n, q in enumerate(originals, start=1)
    )
    Choice.objects.bulk_create(
        Choice(
            question=new, text=c.text, is_correct=c.is_correct, weight=c.weight, tolerance=c.tolerance, match=c.match,
            position=c.position,
        )
        for old, new in zip(originals, copies)
        for c in old.choices.all()
    )
    _copy_topics(Question, "question", originals, copies)
    copy_images(question_set, copy)
    return copy


@transaction.atomic
def duplicate_deck(deck, *, owner, now):
    """A private copy for `owner` of the deck's current cards: new keys, no source, no history."""
    content_changed()
    copy = Deck.objects.create(title=copy_title(deck.title), owner=owner, created_at=now)
    originals = list(deck.cards.current().order_by("position", "pk").prefetch_related("topics"))
    copies = Card.objects.bulk_create(
        Card(deck=copy, key=new_key("c"), position=n, markup=c.markup, **{name: getattr(c, name) for name in CARD_FIELDS})
        for n, c in enumerate(originals, start=1)
    )
    _copy_topics(Card, "card", originals, copies)
    copy_images(deck, copy)
    return copy


def _copy_topics(model, name, originals, copies):
    through = model.topics.through
    through.objects.bulk_create(
        through(**{f"{name}_id": new.pk, "topic_id": topic.pk})
        for old, new in zip(originals, copies)
        for topic in old.topics.all()
    )


def delete_container(container):
    """Delete a set or deck (and the record of the document it came from) when nothing refers
    to it; False, with nothing deleted, when learners' history or a question pool does."""
    content_changed()
    if _in_use(container):
        return False
    source_id = container.source_id
    try:
        with transaction.atomic():
            container.delete()
            SourceDocument.objects.filter(pk=source_id).delete()
    except ProtectedError:
        return False  # used meanwhile
    return True


def pools_holding(question_set):
    """The question pools holding any of the set's questions, with their assignments (each
    with its class): what keeps the set from being deleted besides learners' history."""
    assignments = Assignment.objects.select_related("classroom").order_by("classroom__name", "title", "pk")
    return (
        QuestionPool.objects.filter(entries__question__question_set=question_set)
        .distinct()
        .order_by("title", "pk")
        .prefetch_related(Prefetch("assignments", queryset=assignments))
    )


def has_learners_history(container):
    """Whether learners answered the set's questions or studied the deck's cards."""
    if isinstance(container, QuestionSet):
        questions = {"question__question_set": container}
        return (
            container.attempts.exists()
            or AttemptSlot.objects.filter(**questions).exists()
            or MemoryState.objects.filter(**questions).exists()
        )
    return MemoryState.objects.filter(card__deck=container).exists()


def _in_use(container):
    if isinstance(container, QuestionSet):
        return container.attempts.exists() or container.questions.in_use().exists()
    return container.cards.in_use().exists()
