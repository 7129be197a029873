"""Answering a quiz question: the attempt records it, and the question's memory state learns
from it, so every question answered anywhere feeds the spaced-repetition queue."""

from django.db import transaction
from django.utils import timezone

from . import scheduling
from .models import MemoryState, Review


def rating_for(is_correct):
    # Pass/fail maps to Good/Again, as the fsrs maintainers advise for binary grading.
    return Review.Rating.GOOD if is_correct else Review.Rating.AGAIN


def submit_answer(*, attempt, slot, number, now=None):
    """Record the learner's pick (its number as shown) and schedule the question; True if recorded.

    Both happen in one transaction, and a repeat submit (already answered) schedules nothing,
    so a question is never counted twice.
    """
    now = now or timezone.now()
    with transaction.atomic():
        recorded = attempt.record_answer(slot, number, now=now)
        # While an assignment holds its answers back (until the due date), the question stays
        # out of the review queue too: reviewing it would show the right answer early.
        if recorded and attempt.reveal_at is None:
            scheduling.rate(
                user=attempt.user,
                kind=MemoryState.Kind.QUESTION,
                item=slot.question,
                rating=rating_for(slot.is_correct),
                source=Review.Source.QUIZ,
                now=now,
                chosen_choice_id=slot.chosen_choice_id,
            )
    return recorded
