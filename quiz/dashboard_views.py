"""The home page: for a signed-in learner, their dashboard; for a visitor, the public list.

The numbers come from `quiz.progress` (a fixed number of queries whatever the history size);
this module only turns them into what the template draws: bars, SVG chart geometry and their
table alternatives.
"""

from datetime import datetime, time, timedelta

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from . import assignments, grading
from .models import Attempt, Deck, Question, QuestionSet, Topic, User
from .progress import mastery
from .progress.activity import (
    HEATMAP_WEEKS,
    Day,
    daily_activity,
    first_heatmap_day,
    streak,
)

CHART_WIDTH, CHART_HEIGHT = 600, 140
CELL = 11  # heatmap cell size with its gap


def home(request):
    sets = QuestionSet.objects.with_progress_for(request.user)
    decks = Deck.objects.with_counts_for(request.user)
    if not request.user.is_authenticated:
        return render(request, "quiz/home.html", {"question_sets": sets, "decks": decks})
    now = timezone.now()
    grading.schedule_visible_answers(user=request.user, now=now)  # answers released since the last visit
    return render(request, "quiz/home.html", dashboard_context(request.user, sets, decks, now))


def dashboard_context(user, sets, decks, now):
    sets, decks = list(sets), list(decks)
    today = now.astimezone(user.zone).date()
    exam_moment = _exam_moment(user, now)
    summary = mastery.memory_summary(user=user, now=now, exam_moment=exam_moment, target=user.target_retention)
    activity = daily_activity(user=user, now=now)
    new_today = activity[today].new_cards if today in activity else 0
    context = {
        "question_sets": sets,
        "decks": decks,
        "now": now,
        "today": today,
        "summary": summary,
        "due_count": summary.due_now,
        "mistake_count": summary.mistakes,
        "new_cards": sum(deck.new_count for deck in decks),
        "new_today_left": max(user.new_cards_per_day - new_today, 0),
        "streak": streak(activity, today),
        "my_assignments": assignments.learner_assignments(user=user, now=now),
        "study_now": _study_now(summary, sets, decks),
        "mastery_groups": [
            ("Question sets", "sets", summary.sets),
            ("Decks", "decks", summary.decks),
            ("Topics", "topics", summary.topics),
        ],
        "accuracy_chart": _accuracy_chart(activity, today),
        "forecast_chart": _forecast_chart(summary, today),
        "heatmap": _heatmap(activity, user, now, today),
        "exam_form": ExamForm(instance=user),
    }
    if user.exam_date:
        context["exam"] = _exam_outlook(user, summary, today)
    return context


def _exam_moment(user, now):
    """The start of the exam day in the learner's time zone (never before now), or None."""
    if user.exam_date is None:
        return None
    return max(datetime.combine(user.exam_date, time.min, tzinfo=user.zone), now)


def _exam_outlook(user, summary, today):
    groups = [m for m in summary.sets + summary.decks if m.items]
    at_risk = sum(m.at_risk for m in groups)
    return {
        "days_left": (user.exam_date - today).days,
        "groups": sorted(groups, key=lambda m: m.exam_recall),
        "at_risk": at_risk,
        "per_day": mastery.reviews_per_day_needed(at_risk, today, user.exam_date),
    }


def _study_now(summary, sets, decks):
    """Where "Study now" goes: due reviews, else the weakest deck with something to study,
    else a quiz on the weakest set (or the first set)."""
    if summary.due_now:
        return {"kind": "review"}
    studyable = {deck.pk: deck for deck in decks if deck.new_count or deck.due_count or deck.learning_count}
    weakest = next((m for m in summary.decks if m.key in studyable), None)
    deck = studyable[weakest.key] if weakest else next(iter(studyable.values()), None)
    if deck:
        return {"kind": "deck", "deck": deck}
    weak_set = next((m.key for m in summary.sets), None)
    question_set = next((s for s in sets if s.pk == weak_set), None) or next((s for s in sets if s.question_count), None)
    if question_set:
        return {"kind": "quiz", "question_set": question_set}
    return None


# --- Charts: geometry for server-rendered SVG, with the same numbers as a table --------------------

