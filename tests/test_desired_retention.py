"""Desired retention per learner: chosen in Settings (0.70 to 0.97, enforced by the database
too), it sets the intervals exactly as py-fsrs's Scheduler does with that retention, on every
path a rating takes; and the workload estimate compares choices with the simulator."""

from datetime import datetime, timedelta, timezone

import pytest
from django.db import IntegrityError
from django.urls import reverse
from fsrs import Card as FsrsCard
from fsrs import Rating as FsrsRating
from fsrs import Scheduler

from quiz.models import Attempt, MemoryState, ReviewLog, User
from quiz.study import scheduling
from tests.factories import make_deck, make_question_set, make_user, start_attempt
from tests.helpers import answer_and_submit, answer_at, rate_item

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=timezone.utc)
Rating = ReviewLog.Rating
PLAN = [(NOW, Rating.GOOD), (NOW + timedelta(minutes=10), Rating.GOOD), (NOW + timedelta(days=3), Rating.GOOD),
        (NOW + timedelta(days=15), Rating.HARD)]


def py_fsrs_dues(retention, plan=PLAN):
    scheduler, card, dues = Scheduler(desired_retention=retention, enable_fuzzing=False), None, []
    for moment, rating in plan:
        card, _ = scheduler.review_card(card or FsrsCard(card_id=0, due=moment), FsrsRating(rating), moment)
        dues.append(card.due)
    return dues


@pytest.mark.parametrize("retention", [0.7, 0.8, 0.97])
def test_a_learners_retention_sets_their_intervals_exactly_as_py_fsrs_does(db, retention):
    learner = make_user(desired_retention=retention)
    card = make_deck(cards=1).cards.get()

    dues = [rate_item(learner, card, rating, at=moment).due_after for moment, rating in PLAN]

    assert dues == py_fsrs_dues(retention)
    assert dues != py_fsrs_dues(0.9)  # a retention that changes nothing would pass the line above


def test_released_answers_use_their_learners_retention(db):
    """The bulk release reads each learner's retention with its claim, not the default."""
    careful = make_user(desired_retention=0.95)
    attempt = start_attempt(careful, make_question_set(questions=2), feedback=Attempt.Feedback.DEFERRED)
    first, last = attempt.slots.order_by("position")
    answer_at(attempt, first, right=True, at=NOW)
    answer_and_submit(attempt, last, right=True, at=NOW + timedelta(days=2))

    memory = MemoryState.objects.get(user=careful, question=first.question)
    assert memory.due == py_fsrs_dues(0.95, [(NOW, Rating.GOOD)])[0]


def test_the_study_buttons_show_the_learners_intervals(db):
    learner = make_user(desired_retention=0.7)
    card = make_deck(cards=1).cards.get()
    rate_item(learner, card, Rating.GOOD, at=NOW - timedelta(days=20))
    memory = MemoryState.objects.get(user=learner, card=card)

    shown = scheduling.next_intervals(memory, NOW, scheduling.scheduler_for(learner))

    scheduler = Scheduler(desired_retention=0.7, enable_fuzzing=False)
    expected = scheduler.review_card(scheduling.to_fsrs(memory, NOW), FsrsRating.Good, NOW)[0].due - NOW
    assert shown[FsrsRating.Good] == expected


def test_one_scheduler_serves_every_learner_with_the_same_choice(db):
    alice, bob = make_user(desired_retention=0.85), make_user(desired_retention=0.85)
    assert scheduling.scheduler_for(alice) is scheduling.scheduler_for(bob)


def test_settings_save_a_retention_in_range_and_refuse_one_outside(learner, learner_client):
    url = reverse("study_settings")
    form = {"time_zone": "UTC", "new_cards_per_day": 20}

    assert learner_client.post(url, {**form, "desired_retention": "85"}).status_code == 302
    refused = learner_client.post(url, {**form, "desired_retention": "99"})
    learner.refresh_from_db()
    assert learner.desired_retention == 0.85
    assert refused.status_code == 400 and "less than or equal to 97" in refused.content.decode()
    page = learner_client.get(url).content.decode()
    assert 'name="desired_retention" value="85"' in page  # shown as the percentage it was typed as


@pytest.mark.parametrize(("typed", "stored"), [("85", 0.85), ("85%", 0.85), ("0.85", 0.85), ("70", 0.7), ("97", 0.97)])
def test_a_retention_is_typed_as_a_percentage_or_as_the_share_it_was_before(learner, learner_client, typed, stored):
    form = {"time_zone": "UTC", "new_cards_per_day": 20, "desired_retention": typed}
    assert learner_client.post(reverse("study_settings"), form).status_code == 302
    learner.refresh_from_db()
    assert learner.desired_retention == stored


@pytest.mark.parametrize("typed", ["69", "98", "0.5", "85.5", "eighty", ""])
def test_a_retention_outside_the_one_range_is_refused_on_both_forms(learner, learner_client, typed):
    settings = {"time_zone": "UTC", "new_cards_per_day": 20, "desired_retention": typed}
    assert learner_client.post(reverse("study_settings"), settings).status_code == 400
    learner_client.post(reverse("exam_settings"), {"exam_date": "2099-01-01", "target_retention": typed})
    learner.refresh_from_db()
    assert (learner.desired_retention, learner.target_retention, learner.exam_date) == (0.9, 0.9, None)


def test_the_database_refuses_a_retention_outside_the_range(learner):
    with pytest.raises(IntegrityError):
        User.objects.filter(pk=learner.pk).update(desired_retention=0.5)


def test_the_workload_estimate_compares_choices_and_suggests_one(learner, learner_client):
    make_deck(cards=30)
    User.objects.filter(pk=learner.pk).update(desired_retention=0.85)

    page = learner_client.get(reverse("workload_estimate")).content.decode()

    assert "85% (yours)" in page and "Suggested desired retention: <strong>" in page
    assert "the one that costs the least study time" in page  # no exam date: the cost optimum
    for retention in ("80%", "90%", "95%"):
        assert retention in page


def test_the_settings_page_links_to_the_estimate_rather_than_running_it(learner_client):
    page = learner_client.get(reverse("study_settings")).content.decode()
    assert reverse("workload_estimate") in page and "Minutes per day" not in page


def test_a_higher_retention_costs_more_reviews(learner):
    from quiz.study.workload import expected_workload

    make_deck(cards=200)
    low, high = expected_workload(learner, retentions=(0.8, 0.95))
    assert high.reviews_per_day > low.reviews_per_day

