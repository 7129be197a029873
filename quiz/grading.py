"""Answering a quiz question: the attempt records it, and the question's memory state learns
from it, so every question answered anywhere feeds the spaced-repetition queue."""

from django.db import transaction
from django.utils import timezone

from . import scheduling
from .models import MemoryState, Review


def rating_for(is_correct):
    # Pass/fail maps to Good/Again, as the fsrs maintainers advise for binary grading.
    return Review.Rating.GOOD if is_correct else Review.Rating.AGAIN


def submit_answer(*, attempt, slot, choice, now=None):
    """Record the learner's choice on the slot and schedule the question; True if recorded.

    Both happen in one transaction, and a repeat submit (already answered) schedules nothing,
    so a question is never counted twice.
    """
    now = now or timezone.now()
    with transaction.atomic():
        recorded = attempt.record_answer(slot, choice, now=now)
        if recorded:
            scheduling.rate(
                user=attempt.user,
                kind=MemoryState.Kind.QUESTION,
                item=slot.question,
                rating=rating_for(choice.is_correct),
                source=Review.Source.QUIZ,
                now=now,
                chosen_choice=choice,
            )
    return recorded
