"""Answering a quiz question, and what follows from it: the attempt records the answer, and
once the learner may see whether it was right, the question's memory state learns from it.
So every question answered anywhere feeds the spaced-repetition queue, and the queue never
shows an answer before the quiz does."""

from django.db import transaction
from django.utils import timezone

from quiz.models import AttemptSlot, Markup, MemoryState, ReviewLog, StudyDay
from quiz.models.kinds import QuestionKind, typed_credit
from quiz.models.slots import accepted_review, markup_of, matching_review

from . import bulk, scheduling


def rating_for(is_correct):
    # Pass/fail maps to Good/Again, as the fsrs maintainers advise for binary grading: an answer
    # with full credit is Good, anything less (partial credit too) is Again.
    return ReviewLog.Rating.GOOD if is_correct else ReviewLog.Rating.AGAIN


def question_shown(*, stem, explanation, choices, chosen, kind=QuestionKind.SINGLE, accepted=None, markup=Markup.PLAIN):
    """What a log row keeps of a question as the learner saw it: `choices` are (text, correct)
    in the order shown, `chosen` the 1-based number picked (a list of them for the kinds with
    several picks; the text typed for a typed answer). Its review shows this, whatever edits the
    question gets later. A typed answer also keeps `accepted`: `accepted_review` of its snapshot.
    `markup`, how the texts are written, is kept unless plain (rows from before it read as plain)."""
    shown = {
        "stem": stem,
        "explanation": explanation,
        "kind": kind,
        "choices": [{"text": text, "correct": correct} for text, correct in choices],
        "chosen": chosen,
    }
    if accepted is not None:
        shown["accepted"] = accepted
    if markup != Markup.PLAIN:
        shown["markup"] = markup
    return shown


def shown_of_slot(slot, explanation):
    """`question_shown` of an answered slot (a model instance or its values as a dict)."""
    get = slot.get if isinstance(slot, dict) else lambda name: getattr(slot, name)
    choices = get("shown_choices")
    typed = get("typed_answer")
    accepted = None
    if typed is not None:  # graded again from the snapshot: which accepted answer it matched
        _, number = typed_credit(get("kind"), choices, typed, case_sensitive=get("case_sensitive"))
        accepted = accepted_review(choices, matched_id=choices[number - 1]["id"] if number else None)
    chosen = typed if typed is not None else (get("chosen_numbers") if get("chosen_numbers") is not None else get("chosen_index"))
    shown = question_shown(
        stem=get("stem"), explanation=explanation, kind=get("kind"), accepted=accepted, chosen=chosen,
        choices=[(choice["text"], choice["correct"]) for choice in choices], markup=markup_of(choices),
    )
    if get("kind") == QuestionKind.MATCHING:
        shown["pairs"] = matching_review(choices, get("shown_options"), chosen or [])
    return shown


def submit_answer(*, attempt, slot, number, now=None):
    """Record the learner's pick (its number as shown, or a list of numbers for the kinds with
    several picks); True if this call recorded it.

    A repeat submit (already answered) changes nothing. The answer enters the memory queue at
    once when feedback is immediate (rated in the same transaction as it is recorded, so an
    answer is never recorded without its rating nor rated twice), otherwise when the attempt's
    answers become visible.
    """
    now = now or timezone.now()
    at_once = attempt.shows_feedback_per_question and (attempt.reveal_at is None or now >= attempt.reveal_at)
    with transaction.atomic():
        recorded = attempt.record_answer(slot, number, now=now, queued=at_once)
        if recorded and at_once:
            _rate_answer(attempt, slot, number, now)
    return recorded


def pending_release(slots, now):
    """Of `slots`, the answers whose feedback the learner may now see that are not in the
    memory queue yet (deferred feedback, answers held back until a due date). The partial
    index `slot_pending_release` keeps this scan as small as what is pending."""
    return slots.filter(
        answered_at__isnull=False, scheduled_at__isnull=True, attempt__finished_at__isnull=False
    ).exclude(attempt__reveal_at__gt=now)


# Answers released per transaction by a catch-up: a learner's few finished attempts take one
# batch, the timer's catch-up for everyone several, each a fixed number of queries.
RELEASE_BATCH = 500