def _accuracy_chart(activity, today, days=mastery.RECENT_DAYS):
    dates = [today - timedelta(days=offset) for offset in range(days - 1, -1, -1)]
    rows = [activity.get(day) or Day(day) for day in dates]
    peak = max((row.answers for row in rows), default=0) or 1
    width = CHART_WIDTH / days
    bars = []
    for index, row in enumerate(rows):
        total_height = CHART_HEIGHT * row.answers / peak
        right_height = CHART_HEIGHT * row.correct / peak
        bars.append({
            "row": row,
            "x": round(index * width + 1, 1),
            "width": round(width - 2, 1),
            "right_y": round(CHART_HEIGHT - right_height, 1),
            "right_height": round(right_height, 1),
            "wrong_y": round(CHART_HEIGHT - total_height, 1),
            "wrong_height": round(total_height - right_height, 1),
        })
    answers = sum(row.answers for row in rows)
    correct = sum(row.correct for row in rows)
    return {
        "bars": bars,
        "rows": [row for row in rows if row.answers],
        "answers": answers,
        "accuracy": correct / answers if answers else None,
        "peak": peak if answers else 0,
        "days": days,
    }


def _forecast_chart(summary, today, days=mastery.FORECAST_DAYS):
    counts = [summary.forecast.get(today + timedelta(days=offset), 0) for offset in range(days)]
    counts[0] += summary.due_now
    peak = max(counts) or 1
    width = CHART_WIDTH / days
    bars = [
        {
            "date": today + timedelta(days=offset),
            "count": count,
            "x": round(offset * width + 1, 1),
            "width": round(width - 2, 1),
            "y": round(CHART_HEIGHT - CHART_HEIGHT * count / peak, 1),
            "height": round(CHART_HEIGHT * count / peak, 1),
            "week": offset < 7,
        }
        for offset, count in enumerate(counts)
    ]
    return {"bars": bars, "week_total": sum(counts[:7]), "month_total": sum(counts), "peak": max(counts), "days": days}


def _heatmap(activity, user, now, today):
    first = first_heatmap_day(user, now)
    peak = max((day.activity for day in activity.values()), default=0)
    cells, months = [], {}
    for offset in range((today - first).days + 1):
        day = first + timedelta(days=offset)
        count = activity[day].activity if day in activity else 0
        cells.append({
            "date": day,
            "count": count,
            "x": (offset // 7) * CELL,
            "y": (offset % 7) * CELL,
            "level": 0 if not count else min(4, 1 + (4 * count - 1) // max(peak, 1)),
        })
        months.setdefault(day.replace(day=1), [0, 0])
        months[day.replace(day=1)][0] += count
        months[day.replace(day=1)][1] += bool(count)
    busiest = max(activity.values(), key=lambda d: (d.activity, d.date), default=None)
    in_range = [day for day in activity.values() if day.date >= first]
    return {
        "cells": cells,
        "width": HEATMAP_WEEKS * CELL,
        "height": 7 * CELL,
        "total": sum(day.activity for day in in_range),
        "active_days": len(in_range),
        "busiest": busiest,
        "months": [{"month": month, "reviews": r, "days": d} for month, (r, d) in months.items()],
    }


# --- Exam date and focused sessions -------------------------------------------------------------------

class ExamForm(forms.ModelForm):
    exam_date = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), label="Exam date")
    target_retention = forms.FloatField(
        min_value=0.7, max_value=0.99, label="Target recall", help_text="Between 0.7 and 0.99; 0.9 means 90%.",
        widget=forms.NumberInput(attrs={"step": "0.01"}),
    )

    class Meta:
        model = User
        fields = ("exam_date", "target_retention")


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
    topic = get_object_or_404(Topic, pk=topic_id)
    questions = Question.objects.filter(topics=topic).order_by("question_set", "position")
    if not questions.exists():
        deck = Deck.objects.filter(cards__topics=topic).order_by("pk").first()
        if deck:
            return redirect("study_deck", deck_id=deck.pk)
        messages.info(request, f"“{topic.name}” has no questions or cards yet.")
        return redirect("home")
    attempt = Attempt.objects.start_custom(user=request.user, title=f"Topic: {topic.name}", questions=questions)
    return redirect(attempt)
