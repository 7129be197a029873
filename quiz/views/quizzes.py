"""Taking a quiz: starting an attempt on a question set, one question at a time with its
feedback, and the results with the review of every answer."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Exists, OuterRef
from django.http import HttpResponseBadRequest, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from quiz.forms import AnswerForm, StartAttemptForm
from quiz.lib.http import navigate, render_page
from quiz.models import Attempt, MockExam, Question, QuestionSet, ReviewLog
from quiz.study.answers import submit_answer
from quiz.study.catch_up import finish_and_release

from .access import own_attempt_or_404, own_slot_or_404

HELD_BACK = (
    "An assignment of your class holds these questions back until its due date: practise them after it."
)


@require_POST
@login_required
def start_attempt(request, set_id):
    question_set = get_object_or_404(QuestionSet.objects.visible_to(request.user), pk=set_id)
    form = StartAttemptForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest("Unknown feedback mode.")
    if not question_set.questions.current().exists():
        messages.error(request, f"“{question_set.title}” has no questions yet.")
        return redirect("home")
    if Question.objects.held_back_from(request.user, timezone.now()).filter(question_set=question_set).exists():
        messages.info(request, HELD_BACK)
        return redirect("home")
    attempt, _ = Attempt.objects.start_or_resume(
        user=request.user, question_set=question_set, feedback=form.cleaned_data["feedback"]
    )
    return redirect(attempt)


@require_safe
@login_required
def attempt(request, attempt_id):
    """Where an attempt stands: the next unanswered question, or the results."""
    attempt = own_attempt_or_404(request, attempt_id)
    results = reverse("attempt_results", args=[attempt.pk])
    if _close_if_time_is_up(request, attempt):
        return navigate(request, results)
    slot = None if attempt.is_finished else attempt.next_unanswered_slot()
    if slot is None:
        if not attempt.is_finished:  # every slot answered but never closed (two last answers at once)
            finish_and_release(attempt, finished_at=attempt.last_answered_at)
        return navigate(request, results)
    return redirect("attempt_question", attempt_id=attempt.pk, position=slot.position)


@require_http_methods(["GET", "POST"])
@login_required
def attempt_question(request, attempt_id, position):
    """One question: the form while unanswered, then its feedback and a Next link.

    A POST answers and redirects back here (post/redirect/get), so reloads and the back
    button never resubmit; HTMX follows the redirect and swaps in the feedback partial.
    """
    slot = own_slot_or_404(request, attempt_id, position, answering=request.method == "POST")
    attempt = slot.attempt
    results = reverse("attempt_results", args=[attempt.pk])
    if _close_if_time_is_up(request, attempt):
        return navigate(request, results)  # an answer sent after the limit is not recorded
    if attempt.is_finished and not attempt.answers_visible():
        return navigate(request, results)  # the results page says when answers will be shown
    form = AnswerForm(slot, request.POST if request.method == "POST" else None)
    if request.method == "POST" and not slot.is_answered:
        if attempt.is_finished:
            return HttpResponseBadRequest("This attempt is finished; it takes no more answers.")
        if not form.is_valid():
            return _render_question(request, attempt, slot, form, status=400)
        if slot.held_back and attempt.assignment_id is None:
            messages.info(request, HELD_BACK)
            return HttpResponseForbidden(HELD_BACK)
        submit_answer(attempt=attempt, slot=slot, number=form.cleaned_data["choice"], memory=slot.memory)
    deferred = not attempt.shows_feedback_per_question
    if slot.is_answered and deferred and (request.method == "POST" or not attempt.is_finished):
        return redirect(attempt)  # deferred feedback: straight on to the next question or the results
    if request.method == "POST":
        return redirect("attempt_question", attempt_id=attempt.pk, position=slot.position)
    if attempt.is_finished and not slot.is_answered:
        return navigate(request, results)
    return _render_question(request, attempt, slot, form)


def _close_if_time_is_up(request, attempt):
    """A timed attempt past its deadline is finished on the spot (the server is the clock)."""
    if attempt.is_finished or not attempt.is_past_deadline():
        return False
    finish_and_release(attempt)
    messages.info(request, "Time is up: your attempt was submitted with the answers you had given.")
    return True


def _render_question(request, attempt, slot, form, status=200):
    here = reverse("attempt_question", args=[attempt.pk, slot.position])
    context = {"attempt": attempt, "slot": slot, "form": form, "here": here}
    return render_page(request, "quiz/attempt_question.html", "question-card", context, status=status, push_url=here)


@require_safe
@login_required
def attempt_results(request, attempt_id):
    attempt = own_attempt_or_404(request, attempt_id, scored=True)
    if not attempt.is_finished:
        return redirect(attempt)
    visible = attempt.answers_visible(timezone.now())
    slots = attempt.slots.select_related("question").with_exclusion_flag()
    if visible:
        slots = slots.annotate(later_right=Exists(_later_right_answers(request.user)))
    context = {"attempt": attempt, "slots": slots, "visible": visible}
    if visible and attempt.purpose == MockExam.PURPOSE:
        context.update(_mock_exam_comparison(attempt, slots))
    return render(request, "quiz/attempt_results.html", context)


def _mock_exam_comparison(attempt, slots):
    """A mock exam's results add its prediction beside the score (one query more, for it alone)."""
    mock = MockExam.objects.filter(attempt=attempt).first()
    if mock is None:
        return {}
    mock.attempt = attempt
    slots = list(slots)
    return {"slots": slots, "mock_exam": mock, "mock_comparison": mock.compare(slots)}


def _later_right_answers(user):
    """Right answers to the slot's question after the slot was answered, anywhere (a later
    attempt, a review session). Answers in attempts that hide them write no log row, so none
    of these tells what is still hidden."""
    return ReviewLog.objects.filter(
        user=user,
        # The memory's user too: then its (user, question) index finds the one memory row,
        # instead of every learner's memory of the question (13 ms at a million answers).
        memory__user=user,
        memory__question=OuterRef("question"),
        reviewed_at__gt=OuterRef("answered_at"),
        rating__gt=ReviewLog.Rating.AGAIN,
    )
