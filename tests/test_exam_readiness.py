"""Exam readiness: the predicted score per set and overall on exam day (never-studied questions
count as 0), and the daily reviews that reach the target, from fsrs-rs-python's simulator."""

from datetime import UTC, date, datetime, timedelta
from unittest import mock

import fsrs_rs_python
import pytest
from django.urls import reverse

from quiz.models import MemoryState
from quiz.study import scheduling, workload
from tests.factories import make_deck, make_question_set, make_user
from tests.helpers import logged_in, rate_item

NOW = datetime(2025, 1, 15, 3, 0, tzinfo=UTC)
EXAM = date(2025, 1, 25)


@pytest.fixture
def clock():
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        yield NOW


def test_the_predicted_score_is_the_mean_exam_day_recall_with_unstudied_questions_as_zero(db, clock):
    learner = make_user("alice", exam_date=EXAM)
    question_set = make_question_set("Routing", questions=4)
    studied = list(question_set.questions.order_by("pk")[:2])
    for question in studied:
        rate_item(learner, question, 3, NOW - timedelta(days=3))
    MemoryState.objects.filter(user=learner).update(stability=5.0)

    html = logged_in(learner).get(reverse("home")).content.decode()

    exam_moment = datetime(2025, 1, 25, tzinfo=UTC)
    recalls = [scheduling.retrievability(m, exam_moment) for m in MemoryState.objects.filter(user=learner)]
    expected = round(sum(recalls) / 4 * 100)  # two of four questions studied: the others count 0
    assert f'data-testid="set-score">{expected}%</td>' in html
    assert f"Predicted score if you stop studying today: <strong>{expected}%</strong>" in html
    assert expected < 50


def test_the_overall_score_covers_every_set_not_one_page_of_the_home(db, clock, settings, django_assert_max_num_queries):
    settings.QUIZ_PAGE_SIZE = 2  # the home lists two sets a page; the bank has five
    learner = make_user("alice", exam_date=EXAM)
    sets = [make_question_set(f"Set {n}", questions=2) for n in range(5)]
    studied = sets[4].questions.order_by("pk").first()  # on the last page of the home's list
    rate_item(learner, studied, 3, NOW - timedelta(days=3))
    MemoryState.objects.filter(user=learner).update(stability=5.0)
    recall = scheduling.retrievability(MemoryState.objects.get(user=learner), datetime(2025, 1, 25, tzinfo=UTC))

    client = logged_in(learner)
    with django_assert_max_num_queries(22):  # the home's fixed count, one grouped query for the bank
        html = client.get(reverse("home")).content.decode()

    assert f"Predicted score if you stop studying today: <strong>{round(recall / 10 * 100)}%</strong>" in html
    assert "the 5 sets you can practise" in html
    assert "Set 4</td>" in html  # the studied set is in the table though not on the home's first page


def test_the_plan_picks_the_lowest_retention_whose_simulated_exam_day_reaches_the_target(db):
    learner = make_user("alice", exam_date=EXAM, target_retention=0.9, new_cards_per_day=5)
    make_deck("Bank", cards=40)

    plan = workload.exam_plan(learner, date(2025, 1, 15))

    assert plan.days_left == 10 and plan.bank == 40 and plan.new_per_day == 5
    assert plan.predicted_score >= 0.9
    # Checked against the simulator directly: one step lower falls short of the target.
    config = workload.simulation_config(learner)
    config.learn_span, config.learn_limit, config.max_cost_perday = 10, 5, 1e9
    lower = fsrs_rs_python.simulate(scheduling.DEFAULT_PARAMETERS, round(plan.retention - 0.01, 2), config, workload.SEED)
    assert lower.memorized_cnt_per_day[-1] / 40 < 0.9


def test_an_unreachable_target_says_so_and_a_past_exam_has_no_plan(db, monkeypatch):
    learner = make_user("alice", exam_date=EXAM, target_retention=0.95)
    make_deck("Bank", cards=60)
    monkeypatch.setattr(workload, "PLAN_RETENTIONS", (0.70, 0.75))  # too low for a 95% target

    plan = workload.exam_plan(learner, date(2024, 11, 25))

    assert plan.retention is None and 0.5 < plan.predicted_score < 0.95
    assert workload.exam_plan(learner, EXAM) is None
    html = logged_in(learner).get(reverse("exam_plan")).content.decode()
    assert "Set an exam date after today" in html  # the real clock is long past 2025


