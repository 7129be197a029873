"""Taking a quiz: starting an attempt on a question set, one question at a time with its
feedback, and the results with the review of every answer."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Exists, OuterRef
from django.http import HttpResponseBadRequest, HttpResponseForbidden, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from quiz.forms import AnswerForm, FlagForm, StartAttemptForm
from quiz.lib.http import navigate, render_page
from quiz.models import Assignment, Attempt, AttemptSlot, MockExam, QuestionSet, ReviewLog, score_by_topic
from quiz.study.answers import submit_answer
from quiz.study.catch_up import finish_and_release

from .access import own_attempt_or_404, own_attempt_with_next_or_404, own_slot_or_404

HELD_BACK = (
    "An assignment of your class holds this question back until you may see its answers: practise it after that."
)


def held_back_message(assignment, *, left_out=None):
    """Why questions are missing from a practice quiz, and until when: the assignment that
    holds them back longest (`Question.objects.holding_assignment`). `left_out`: how many the
    quiz left out, when it started without them; None when nothing could start."""
    if assignment is None:  # its hold ended a moment ago
        return "Some questions were held back by an assignment a moment ago: start again to practise them."
    until = date_format(timezone.localtime(assignment.held_until), "DATETIME_FORMAT")
    if assignment.feedback_timing == assignment.FeedbackTiming.AFTER_DUE:
        when = f"after its due date ({until})"
    else:
        when = f"once you finish an attempt at it, or after its due date ({until})"
    reason = f"“{assignment.title}”, an assignment of your class, shows its answers only {when}"
    if left_out is None:
        return f"{reason}: its questions return to your practice then."
    return f"{left_out} question{'s' if left_out != 1 else ''} left out of this quiz: {reason}."


@require_POST
@login_required
def start_attempt(request, set_id):
    question_set = get_object_or_404(QuestionSet.objects.visible_to(request.user), pk=set_id)
    form = StartAttemptForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest("Unknown feedback mode.")
    current, now = question_set.questions.current(), timezone.now()
    counts = current.count_held_back_from(request.user, now)
    if not counts["total"]:
        messages.error(request, f"“{question_set.title}” has no questions yet.")
        return redirect("home")
    if counts["held"] == counts["total"]:  # every question held back: say why and until when
        messages.info(request, held_back_message(current.holding_assignment(request.user, now)))
        return redirect("home")
    attempt, started = Attempt.objects.start_or_resume(
        user=request.user, question_set=question_set, questions=current.practisable_by(request.user, now),
        feedback=form.cleaned_data["feedback"],
    )
    if started and counts["held"]:
        left_out = held_back_message(current.holding_assignment(request.user, now), left_out=counts["held"])
        messages.info(request, left_out)
    return redirect(attempt)


@require_safe
@login_required
def attempt(request, attempt_id):
    """Where an attempt stands: the next unanswered question, or the results."""
    attempt = own_attempt_with_next_or_404(request, attempt_id)
    results = reverse("attempt_results", args=[attempt.pk])
    if _close_if_time_is_up(request, attempt):
        return navigate(request, results)
    position = None if attempt.is_finished else attempt.next_open_position
    if position is None:
        if not attempt.is_finished and not attempt.shows_feedback_per_question:
            # Deferred feedback: every question answered, still open until "Submit all and finish".
            return navigate(request, reverse("attempt_summary", args=[attempt.pk]))
        if not attempt.is_finished:  # every slot answered but never closed (two last answers at once)
            finish_and_release(attempt, finished_at=attempt.last_answered_at)
        return navigate(request, results)
    return redirect("attempt_question", attempt_id=attempt.pk, position=position)


@require_http_methods(["GET", "POST"])
@login_required
def attempt_question(request, attempt_id, position):
    """One question: the form while unanswered, then its feedback and a Next link.

    A POST answers and redirects back here (post/redirect/get), so reloads and the back
    button never resubmit. HTMX, which swaps the card in place and changes no address, gets
    the page the redirect leads to in the POST's own response: the feedback one request sooner.

    With deferred feedback the form stays, showing the saved answer, until the attempt is
    submitted: a POST saves (or changes) the answer and goes on to the next question, saying
    the answer was saved; after the last one, to the summary. Nothing about correctness.
    """
    slot = own_slot_or_404(request, attempt_id, position)
    if request.method == "POST":
        if (elsewhere := _answer(request, slot)) is not None:
            return elsewhere
        if not request.htmx:
            return HttpResponseRedirect(request.path)  # post/redirect/get to this same question
        slot = own_slot_or_404(request, attempt_id, position)  # read afresh, as the redirect's GET reads it
    return _show_question(request, slot)


def _answer(request, slot):
    """Record the POSTed answer to `slot`. A response when the request ends elsewhere (the
    results, the next question, a refusal); None when the question's own page follows."""
    attempt = slot.attempt
    if (results := _results_instead(request, attempt)) is not None:
        return results  # an answer sent after the time limit is not recorded
    changeable = not attempt.shows_feedback_per_question and not attempt.is_finished
    if changeable or not slot.is_answered:
        if attempt.is_finished:
            return HttpResponseBadRequest("This attempt is finished; it takes no more answers.")
        form = AnswerForm(slot, request.POST)
        if not form.is_valid():
            # What was sent is no shown number: the saved answer, if any, stays ticked, as it stays saved.
            return _render_question(request, attempt, slot, errors=form.errors["choice"], status=400)
        if attempt.assignment_id is None and _held_back(request.user, slot):
            messages.info(request, HELD_BACK)
            return HttpResponseForbidden(HELD_BACK)
        recorded = submit_answer(attempt=attempt, slot=slot, number=form.cleaned_data["choice"])
        if changeable and recorded:
            return _after_saving(request, attempt, slot)
    if changeable:  # refused: submitted or timed out meanwhile
        return navigate(request, reverse("attempt_results", args=[attempt.pk]))
    return None


