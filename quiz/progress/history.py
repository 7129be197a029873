"""The learner's own history as rows for "Download my history": every answer given in a
quiz, then every other review (flashcards, review sessions, the drill), oldest first.

No row says whether an answer was right while its attempt's answers are hidden
(`Attempt.answers_visible`), and log rows written by quiz answers are left out: they are the
answers above, and their rating would tell what a hidden attempt hides.
"""

from datetime import UTC

from quiz.models import AttemptSlot, MemoryState, ReviewLog

CSV_COLUMNS = [
    "record", "when_utc", "item_kind", "set_or_deck", "item_key", "item_text", "attempt_id", "position",
    "chosen", "correct", "rating", "seconds", "source",
]


def history_rows(user, now):
    yield CSV_COLUMNS
    answers = (
        AttemptSlot.objects.filter(attempt__user=user, answered_at__isnull=False)
        .select_related("attempt__question_set", "question")
        .order_by("answered_at", "pk")
    )
    for slot in answers.iterator(chunk_size=2000):
        attempt = slot.attempt
        visible = attempt.answers_visible(now)
        yield [
            "answer", _utc(slot.answered_at), "question", attempt.display_title, slot.question.key, slot.stem,
            attempt.pk, slot.position, slot.chosen_index,
            ("yes" if slot.is_correct else "no") if visible else "hidden",
            "", slot.seconds_spent if slot.seconds_spent is not None else "", "quiz",
        ]
    reviews = (
        ReviewLog.objects.filter(user=user)
        .exclude(source=ReviewLog.Source.QUIZ)
        .select_related("memory__card__deck", "memory__question__question_set", "chosen_choice")
        .order_by("reviewed_at", "pk")
    )
    for review in reviews.iterator(chunk_size=2000):
        memory = review.memory
        item = memory.question if memory.kind == MemoryState.Kind.QUESTION else memory.card
        parent = item.question_set.title if memory.kind == MemoryState.Kind.QUESTION else item.deck.title
        text = item.stem if memory.kind == MemoryState.Kind.QUESTION else (
            item.misconception if memory.kind == MemoryState.Kind.MYTH else item.front
        )
        seconds = "" if review.duration_ms is None else round(review.duration_ms / 1000, 1)
        yield [
            "review", _utc(review.reviewed_at), memory.kind, parent, item.key, text, "", "",
            review.chosen_choice.text if review.chosen_choice else review.answer,
            "yes" if review.rating > ReviewLog.Rating.AGAIN else "no",
            review.get_rating_display(), seconds, review.source,
        ]


def _utc(moment):
    return moment.astimezone(UTC).isoformat(timespec="seconds")