def release_visible_answers(slots, *, now=None):
    """Put the pending answers among `slots` into the review queue, in the order they were
    given. Returns how many were released. One query when nothing is pending (and no write:
    on SQLite a transaction takes the database's lock), otherwise a fixed number per batch."""
    now = now or timezone.now()
    if not pending_release(slots, now).exists():
        return 0
    released = 0
    while batch := _release_in_transaction(slots, now):
        released += batch
        if batch < RELEASE_BATCH:
            break
    return released


def _release_in_transaction(slots, now):
    with transaction.atomic():
        return _release(slots, now, limit=RELEASE_BATCH)


def _release(slots, now, *, limit=None):
    """Claim the pending answers among `slots` (the first `limit` in answer order) and rate
    them all at the time they were given, inside the caller's transaction, in a fixed number
    of queries: a locked read of the slots still pending (a concurrent release waits for the
    lock, then finds them claimed and skips them), their UPDATE, then `rate_in_bulk` (which
    replays the items answered again since), and one DELETE of the dashboard's counted days
    if an answer belongs to a day already counted. Returns how many."""
    pending = (
        pending_release(slots, now).select_for_update(of=("self",))
        .order_by("answered_at", "pk")  # answer order, and the same lock order for every release
        .values(*RELEASED_FIELDS)
    )
    claimed = list(pending[:limit] if limit else pending)
    if not claimed:
        return 0
    AttemptSlot.objects.filter(pk__in=[slot["pk"] for slot in claimed]).update(scheduled_at=now)
    ratings = [(slot["attempt__user_id"], slot["question_id"], _rating_of(slot, now)) for slot in claimed]
    bulk.rate_in_bulk(kind=MemoryState.Kind.QUESTION, ratings=ratings, now=now, schedulers=_schedulers_of(claimed))
    StudyDay.objects.forget_days_before_today(_answer_days(claimed), now)
    return len(claimed)


def _schedulers_of(claimed):
    """{user_id: their scheduler} of the learners whose answers were claimed, from the claim's join."""
    return {
        slot["attempt__user_id"]: scheduling.scheduler_with(
            tuple(slot["attempt__user__fsrs_parameters"] or scheduling.DEFAULT_PARAMETERS),
            slot["attempt__user__desired_retention"],
        )
        for slot in claimed
    }


def _answer_days(claimed):
    """{user_id: (time zone, first moment answered)} of the claimed answers."""
    days = {}
    for slot in claimed:
        user_id, moment = slot["attempt__user_id"], slot["answered_at"]
        if user_id not in days or moment < days[user_id][1]:
            days[user_id] = (slot["attempt__user__time_zone"], moment)
    return days


# What a released answer's rating and log row need, read with the claim.
RELEASED_FIELDS = (
    "pk", "attempt__user_id", "attempt__user__time_zone", "attempt__user__desired_retention",
    "attempt__user__fsrs_parameters", "answered_at", "question_id", "question__explanation",
    "is_correct", "chosen_choice_id", "chosen_index", "chosen_numbers", "typed_answer", "kind", "case_sensitive", "stem",
    "shown_choices", "shown_options",
)


def _rating_of(slot, now):
    return {
        "rating": rating_for(slot["is_correct"]),
        "reviewed_at": slot["answered_at"],  # when the learner answered; the release is `released_at`
        "released_at": now,
        "source": ReviewLog.Source.QUIZ,
        "chosen_choice_id": slot["chosen_choice_id"],
        "shown": shown_of_slot(slot, slot["question__explanation"]),
    }


def _rate_answer(attempt, slot, number, now):
    """Rate the learner's memory of the slot's question with the answer just recorded (on `slot`)."""
    scheduling.rate(
        user=attempt.user,
        kind=MemoryState.Kind.QUESTION,
        item=slot.question,
        rating=rating_for(slot.is_correct),
        source=ReviewLog.Source.QUIZ,
        now=now,
        chosen_choice_id=slot.chosen_choice_id,  # as on the slot: NULL if deleted since, or several picks
        shown=shown_of_slot(slot, slot.question.explanation),
    )