def _held_back(user, slot):
    """A practice attempt begun before an assignment took its question in: answering it with
    feedback would give the assignment's answer away (`Question.objects.held_back_from`)."""
    return Assignment.objects.holding_back(learner=user, question=slot.question_id, now=timezone.now()).exists()


def _show_question(request, slot):
    attempt = slot.attempt
    if (results := _results_instead(request, attempt, shown=slot)) is not None:
        return results
    return _render_question(request, attempt, slot)


def _results_instead(request, attempt, *, shown=None):
    """The results page, where a request for one of the attempt's questions goes instead: once
    its time is up (it is closed on the spot), or while it is finished and its answers are
    hidden (the results page says until when); for the page of a question (`shown`), also when
    the attempt finished with it unanswered. None when the question is the place to be."""
    unanswered = shown is not None and not shown.is_answered
    if _close_if_time_is_up(request, attempt) or (attempt.is_finished and (not attempt.answers_visible() or unanswered)):
        return navigate(request, reverse("attempt_results", args=[attempt.pk]))
    return None


def _close_if_time_is_up(request, attempt):
    """A timed attempt past its deadline is finished on the spot (the server is the clock)."""
    if attempt.is_finished or not attempt.is_past_deadline():
        return False
    finish_and_release(attempt)
    messages.info(request, "Time is up: your attempt was submitted with the answers you had given.")
    return True


def _after_saving(request, attempt, slot):
    """Deferred feedback: on to the next question, which says this answer was saved (in its
    address, so a reload still says it and no session write is needed); after the last one,
    to the summary of what is answered and flagged, where the learner submits."""
    if slot.position < attempt.question_count:
        following = reverse("attempt_question", args=[attempt.pk, slot.position + 1])
        return redirect(f"{following}?saved={slot.position}")
    summary = reverse("attempt_summary", args=[attempt.pk])
    return navigate(request, f"{summary}?saved={slot.position}")


def _saved_position(request, attempt):
    """The question whose answer was just saved (the `saved` parameter), if it is one of the attempt's."""
    value = request.GET.get("saved", "")
    # ASCII digits only: "²".isdigit() is true, and int() refuses it.
    return int(value) if value.isascii() and value.isdigit() and 1 <= int(value) <= attempt.question_count else None


def _render_question(request, attempt, slot, errors=(), status=200):
    here = request.path  # this question's address: only attempt_question renders it
    context = {
        "attempt": attempt, "slot": slot, "errors": errors, "here": here,
        # Deferred feedback: the answer may change until the attempt is submitted.
        "changeable": not attempt.shows_feedback_per_question and not attempt.is_finished,
        # An attempt with feedback per question whose assignment came to show answers only after
        # its due date (the rule changed while it was open): its answers are recorded, not shown.
        "feedback_shown": attempt.answers_visible(),
        "saved": _saved_position(request, attempt),
    }
    return render_page(request, "quiz/attempt_question.html", "question-card", context, status=status, push_url=here)


