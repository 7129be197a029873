"""The learner's history: "My attempts" and the review of one attempt."""

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import redirect, render

from .models import Attempt
from .views import _get_attempt_for_user


@login_required
def attempt_results(request, attempt_id):
    attempt = _get_attempt_for_user(request, attempt_id)
    if not attempt.is_finished:
        return redirect(attempt)
    slots = attempt.slots.select_related("question")
    return render(request, "quiz/attempt_results.html", {"attempt": attempt, "slots": slots})


@login_required
def attempt_list(request):
    attempts = Attempt.objects.for_user(request.user).select_related("question_set")
    page = Paginator(attempts, settings.QUIZ_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "quiz/attempt_list.html", {"page": page})
