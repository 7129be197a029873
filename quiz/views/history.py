"""The learner's history: "My attempts" (filtered), flashcard history and "Download my
history" as CSV. Only the signed-in learner's own rows, ever."""

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_safe

from quiz.forms import AttemptFilterForm
from quiz.lib.csv_export import csv_download
from quiz.models import Attempt, MemoryState
from quiz.progress.history import history_rows
from quiz.study.catch_up import catch_up_learner


@require_safe
@login_required
def attempt_list(request):
    catch_up_learner(request.user)  # an attempt whose time ran out shows as finished, with its score
    attempts = Attempt.objects.for_user(request.user).select_related("question_set").with_exclusions()
    filters = {key: value for key, value in request.GET.items() if key != "page"}
    form = AttemptFilterForm(filters or None, user=request.user)
    status = 200
    if filters:
        if form.is_valid():
            attempts = form.filter(attempts, request.user.zone)
        else:
            attempts, status = attempts.none(), 400
    page = Paginator(attempts, settings.QUIZ_PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {"page": page, "form": form, "now": timezone.now(), "query": query.urlencode()}
    return render(request, "quiz/attempt_list.html", context, status=status)


@require_safe
@login_required
def card_history(request):
    """Every flashcard the learner has studied, with its review count, lapses and next due
    date; each links to the card's own page (its reviews with rating, interval and recall then)."""
    memories = (
        MemoryState.objects.filter(user=request.user, kind=MemoryState.Kind.CARD)
        .select_related("card__deck")
        .order_by("-last_review", "pk")
    )
    page = Paginator(memories, settings.QUIZ_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "quiz/history_cards.html", {"page": page})


@require_safe
@login_required
def download_history(request):
    """The learner's answers then reviews, streamed in chunks (see `history_rows`)."""
    now = timezone.now()
    catch_up_learner(request.user, now=now)
    return csv_download("my-study-history.csv", history_rows(request.user, now))
