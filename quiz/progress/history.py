"""The learner's own history as rows for "Download my history": every answer given in a
quiz, then every other review (flashcards, review sessions, the drill), oldest first.

No row says whether an answer was right while its attempt's answers are hidden
(`Attempt.answers_visible`), and log rows written by quiz answers are left out: they are the
answers above, and their rating would tell what a hidden attempt hides.
"""

from datetime import UTC

from quiz.models import Attempt, AttemptSlot, MemoryState, ReviewLog

CSV_COLUMNS = [
    "record", "when_utc", "item_kind", "set_or_deck", "item_key", "item_text", "attempt_id", "position",
    "chosen", "correct", "rating", "seconds", "source",
]


def history_rows(user, now):
    """The rows, header first, read as plain values in chunks (no model instance per row: a
    download of tens of thousands of rows streams at the speed of the database)."""
    yield CSV_COLUMNS
    answers = (
        AttemptSlot.objects.filter(attempt__user=user, answered_at__isnull=False)
        .order_by("answered_at", "pk")
        .values_list(
            "answered_at", "attempt__title", "attempt__question_set__title", "question__key", "stem", "attempt_id",
            "position", "chosen_index", "is_correct", "seconds_spent", "attempt__feedback", "attempt__finished_at",
            "attempt__reveal_at",
        )
    )
    for (at, title, set_title, key, stem, attempt_id, position, chosen, right, seconds, feedback, finished,
         reveal) in answers.iterator(chunk_size=5000):
        visible = Attempt.visible(feedback, finished, reveal, now)
        yield [
            "answer", _utc(at), "question", title or set_title or "Quiz", key, stem, attempt_id, position, chosen,
            ("yes" if right else "no") if visible else "hidden", "", "" if seconds is None else seconds, "quiz",
        ]
    reviews = (
        ReviewLog.objects.filter(user=user)
        .exclude(source=ReviewLog.Source.QUIZ)
        .order_by("reviewed_at", "pk")
        .values_list(
            "reviewed_at", "memory__kind", "memory__question__question_set__title", "memory__card__deck__title",
            "memory__question__key", "memory__card__key", "memory__question__stem", "memory__card__front",
            "memory__card__misconception", "chosen_choice__text", "answer", "rating", "duration_ms", "source",
        )
    )
    labels = dict(ReviewLog.Rating.choices)
    for (at, kind, set_title, deck_title, question_key, card_key, stem, front, myth, chosen, answer, rating, duration,
         source) in reviews.iterator(chunk_size=5000):
        question = kind == MemoryState.Kind.QUESTION
        text = stem if question else (myth if kind == MemoryState.Kind.MYTH else front)
        yield [
            "review", _utc(at), kind, set_title if question else deck_title, question_key if question else card_key,
            text, "", "", chosen if chosen is not None else answer, "yes" if rating > ReviewLog.Rating.AGAIN else "no",
            labels[rating], "" if duration is None else round(duration / 1000, 1), source,
        ]


def _utc(moment):
    return moment.astimezone(UTC).isoformat(timespec="seconds")
