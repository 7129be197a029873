"""Answering a quiz question, and what follows from it: the attempt records the answer, and
once the learner may see whether it was right, the question's memory state learns from it.
So every question answered anywhere feeds the spaced-repetition queue, and the queue never
shows an answer before the quiz does."""

from django.db import IntegrityError, transaction
from django.utils import timezone

from quiz.models import AttemptSlot, MemoryState, ReviewLog

from . import scheduling

# A rating refused because another one of the same item landed first (the same question answered
# at the same moment in two attempts) is tried again on the fresh state; this many times at most.
RATING_TRIES = 20


def rating_for(is_correct):
    # Pass/fail maps to Good/Again, as the fsrs maintainers advise for binary grading.
    return ReviewLog.Rating.GOOD if is_correct else ReviewLog.Rating.AGAIN


def question_shown(*, stem, explanation, choices, chosen):
    """What a log row keeps of a question as the learner saw it: `choices` are (text, correct)
    in the order shown, `chosen` the 1-based number picked. Its review shows this, whatever
    edits the question gets later."""
    return {
        "stem": stem,
        "explanation": explanation,
        "choices": [{"text": text, "correct": correct} for text, correct in choices],
        "chosen": chosen,
    }


def submit_answer(*, attempt, slot, number, now=None, memory=scheduling.UNREAD):
    """Record the learner's pick (its number as shown); True if this call recorded it.

    A repeat submit (already answered) changes nothing. The answer enters the memory queue at
    once when feedback is immediate, otherwise when the attempt's answers become visible.
    `memory`: the learner's MemoryState of the slot's question (None if new), when the page's
    query already read it.
    """
    now = now or timezone.now()
    at_once = attempt.shows_feedback_per_question and (attempt.reveal_at is None or now >= attempt.reveal_at)
    for _ in range(RATING_TRIES):
        try:
            with transaction.atomic():
                recorded = attempt.record_answer(slot, number, now=now, claim=at_once, savepoint=False)
                if recorded and at_once:
                    # Claimed by record_answer's own UPDATE; rated in the same transaction.
                    if _rate_released(slot, attempt.user, now, memory=memory, savepoint=False) is None:
                        raise IntegrityError("the question's memory changed meanwhile")
                elif recorded and attempt.is_finished:
                    release_visible_answers(attempt.slots.all(), now=now)
            return recorded
        except IntegrityError:
            # Another answer to the same question rated it at the same moment: nothing of this
            # one was written; record it again on the fresh state.
            slot.refresh_from_db()
            attempt.refresh_from_db()
            memory = scheduling.UNREAD
    raise IntegrityError(f"could not record the answer to slot {slot.pk} after {RATING_TRIES} tries")


def pending_release(slots, now):
    """Of `slots`, the answers whose feedback the learner may now see that are not in the
    memory queue yet (deferred feedback, answers held back until a due date). The partial
    index `slot_pending_release` keeps this scan as small as what is pending."""
    return slots.filter(
        answered_at__isnull=False, scheduled_at__isnull=True, attempt__finished_at__isnull=False
    ).exclude(attempt__reveal_at__gt=now)


def release_visible_answers(slots, *, now=None):
    """Put the pending answers among `slots` into the review queue, oldest answer first.
    Returns how many were released. One query when nothing is pending."""
    now = now or timezone.now()
    released = 0
    pending = pending_release(slots, now).select_related("question", "attempt__user")
    # In question order: two releases at once for the same learner then take their memory
    # rows' locks in the same order and cannot deadlock. (Each question appears once per
    # attempt, and different questions' memories do not depend on each other's order.)
    for slot in pending.order_by("question_id", "answered_at", "pk"):
        released += _release(slot, slot.attempt.user, now)
    return released


def _release(slot, user, now):
    with transaction.atomic():
        # Claim the slot first, so two requests catching up at once schedule it once.
        if not AttemptSlot.objects.filter(pk=slot.pk, scheduled_at__isnull=True).update(scheduled_at=now):
            return 0
        for _ in range(RATING_TRIES):
            if _rate_released(slot, user, now) is not None:
                return 1
        # Never claimed without its rating: the slot goes back to pending for the next catch-up.
        transaction.set_rollback(True)
        return 0


def _rate_released(slot, user, now, *, memory=scheduling.UNREAD, savepoint=True):
    return scheduling.rate(
        savepoint=savepoint,
        user=user,
        kind=MemoryState.Kind.QUESTION,
        item=slot.question,
        rating=rating_for(slot.is_correct),
        source=ReviewLog.Source.QUIZ,
        now=now,
        memory=memory,
        chosen_choice_id=slot.chosen_choice_id,
        shown=question_shown(
            stem=slot.stem,
            explanation=slot.question.explanation,
            choices=[(choice["text"], choice["correct"]) for choice in slot.shown_choices],
            chosen=slot.chosen_index,
        ),
    )