@require_POST
@login_required
def flag_question(request, attempt_id, position):
    """Flag a question for review (or unflag it) while the attempt is open: one UPDATE. HTMX
    swaps in the button's new state; without JavaScript, back to the question."""
    form = FlagForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest("Say whether to flag the question.")
    flagged = form.cleaned_data["flagged"]
    if not AttemptSlot.objects.set_flag(user=request.user, attempt_id=attempt_id, position=position, flagged=flagged):
        slot = own_slot_or_404(request, attempt_id, position)  # only when refused: 404 if not theirs
        messages.info(request, "This attempt is finished: its flags can no longer change.")
        return navigate(request, reverse("attempt_results", args=[slot.attempt_id]))
    if request.htmx:
        context = {"attempt_id": attempt_id, "position": position, "flagged": flagged}
        return render_page(request, "quiz/attempt_question.html", "flag-form", context)
    return redirect("attempt_question", attempt_id=attempt_id, position=position)


@require_safe
@login_required
def attempt_summary(request, attempt_id):
    """Before submitting: every question, answered or not and flagged or not, each linking to
    itself, and the way to "Submit all and finish". Never whether an answer is right."""
    attempt = own_attempt_or_404(request, attempt_id)
    results = reverse("attempt_results", args=[attempt.pk])
    if attempt.is_finished or _close_if_time_is_up(request, attempt):
        return navigate(request, results)
    # The choices too: their snapshot says how the stem is written (AttemptSlot.markup).
    slots = list(attempt.slots.only("attempt_id", "position", "stem", "shown_choices", "answered_at", "flagged").order_by("position"))
    context = {"attempt": attempt, "slots": slots, "counts": _counts(slots), "saved": _saved_position(request, attempt)}
    return render(request, "quiz/attempt_summary.html", context)


@require_http_methods(["GET", "POST"])
@login_required
def attempt_submit(request, attempt_id):
    """"Submit all and finish": GET asks first (a page without JavaScript, inline in the summary
    with HTMX), saying how many questions are unanswered; POST finishes the attempt, the
    unanswered questions counting as not right. Submitting a finished attempt changes nothing."""
    attempt = own_attempt_or_404(request, attempt_id)
    results = reverse("attempt_results", args=[attempt.pk])
    if attempt.is_finished or _close_if_time_is_up(request, attempt):
        return navigate(request, results)
    if request.method == "POST":
        finish_and_release(attempt)
        return navigate(request, results)
    slots = list(attempt.slots.only("attempt_id", "position", "answered_at", "flagged"))
    context = {"attempt": attempt, "counts": _counts(slots)}
    return render_page(request, "quiz/attempt_submit.html", "confirm-submit", context)


def _counts(slots):
    answered = sum(slot.is_answered for slot in slots)
    return {
        "answered": answered,
        "unanswered": len(slots) - answered,
        "flagged": sum(slot.flagged for slot in slots),
    }


@require_safe
@login_required
def attempt_results(request, attempt_id):
    attempt = own_attempt_or_404(request, attempt_id, scored=True)
    if not attempt.is_finished:
        return redirect(attempt)
    visible = attempt.answers_visible(timezone.now())
    slots = attempt.slots.select_related("question").with_exclusion_flag()
    topics = []
    if visible:
        # One more query, for the score by topic: the slots' questions' topics, all at once.
        slots = list(slots.annotate(later_right=Exists(_later_right_answers(request.user))).prefetch_related("question__topics"))
        topics = score_by_topic(slots)
    context = {"attempt": attempt, "slots": slots, "visible": visible, "topics": topics}
    if visible and attempt.purpose == MockExam.PURPOSE:
        context.update(_mock_exam_comparison(attempt, slots))
    return render(request, "quiz/attempt_results.html", context)


def _mock_exam_comparison(attempt, slots):
    """A mock exam's results add its prediction beside the score (one query more, for it alone)."""
    mock = MockExam.objects.filter(attempt=attempt).first()
    if mock is None:
        return {}
    mock.attempt = attempt
    return {"mock_exam": mock, "mock_comparison": mock.compare(slots)}


def _later_right_answers(user):
    """Right answers to the slot's question after the slot was answered, anywhere (a later
    attempt, a review session). Answers in attempts that hide them write no log row, so none
    of these tells what is still hidden."""
    return ReviewLog.objects.filter(
        user=user,
        # The memory's user too: then its (question, user) index finds the one memory row,
        # instead of every learner's memory of the question.
        memory__user=user,
        memory__question=OuterRef("question"),
        reviewed_at__gt=OuterRef("answered_at"),
        rating__gt=ReviewLog.Rating.AGAIN,
    )
