"""Learner pages: home, sign-up, taking a quiz one question at a time, results, history.

Each view reads like the request's story: decorators for method and login, a scoped
fetch that 404s on anything the user may not see, a form to validate, one model verb,
then a redirect (plain form post) or a partial of the same template (HTMX).
"""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, push_url

from . import grading
from .forms import AnswerForm, SignUpForm, StartAttemptForm
from .models import Attempt, AttemptSlot, QuestionSet

def _get_attempt_for_user(request, attempt_id):
    """The signed-in learner's own attempt, or 404: nobody else's attempts exist for them."""
    return get_object_or_404(
        Attempt.objects.for_user(request.user).select_related("question_set", "user"), pk=attempt_id
    )


def _get_slot(attempt, position):
    """One question of the attempt, or 404 for a position outside it."""
    slot = get_object_or_404(AttemptSlot.objects.filter(attempt=attempt).select_related("question"), position=position)
    slot.attempt = attempt  # already loaded; saves a query
    return slot


@require_http_methods(["GET", "POST"])
def signup(request):
    if request.user.is_authenticated:
        return redirect("home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}! Pick a question set to start.")
        return redirect("home")
    return render(request, "registration/signup.html", {"form": form})


@require_POST
@login_required
def start_attempt(request, set_id):
    question_set = get_object_or_404(QuestionSet, pk=set_id)
    form = StartAttemptForm(request.POST)
    if not form.is_valid():
        return HttpResponseBadRequest("Unknown feedback mode.")
    if not question_set.questions.exists():
        messages.error(request, f"“{question_set.title}” has no questions yet.")
        return redirect("home")
    attempt, _ = Attempt.objects.start_or_resume(
        user=request.user, question_set=question_set, feedback=form.cleaned_data["feedback"]
    )
    return redirect(attempt)


@login_required
def attempt(request, attempt_id):
    """Where an attempt stands: the next unanswered question, or the results."""
    attempt = _get_attempt_for_user(request, attempt_id)
    if _close_if_time_is_up(request, attempt):
        return _navigate(request, reverse("attempt_results", args=[attempt.pk]))
    slot = None if attempt.is_finished else attempt.next_unanswered_slot()
    if slot is None:
        if not attempt.is_finished:  # every slot answered but never closed
            attempt.finish()
            grading.schedule_visible_answers(user=request.user, attempt=attempt)
        return _navigate(request, reverse("attempt_results", args=[attempt.pk]))
    return redirect("attempt_question", attempt_id=attempt.pk, position=slot.position)


@require_http_methods(["GET", "POST"])
@login_required
def attempt_question(request, attempt_id, position):
    """One question: the form while unanswered, then its feedback and a Next link.

    A POST answers and redirects back here (post/redirect/get), so reloads and the back
    button never resubmit; HTMX follows the redirect and swaps in the feedback partial.
    """
    attempt = _get_attempt_for_user(request, attempt_id)
    results = reverse("attempt_results", args=[attempt.pk])
    if _close_if_time_is_up(request, attempt):
        return _navigate(request, results)  # an answer sent after the limit is not recorded
    slot = _get_slot(attempt, position)
    if attempt.is_finished and not attempt.answers_visible():
        return _navigate(request, results)  # the results page says when answers will be shown
    form = AnswerForm(slot, request.POST if request.method == "POST" else None)
    if request.method == "POST" and not slot.is_answered:
        if attempt.is_finished:
            return HttpResponseBadRequest("This attempt is finished; it takes no more answers.")
        if not form.is_valid():
            return _render_question(request, attempt, slot, form, status=400)
        grading.submit_answer(attempt=attempt, slot=slot, number=form.cleaned_data["choice"])
    deferred = not attempt.shows_feedback_per_question
    if slot.is_answered and deferred and (request.method == "POST" or not attempt.is_finished):
        return redirect(attempt)  # deferred feedback: straight on to the next question or the results
    if request.method == "POST":
        return redirect("attempt_question", attempt_id=attempt.pk, position=slot.position)
    if attempt.is_finished and not slot.is_answered:
        return _navigate(request, results)
    return _render_question(request, attempt, slot, form)


def _close_if_time_is_up(request, attempt):
    """A timed attempt past its deadline is finished on the spot (the server is the clock)."""
    if attempt.is_finished or not attempt.is_past_deadline():
        return False
    attempt.finish()
    grading.schedule_visible_answers(user=request.user, attempt=attempt)
    messages.info(request, "Time is up: your attempt was submitted with the answers you had given.")
    return True


def _render_question(request, attempt, slot, form, status=200):
    template = "quiz/attempt_question.html"
    if request.htmx:
        template += "#question-card"
    context = {"attempt": attempt, "slot": slot, "form": form}
    response = render(request, template, context, status=status)
    if request.htmx and status == 200:
        push_url(response, reverse("attempt_question", args=[attempt.pk, slot.position]))
    return response


def _navigate(request, url):
    """Go to a full page: HTMX must leave the fragment it is swapping and load the page."""
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return redirect(url)