def test_the_plan_page_shows_the_simulated_reviews_per_day(db, clock):
    learner = make_user("alice", exam_date=EXAM, target_retention=0.85)
    make_deck("Bank", cards=30)

    html = logged_in(learner).get(reverse("exam_plan")).content.decode()

    plan = workload.exam_plan(learner, date(2025, 1, 15))
    assert f"To recall 85% of your bank on the day (your target): about\n  <strong>{plan.daily_reviews} review" in html
    assert f"with a desired retention of <strong>{round(plan.retention * 100)}%</strong>" in html
    assert f"within the first {plan.first_sight_days} day" in html


def test_the_plan_is_simulated_once_a_day_until_what_it_depends_on_changes(db, monkeypatch):
    learner = make_user("alice", exam_date=EXAM, target_retention=0.8, new_cards_per_day=5)
    make_deck("Bank", cards=20)
    runs = []
    simulate = fsrs_rs_python.simulate
    monkeypatch.setattr(workload.simulator, "simulate", lambda *args: runs.append(1) or simulate(*args))

    first = workload.exam_plan(learner, date(2025, 1, 15))
    simulated = len(runs)
    assert workload.exam_plan(learner, date(2025, 1, 15)) == first and len(runs) == simulated  # from the cache
    make_deck("More", cards=5)  # a bigger bank is another plan
    assert workload.exam_plan(learner, date(2025, 1, 15)).bank == 25 and len(runs) > simulated


@pytest.mark.parametrize("exam_date", [None, date(2020, 1, 1)])
def test_the_dashboards_lazy_plan_without_a_plan_says_what_to_do_never_a_500(db, exam_date):
    learner = make_user("alice", exam_date=exam_date)
    response = logged_in(learner).get(reverse("exam_plan"), headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert 'data-testid="no-exam-plan"' in response.content.decode()


def test_retired_questions_are_out_of_the_predicted_score(db, clock):
    learner = make_user("alice", exam_date=EXAM)
    question_set = make_question_set("Routing", questions=3)
    for question in question_set.questions.all():
        rate_item(learner, question, 3, NOW - timedelta(days=3))
    MemoryState.objects.filter(user=learner).update(stability=50.0)
    kept = question_set.questions.order_by("pk").first()
    question_set.questions.exclude(pk=kept.pk).update(retired_at=NOW)

    html = logged_in(learner).get(reverse("home")).content.decode()

    recall = scheduling.retrievability(MemoryState.objects.get(user=learner, question=kept), datetime(2025, 1, 25, tzinfo=UTC))
    assert f"Predicted score if you stop studying today: <strong>{round(recall * 100)}%</strong>" in html  # one current question, not 3/1


def test_the_plan_reads_once_with_singulars_and_the_days_to_see_every_item(db):
    from django.template.loader import render_to_string

    learner = make_user("alice", exam_date=EXAM, target_retention=0.9, desired_retention=0.85)
    plan = workload.ExamPlan(days_left=60, bank=20, new_per_day=20, retention=0.78, reviews_per_day=0.6,
                             minutes_per_day=0.4, predicted_score=0.91)

    text = " ".join(render_to_string("quiz/exam_plan.html#plan-summary", {"plan": plan, "user": learner}).split())

    assert "about <strong>1 review a day</strong>, about 1 minute, with a desired retention of <strong>78%</strong>" in text
    assert "(yours is 85%: " in text and "Every item is seen once within the first 1 day," in text
    assert "first sights" not in text and "about 91% of the bank is recalled on the day" in text


def test_the_plan_and_the_workload_page_suggest_one_and_the_same_retention(db, clock):
    learner = make_user("alice", exam_date=EXAM, target_retention=0.85)
    make_deck("Bank", cards=30)
    client = logged_in(learner)

    plan = workload.exam_plan(learner, date(2025, 1, 15))
    page = client.get(reverse("workload_estimate")).content.decode()
    suggested = f"Suggested desired retention: <strong>{round(plan.retention * 100)}%</strong>"
    assert plan.retention is not None and suggested in page
    assert "the lowest that reaches your exam target of 85%" in page
    assert f"desired retention of <strong>{round(plan.retention * 100)}%</strong>" in client.get(reverse("exam_plan")).content.decode()
