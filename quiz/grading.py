"""Answering a quiz question: the attempt records it, and once the learner may see whether it
was right, the question's memory state learns from it. So every question answered anywhere
feeds the spaced-repetition queue, and the queue never shows an answer before the quiz does."""

from django.db import transaction
from django.utils import timezone

from . import scheduling
from .models import AttemptSlot, MemoryState, ReviewLog


def rating_for(is_correct):
    # Pass/fail maps to Good/Again, as the fsrs maintainers advise for binary grading.
    return ReviewLog.Rating.GOOD if is_correct else ReviewLog.Rating.AGAIN


def submit_answer(*, attempt, slot, number, now=None):
    """Record the learner's pick (its number as shown); True if this call recorded it.

    A repeat submit (already answered) changes nothing. The answer is scheduled at once when
    feedback is immediate, otherwise when the attempt's answers become visible.
    """
    now = now or timezone.now()
    with transaction.atomic():
        recorded = attempt.record_answer(slot, number, now=now)
        if recorded and attempt.shows_feedback_per_question and attempt.answers_visible(now):
            _schedule(slot, attempt.user, now)
        elif recorded and attempt.is_finished:
            schedule_visible_answers(user=attempt.user, now=now, attempt=attempt)
    return recorded


def schedule_visible_answers(*, user, now=None, attempt=None):
    """Put into the review queue the learner's answers whose feedback they may now see and
    that are not scheduled yet (deferred feedback, answers released after a due date).

    Pages that read the queue call this first; when nothing is pending it is one query.
    """
    now = now or timezone.now()
    pending = AttemptSlot.objects.filter(
        attempt__user=user, answered_at__isnull=False, scheduled_at__isnull=True, attempt__finished_at__isnull=False
    ).exclude(attempt__reveal_at__gt=now)
    if attempt is not None:
        pending = pending.filter(attempt=attempt)
    for slot in pending.select_related("question").order_by("answered_at", "pk"):
        _schedule(slot, user, now)


def _schedule(slot, user, now):
    with transaction.atomic():
        # Claim the slot first, so two requests catching up at once schedule it once.
        if not AttemptSlot.objects.filter(pk=slot.pk, scheduled_at__isnull=True).update(scheduled_at=now):
            return
        scheduling.rate(
            user=user,
            kind=MemoryState.Kind.QUESTION,
            item=slot.question,
            rating=rating_for(slot.is_correct),
            source=ReviewLog.Source.QUIZ,
            now=now,
            chosen_choice_id=slot.chosen_choice_id,
        )
