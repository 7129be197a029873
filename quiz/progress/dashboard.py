"""The learner's dashboard as a template context: the numbers the home page shows a
signed-in learner, what to do now (where "Study now" goes), their charts and the exam outlook.

The queries are in `mastery` and `activity` (a fixed number whatever the history size) and
in `quiz.teaching.rules` (the learner's assignments); what is left here is arithmetic on their results. The exam form is not
built here: it belongs to the view that handles it.
"""

from django.db.models import Count

from quiz.lib.days import start_of_day
from quiz.models import Question
from quiz.teaching import rules
from quiz.teaching.standing import Status

from .activity import daily_activity, streak
from .charts import accuracy_chart, forecast_chart, heatmap
from .mastery import AHEAD, memory_summary


def dashboard_context(user, sets, decks, now, held):
    """The home page's context for a signed-in learner, but for the exam form.

    `sets` and `decks` come annotated with the learner's progress and counts (the view
    lists them for visitors too); `held`: the ids of the questions held back from the learner
    now (`Question.objects.held_back_ids`), which every figure leaves out."""
    sets, decks = list(sets), list(decks)
    today = now.astimezone(user.zone).date()
    horizon = recall_horizon(user, now, today)
    summary = memory_summary(
        user=user, now=now, exam_moment=exam_moment(user, now), target=user.target_retention, horizon=horizon["moment"],
        held=held,
    )
    activity = daily_activity(user=user, now=now)
    assignments = rules.learner_assignments(user=user, now=now)
    new_today = activity[today].new_cards if today in activity else 0
    context = {
        "question_sets": sets,
        "decks": decks,
        "now": now,
        "today": today,
        "summary": summary,
        "horizon": horizon,
        "due_count": summary.due_now,
        "due_learning": summary.due_learning,
        "due_review": summary.due_now - summary.due_learning,
        "mistake_count": summary.mistakes,
        "new_cards": sum(deck.new_count for deck in decks),
        "new_today_left": max(user.new_cards_per_day - new_today, 0),
        "streak": streak(activity, today),
        "my_assignments": assignments,
        "next_steps": next_steps(assignments, summary, sets, decks),
        "mastery_groups": [
            ("Question sets", "sets", summary.sets),
            ("Decks", "decks", summary.decks),
            ("Topics", "topics", summary.topics),
        ],
        "accuracy_chart": accuracy_chart(activity, today),
        "forecast_chart": forecast_chart(summary, today),
        "heatmap": heatmap(activity, user, now, today),
    }
    # A newcomer is shown one sentence saying what will appear, not empty charts and lists.
    context["has_progress"] = bool(activity or summary.sets or summary.decks or summary.topics)
    if user.exam_date:
        context["exam"] = exam_outlook(user, summary, today, questions_by_set(user, now, held))
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


def questions_by_set(user, now, held=None):
    """[{"id", "title", "questions"}] of every set the learner may see with current questions
    they may practise now: the whole bank the exam outlook predicts, not one page of the home's
    list. One grouped query, bounded by the content, not by history."""
    questions = Question.objects.visible_to(user).current().practisable_by(user, now, held=held).order_by()
    rows = questions.values("question_set").annotate(questions=Count("pk")).values_list(
        "question_set", "question_set__title", "questions"
    )
    return [{"id": pk, "title": title, "questions": n} for pk, title, n in rows]


def exam_outlook(user, summary, today, sets):
    groups = [m for m in summary.sets + summary.decks if m.items]
    at_risk = sum(m.at_risk for m in groups)
    return {
        "days_left": (user.exam_date - today).days,
        # Weakest first; groups still all in learning (no recall figure yet) first of all.
        "groups": sorted(groups, key=lambda m: (m.recall is not None, m.recall or 0)),
        "at_risk": at_risk,
        **predicted_scores(summary, sets),
    }


# The exam table lists the weakest sets; the overall score covers every one.
EXAM_TABLE_ROWS = 10


def predicted_scores(summary, sets):
    """The expected share right on exam day per question set and overall: the mean predicted
    recall on that day over all of a set's current questions, a question never studied
    counting as 0 (nothing predicts it would be recalled). `sets`: `questions_by_set`."""
    exam_sums = {m.key: m.exam_sum for m in summary.sets}
    scores = [{"set": s, "score": exam_sums.get(s["id"], 0.0) / s["questions"]} for s in sets if s["questions"]]
    questions = sum(row["set"]["questions"] for row in scores)
    overall = sum(exam_sums.get(row["set"]["id"], 0.0) for row in scores) / questions if questions else None
    scores.sort(key=lambda row: (row["score"], row["set"]["title"]))
    return {
        "scores": scores[:EXAM_TABLE_ROWS],
        "more_sets": max(len(scores) - EXAM_TABLE_ROWS, 0),
        "set_count": len(scores),
        "overall_score": overall,
    }


# Self-study suggestions shown after the assigned work and the due reviews: enough to choose
# from, few enough that the library stays near the top of the home page.
MAX_SELF_STUDY_STEPS = 3


def next_steps(assignments, summary, sets, decks):
    """What to do now, in order; the first step is where "Study now" goes. Assigned work the
    learner can start or resume comes first (soonest due first), then due reviews, then self-study:
    a quiz left open, a set never tried (a newcomer's first step is the first set), the weakest
    deck with something to study, and a quiz on the weakest set."""
    steps = [{"kind": "assignment", "seen": seen} for seen in assignments if _to_do(seen)]
    if summary.due_now:
        steps.append({"kind": "review"})
    steps += _self_study(summary, sets, decks)[:MAX_SELF_STUDY_STEPS]
    return steps


def _to_do(seen):
    return seen.status in (Status.NOT_STARTED, Status.IN_PROGRESS) and seen.can_start


def _self_study(summary, sets, decks):
    steps = [{"kind": "resume", "question_set": s} for s in sets if s.open_attempt_id]
    # Never a set an assignment holds back from practice (its Start would be refused).
    practisable = [s for s in sets if s.question_count and not s.practice_held and not s.open_attempt_id]
    untried = next((s for s in practisable if s.best_total is None), None)
    if untried:
        steps.append({"kind": "quiz", "question_set": untried, "new": True})
    deck = _deck_to_study(summary, decks)
    if deck:
        steps.append({"kind": "deck", "deck": deck})
    weak_set = next((m.key for m in summary.sets), None)
    retake = next((s for s in practisable if s.pk == weak_set), None) or next(iter(practisable), None)
    if retake and retake != untried:
        steps.append({"kind": "quiz", "question_set": retake, "new": False})
    return steps


def _deck_to_study(summary, decks):
    """The weakest deck with cards due, learning or new (or the first such deck)."""
    studyable = {deck.pk: deck for deck in decks if deck.new_count or deck.due_count or deck.learning_count}
    weakest = next((m for m in summary.decks if m.key in studyable), None)
    return studyable[weakest.key] if weakest else next(iter(studyable.values()), None)
