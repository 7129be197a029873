"""The home page: for a signed-in learner, their dashboard."""

from django.shortcuts import render
from django.utils import timezone

from .models import Deck, MemoryState, QuestionSet
from .views import REVIEW_KINDS


def home(request):
    context = {
        "question_sets": QuestionSet.objects.with_progress_for(request.user),
        "decks": Deck.objects.with_counts_for(request.user),
    }
    if request.user.is_authenticated:
        mine = MemoryState.objects.for_user(request.user)
        context["due_count"] = mine.due(timezone.now()).filter(kind__in=REVIEW_KINDS).count()
        context["mistake_count"] = mine.last_answered_wrong().count()
    return render(request, "quiz/home.html", context)
