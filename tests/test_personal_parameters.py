"""Personal FSRS parameters: fitted to a learner's own log, adopted only when they predict the
learner's later reviews better than the defaults, refused below the threshold; on demand from
Settings and for everyone by `manage.py optimise_schedules`."""

from datetime import datetime, timedelta, timezone
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from quiz.models import ScheduleFit, User
from quiz.study import personal, scheduling
from tests.factories import make_deck, make_user
from tests.helpers import rate_item
from tests.learner_simulation import simulate_histories, store_histories

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def simulated_learner(db):
    """A learner with 3,200 reviews whose memory follows known, non-default parameters (with
    half as many, noise hides the difference: the defaults win about as often as not)."""
    learner = make_user("sim")
    store_histories(learner, simulate_histories(400, seed=3))
    return learner


def test_parameters_fitted_to_a_simulated_learner_beat_the_defaults_on_their_later_reviews(simulated_learner):
    fit = personal.optimise(simulated_learner, now=NOW)

    assert fit.outcome == ScheduleFit.Outcome.ADOPTED
    assert fit.metrics["personal"]["log_loss"] < fit.metrics["default"]["log_loss"]
    assert fit.metrics["personal"]["rmse_bins"] <= fit.metrics["default"]["rmse_bins"]
    assert len(fit.parameters) == 21 and fit.review_count == 3200
    simulated_learner.refresh_from_db()
    assert simulated_learner.fsrs_parameters == fit.parameters


def test_adopted_parameters_drive_the_learners_scheduler(simulated_learner):
    personal.optimise(simulated_learner, now=NOW)
    simulated_learner.refresh_from_db()

    scheduler = scheduling.scheduler_for(simulated_learner)

    assert list(scheduler.parameters) == pytest.approx(simulated_learner.fsrs_parameters)
    assert tuple(scheduler.parameters) != scheduling.DEFAULT_PARAMETERS


def test_a_learner_who_forgets_as_the_defaults_say_keeps_the_defaults(db):
    """Fitting noise must not replace parameters that already fit: a learner simulated with the
    default parameters keeps them unless the fit really predicts better."""
    learner = make_user("average")
    store_histories(learner, simulate_histories(60, seed=5, true_parameters=list(scheduling.DEFAULT_PARAMETERS)))

    fit = personal.optimise(learner, now=NOW)

    learner.refresh_from_db()
    adopted = fit.outcome == ScheduleFit.Outcome.ADOPTED
    assert adopted == (fit.metrics["personal"]["log_loss"] < fit.metrics["default"]["log_loss"])
    assert (learner.fsrs_parameters is not None) == adopted


def test_it_refuses_to_fit_below_the_threshold(db):
    learner = make_user("newcomer")
    store_histories(learner, simulate_histories(personal.MIN_REVIEWS // 8 - 1, seed=4))

    fit = personal.optimise(learner, now=NOW)

    learner.refresh_from_db()
    assert fit.outcome == ScheduleFit.Outcome.TOO_FEW and fit.parameters is None
    assert fit.review_count < personal.MIN_REVIEWS and learner.fsrs_parameters is None


def test_fitted_parameters_are_kept_within_what_py_fsrs_accepts():
    outside = list(scheduling.DEFAULT_PARAMETERS)
    outside[7], outside[20] = -0.5, 99.0

    clamped = personal.within_py_fsrs_bounds(outside)

    assert scheduling.scheduler_with(tuple(clamped), 0.9) is not None  # py-fsrs raises on anything outside
    assert clamped[:7] == list(scheduling.DEFAULT_PARAMETERS)[:7]


def test_training_items_follow_answer_time_and_skip_same_day_reviews():
    start = datetime(2026, 1, 1, 9, tzinfo=timezone.utc)
    history = [(start, 3), (start + timedelta(hours=2), 3), (start + timedelta(days=3), 1), (start + timedelta(days=4), 3)]

    items = personal.training_items([history])

    assert [moment for moment, _ in items] == [start + timedelta(days=3), start + timedelta(days=4)]
    assert [len(item.reviews) for _, item in items] == [3, 4]


def test_optimise_my_schedule_from_settings_shows_the_comparison(simulated_learner, client):
    client.force_login(simulated_learner)

    response = client.post(reverse("optimise_schedule"), follow=True)

    page = response.content.decode()
    assert "Log loss" in page and "RMSE" in page and "Your own parameters are in use" in page


def test_settings_say_how_many_reviews_are_needed(learner, learner_client):
    rate_item(learner, make_deck(cards=1).cards.get(), 3, at=NOW)
    learner_client.post(reverse("optimise_schedule"))

    page = learner_client.get(reverse("study_settings")).content.decode()

    assert f"at least {personal.MIN_REVIEWS}" in page and "you have 1" in page


def test_optimise_is_post_only(learner_client):
    assert learner_client.get(reverse("optimise_schedule")).status_code == 405


def test_the_nightly_command_fits_everyone_with_enough_reviews(simulated_learner, learner):
    out = StringIO()
    call_command("optimise_schedules", stdout=out)

    assert ScheduleFit.objects.filter(user=simulated_learner, outcome="adopted").exists()
    assert not ScheduleFit.objects.filter(user=learner).exists()  # too few reviews: not even tried
    assert "1 learner(s) fitted, 1 adopted" in out.getvalue()


def test_the_nightly_command_dry_run_writes_nothing(simulated_learner):
    out = StringIO()
    call_command("optimise_schedules", "--dry-run", stdout=out)

    assert not ScheduleFit.objects.exists() and User.objects.get(pk=simulated_learner.pk).fsrs_parameters is None
    assert "Would fit 1 learner(s)" in out.getvalue()


def test_adopting_parameters_replays_every_memory_with_them_as_py_fsrs_would(simulated_learner):
    from fsrs import Card, Rating

    from quiz.models import MemoryState, ReviewLog

    predicted_before = dict(ReviewLog.objects.filter(user=simulated_learner).values_list("pk", "retrievability"))
    fit = personal.optimise(simulated_learner, now=NOW)
    assert fit.outcome == ScheduleFit.Outcome.ADOPTED
    simulated_learner.refresh_from_db()
    scheduler = scheduling.scheduler_for(simulated_learner)

    for memory in MemoryState.objects.filter(user=simulated_learner).order_by("pk")[:25]:
        card = Card(card_id=1)
        for log in memory.reviews.order_by("reviewed_at", "pk"):
            card, _ = scheduler.review_card(card, Rating(log.rating), review_datetime=log.reviewed_at)
        assert memory.stability == pytest.approx(card.stability)
        assert memory.difficulty == pytest.approx(card.difficulty)
        assert memory.due == card.due
        assert memory.last_review == card.last_review
        last = memory.reviews.order_by("-reviewed_at", "-pk").first()
        assert last.due_after == card.due
    # What the model predicted at the time stays as it was, for the calibration chart.
    assert dict(ReviewLog.objects.filter(user=simulated_learner).values_list("pk", "retrievability")) == predicted_before
