"""The home page (a signed-in learner's dashboard, a visitor's public list), the library of
everything a learner may study (searchable), and the dashboard's actions: saving the exam
date, starting a quiz on one topic.

Views only: the dashboard's numbers and charts come from `quiz.progress.dashboard`.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.http import urlencode
from django.views.decorators.http import require_POST, require_safe

from quiz.forms import ExamForm, LibrarySearchForm
from quiz.lib.http import render_page
from quiz.lib.pages import PeekPage
from quiz.models import Attempt, Deck, Question, QuestionSet, Topic
from quiz.progress.dashboard import dashboard_context
from quiz.progress.dashboard_cache import dashboard_data
from quiz.study.catch_up import catch_up_learner


@require_safe
def home(request):
    # Everything shared with everyone is listed too: a page at a time, never the whole bank.
    if not request.user.is_authenticated:
        sets = PeekPage(QuestionSet.objects.visible_to(request.user).with_progress_for(request.user), request.GET.get("sets"))
        decks = PeekPage(Deck.objects.visible_to(request.user).with_counts_for(request.user), request.GET.get("decks"))
        return render(request, "quiz/home.html", {"question_sets": sets, "decks": decks, "sets_page": sets, "decks_page": decks})
    user, now = request.user, timezone.now()
    catch_up_learner(user, now=now)  # answers released since the last visit

    def build():
        held = Question.objects.held_back_ids(user, now)  # read once for the lists and every figure
        sets = PeekPage(QuestionSet.objects.visible_to(user).with_progress_for(user, held=held), request.GET.get("sets"))
        decks = PeekPage(Deck.objects.visible_to(user).with_counts_for(user, now=now), request.GET.get("decks"))
        return {**dashboard_context(user, sets, decks, now, held), "sets_page": sets, "decks_page": decks}

    context = {**dashboard_data(request, user, now, build), "exam_form": ExamForm(instance=user)}
    return render(request, "quiz/dashboard.html", context)


@require_safe
@login_required
def browse(request):
    """The library: every set and deck the learner may see, a page of each, searched by title
    or topic. An HTMX search gets only the results, so typing never re-renders the page."""
    form = LibrarySearchForm(request.GET)
    searched = form.cleaned_data["q"] if form.is_valid() else ""
    user = request.user
    sets = QuestionSet.objects.visible_to(user).matching(searched).with_progress_for(user)
    decks = Deck.objects.visible_to(user).matching(searched).with_counts_for(user)
    sets, decks = PeekPage(sets, request.GET.get("sets")), PeekPage(decks, request.GET.get("decks"))
    context = {
        "question_sets": sets, "decks": decks, "sets_page": sets, "decks_page": decks, "searched": searched,
        # Page links keep the search; each list pages on its own.
        "query": f"{urlencode({'q': searched})}&" if searched else "",
        "search_error": " ".join(form.errors.get("q", [])).replace("this value", "the search"),
    }
    return render_page(request, "quiz/browse.html", "library-results", context, push_url=request.get_full_path())


@require_POST
@login_required
def exam_settings(request):
    form = ExamForm(request.POST, instance=request.user)
    if form.is_valid():
        form.save()
        messages.success(request, "Exam date saved." if form.cleaned_data["exam_date"] else "Exam date cleared.")
        return redirect("home")
    errors = "; ".join(f"{form.fields[name].label}: {' '.join(errs)}" for name, errs in form.errors.items())
    messages.error(request, f"Not saved. {errors}")
    return redirect("home")


@require_POST
@login_required
def topic_quiz(request, topic_id):
    """A quiz over every question of one topic: the focused session behind a weak topic."""
    topic = get_object_or_404(Topic.objects.visible_to(request.user), pk=topic_id)
    sets = QuestionSet.objects.visible_to(request.user)
    questions = (
        Question.objects.current()
        .practisable_by(request.user, timezone.now())
        .filter(topics=topic, question_set__in=sets)
        .order_by("question_set", "position")
    )
    if not questions.exists():
        deck = Deck.objects.visible_to(request.user).filter(cards__topics=topic).order_by("pk").first()
        if deck:
            return redirect("study_deck", deck_id=deck.pk)
        messages.info(request, f"“{topic.name}”: nothing to practise now (an assignment holds its questions back until its due date).")
        return redirect("home")
    attempt = Attempt.objects.start_custom(
        user=request.user, purpose=f"topic-{topic.pk}", title=f"Topic: {topic.name}", questions=questions
    )
    return redirect(attempt)
