"""The learner's dashboard as a template context: the numbers the home page shows a
signed-in learner, their charts, where "Study now" goes and the exam outlook.

The queries are in `mastery` and `activity` (a fixed number whatever the history size) and
in `quiz.teaching.rules` (the learner's assignments); what is left here is arithmetic on their results. The exam form is not
built here: it belongs to the view that handles it.
"""

from quiz.lib.days import start_of_day
from quiz.teaching import rules

from .activity import daily_activity, streak
from .charts import accuracy_chart, forecast_chart, heatmap
from .mastery import AHEAD, memory_summary, reviews_per_day_needed


def dashboard_context(user, sets, decks, now):
    """The home page's context for a signed-in learner, but for the exam form.

    `sets` and `decks` come annotated with the learner's progress and counts (the view
    lists them for visitors too)."""
    sets, decks = list(sets), list(decks)
    today = now.astimezone(user.zone).date()
    horizon = recall_horizon(user, now, today)
    summary = memory_summary(
        user=user, now=now, exam_moment=exam_moment(user, now), target=user.target_retention, horizon=horizon["moment"]
    )
    activity = daily_activity(user=user, now=now)
    new_today = activity[today].new_cards if today in activity else 0
    context = {
        "question_sets": sets,
        "decks": decks,
        "now": now,
        "today": today,
        "summary": summary,
        "horizon": horizon,
        "due_count": summary.due_now,
        "mistake_count": summary.mistakes,
        "new_cards": sum(deck.new_count for deck in decks),
        "new_today_left": max(user.new_cards_per_day - new_today, 0),
        "streak": streak(activity, today),
        "my_assignments": rules.learner_assignments(user=user, now=now),
        "study_now": study_now(summary, sets, decks),
        "mastery_groups": [
            ("Question sets", "sets", summary.sets),
            ("Decks", "decks", summary.decks),
            ("Topics", "topics", summary.topics),
        ],
        "accuracy_chart": accuracy_chart(activity, today),
        "forecast_chart": forecast_chart(summary, today),
        "heatmap": heatmap(activity, user, now, today),
    }
    if user.exam_date:
        context["exam"] = exam_outlook(user, summary, today, sets)
    return context


def exam_moment(user, now):
    """The start of the exam day in the learner's time zone (never before now), or None."""
    if user.exam_date is None:
        return None
    return max(start_of_day(user.exam_date, user.zone), now)


def recall_horizon(user, now, today):
    """When the dashboard's "recall" is predicted for, and what to call it: the learner's exam
    day when one is ahead, else a week from now. Never now: right after a review FSRS predicts
    100%, which says nothing about what the learner knows."""
    if user.exam_date and user.exam_date > today:
        return {"moment": exam_moment(user, now), "label": "recall on exam day", "exam": True}
    return {"moment": now + AHEAD, "label": "recall in 7 days", "exam": False}


def exam_outlook(user, summary, today, sets):
    groups = [m for m in summary.sets + summary.decks if m.items]
    at_risk = sum(m.at_risk for m in groups)
    return {
        "days_left": (user.exam_date - today).days,
        # Weakest first; groups still all in learning (no recall figure yet) first of all.
        "groups": sorted(groups, key=lambda m: (m.recall is not None, m.recall or 0)),
        "at_risk": at_risk,
        "per_day": reviews_per_day_needed(at_risk, today, user.exam_date),
        **predicted_scores(summary, sets),
    }


def predicted_scores(summary, sets):
    """The expected share right on exam day per question set and overall: the mean predicted
    recall on that day over all of a set's current questions, a question never studied
    counting as 0 (nothing predicts it would be recalled)."""
    exam_sums = {m.key: m.exam_sum for m in summary.sets}
    scores = [
        {"set": s, "score": exam_sums.get(s.pk, 0.0) / s.question_count}
        for s in sets if s.question_count
    ]
    questions = sum(row["set"].question_count for row in scores)
    overall = sum(exam_sums.get(row["set"].pk, 0.0) for row in scores) / questions if questions else None
    return {"scores": sorted(scores, key=lambda row: row["score"]), "overall_score": overall}


def study_now(summary, sets, decks):
    """Where "Study now" goes: due reviews, else the weakest deck with something to study,
    else a quiz on the weakest set (or the first set)."""
    if summary.due_now:
        return {"kind": "review"}
    studyable = {deck.pk: deck for deck in decks if deck.new_count or deck.due_count or deck.learning_count}
    weakest = next((m for m in summary.decks if m.key in studyable), None)
    deck = studyable[weakest.key] if weakest else next(iter(studyable.values()), None)
    if deck:
        return {"kind": "deck", "deck": deck}
    # Never a set an assignment holds back from practice (its Start would be refused).
    practisable = [s for s in sets if s.question_count and not s.practice_held]
    weak_set = next((m.key for m in summary.sets), None)
    question_set = next((s for s in practisable if s.pk == weak_set), None) or next(iter(practisable), None)
    if question_set:
        return {"kind": "quiz", "question_set": question_set}
    return None
