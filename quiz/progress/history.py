"""The learner's own history as rows for "Download my history": every answer given in a
quiz, then every other review (flashcards, review sessions, the drill), oldest first.

No row says whether an answer was right while its attempt's answers are hidden
(`Attempt.answers_visible`), and log rows written by quiz answers are left out: they are the
answers above, and their rating would tell what a hidden attempt hides.
"""

import heapq
from datetime import UTC

from quiz.content.cloze import cloze_front
from quiz.models import Attempt, AttemptSlot, MemoryState, ReviewLog
from quiz.models.kinds import verdict

CSV_COLUMNS = [
    "record", "when_utc", "item_kind", "set_or_deck", "item_key", "item_text", "attempt_id", "position",
    "chosen", "correct", "rating", "seconds", "source",
]


def history_rows(user, now):
    """The rows, header first, read as plain values in chunks (no model instance per row: a
    download of tens of thousands of rows streams at the speed of the database)."""
    yield CSV_COLUMNS
    yield from _answer_rows(user, now)
    yield from _review_rows(user)


def _answer_rows(user, now):
    attempts = _attempts_of(user, now)
    # Each answer names its attempt by id, looked up above, and is read by the ids of the
    # learner's attempts: joined in SQL, PostgreSQL at a million answers chose to read every
    # learner's attempts in parallel, a cost that grows with everyone's history.
    # In batches, each in answer order, merged: a bound on the ids a statement carries.
    ids = sorted(attempts)
    batches = [
        AttemptSlot.objects.filter(attempt_id__in=ids[start : start + ATTEMPTS_PER_READ], answered_at__isnull=False)
        .order_by("answered_at", "pk")
        .values_list("answered_at", "pk", "attempt_id", "question__key", "stem", "position", "chosen_index",
                     "chosen_numbers", "credit", "seconds_spent")
        .iterator(chunk_size=5000)
        for start in range(0, len(ids), ATTEMPTS_PER_READ)
    ]
    for at, _, attempt_id, key, stem, position, chosen, several, credit, seconds in heapq.merge(*batches):
        title, visible = attempts[attempt_id]
        picks = ",".join(map(str, several)) if several else chosen  # "1,3" for several picks, as shown
        yield [
            "answer", _utc(at), "question", title, key, stem, attempt_id, position, picks,
            verdict(credit) if visible else "hidden", "", "" if seconds is None else seconds, "quiz",
        ]



# Attempt ids per read of their answers: far below what a statement may carry (SQLite: 32,766).
ATTEMPTS_PER_READ = 5000


def _attempts_of(user, now):
    """{attempt id: (the title its rows show, whether its answers' correctness may be shown)}."""
    attempts = Attempt.objects.filter(user=user).values_list(
        "pk", "title", "question_set__title", "feedback", "finished_at", "reveal_at"
    )
    return {
        pk: (title or set_title or "Quiz", Attempt.visible(feedback, finished, reveal, now))
        for pk, title, set_title, feedback, finished, reveal in attempts.iterator(chunk_size=5000)
    }


def _review_rows(user):
    items = _items_studied(user)
    # Each log row names its memory by id, looked up above: joined in SQL, the planner either
    # hashed every learner's memory states (a scan growing with history) or, told the memory
    # is this learner's, misjudged the rows and looked up each of tens of thousands in turn.
    reviews = (
        ReviewLog.objects.filter(user=user)
        .exclude(source=ReviewLog.Source.QUIZ)
        .order_by("reviewed_at", "pk")
        .values_list(
            "reviewed_at", "memory_id", "chosen_choice__text", "answer", "shown__chosen", "rating", "duration_ms", "source"
        )
    )
    labels = dict(ReviewLog.Rating.choices)
    for at, memory_id, chosen, answer, picks, rating, duration, source in reviews.iterator(chunk_size=5000):
        kind, set_or_deck, key, text = items[memory_id]
        if chosen is None and isinstance(picks, list):  # several picks: their numbers as shown, "1,3"
            chosen = ",".join(map(str, picks))
        yield [
            "review", _utc(at), kind, set_or_deck, key, text, "", "", chosen if chosen is not None else answer,
            "yes" if rating > ReviewLog.Rating.AGAIN else "no", labels[rating],
            "" if duration is None else round(duration / 1000, 1), source,
        ]


def _items_studied(user):
    """{memory id: (kind, set or deck title, item key, text shown)} of the learner's memory
    states: one row per item studied, however many times it was reviewed. A cloze card's text
    is its question as the learner saw it, its own deletion blank (`[...]`, or `[hint]`) and
    the others shown, never the note's markers."""
    memories = MemoryState.objects.filter(user=user).values_list(
        "pk", "kind", "question__question_set__title", "card__deck__title", "question__key", "card__key",
        "question__stem", "card__front", "card__cloze", "card__misconception",
    )
    items = {}
    for pk, kind, set_title, deck_title, question_key, card_key, stem, front, cloze, myth in memories:
        if kind == MemoryState.Kind.QUESTION:
            items[pk] = (kind, set_title, question_key, stem)
        elif kind == MemoryState.Kind.MYTH:
            items[pk] = (kind, deck_title, card_key, myth)
        else:
            items[pk] = (kind, deck_title, card_key, front if cloze is None else cloze_front(front, cloze))
    return items


def _utc(moment):
    return moment.astimezone(UTC).isoformat(timespec="seconds")
