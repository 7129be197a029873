"""Finished days of study stored once (StudyDay), so the dashboard reads a year of small rows:
the numbers are the ones a count from the log gives, a new day adds one insert, and history
that changes before today (an undo after midnight, a new time zone) is counted again."""

from datetime import UTC, date, datetime, timedelta
from unittest import mock

import pytest
from django.urls import reverse

from quiz.models import MemoryState, ReviewLog, StudyDay
from quiz.progress.activity import daily_activity, first_heatmap_day
from quiz.study import scheduling
from quiz.study.queue import Scope
from tests.factories import make_deck, make_user
from tests.helpers import rate_item
from tests.test_dashboard import AUTH, HOME_QUERIES, NOW, _add_history

Kind = MemoryState.Kind


@pytest.fixture
def clock():
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        yield NOW


@pytest.fixture
def new_yorker(db):
    return make_user("nina", time_zone="America/New_York")


def test_the_first_visit_of_a_day_stores_the_day_before_in_one_insert(client, learner, clock, django_assert_num_queries):
    _add_history(learner, 100)
    client.force_login(learner)
    client.get(reverse("home"))
    StudyDay.objects.filter(user=learner, day=date(2025, 1, 14)).delete()  # as if the 14th (UTC) had just ended

    # The 14th's reviews are counted from the log and stored: one insert more than a later visit.
    with django_assert_num_queries(AUTH + HOME_QUERIES + 1):
        client.get(reverse("home"))
    assert StudyDay.objects.get(user=learner, day=date(2025, 1, 14)).reviews > 0


def test_stored_days_give_the_numbers_a_count_from_the_log_gives(new_yorker, clock):
    _add_history(new_yorker, 10_000)
    from_log = daily_activity(user=new_yorker, now=NOW)  # counts a year and stores the finished days
    stored = StudyDay.objects.filter(user=new_yorker)

    assert stored.count() > 300
    assert not stored.filter(day__gte=date(2025, 1, 14)).exists()  # today (New York) is counted live
    assert daily_activity(user=new_yorker, now=NOW) == from_log
    start = datetime.combine(first_heatmap_day(new_yorker, NOW), datetime.min.time(), tzinfo=new_yorker.zone)
    in_range = ReviewLog.objects.filter(user=new_yorker, reviewed_at__gte=start).count()
    assert sum(day.reviews for day in from_log.values()) == in_range > 9_000


def test_a_new_day_counts_only_the_day_that_ended(new_yorker, clock):
    card = make_deck(cards=1).cards.get()
    rate_item(new_yorker, card, 3, NOW - timedelta(days=3))
    daily_activity(user=new_yorker, now=NOW)
    tomorrow = NOW + timedelta(days=1)
    rate_item(new_yorker, card, 1, NOW)  # late on the 14th in New York

    days = daily_activity(user=new_yorker, now=tomorrow)

    assert (days[date(2025, 1, 14)].reviews, days[date(2025, 1, 14)].correct) == (1, 0)
    assert StudyDay.objects.get(user=new_yorker, day=date(2025, 1, 14)).reviews == 1
    assert days[date(2025, 1, 11)].reviews == 1


def test_an_undo_after_midnight_recounts_the_day_it_took_back(client, new_yorker, clock):
    deck = make_deck(cards=1)
    card = deck.cards.get()
    before_midnight = NOW + timedelta(minutes=90)  # 23:30 on the 14th in New York
    rate_item(new_yorker, card, 3, before_midnight)
    after_midnight = before_midnight + timedelta(minutes=40)
    assert date(2025, 1, 14) in daily_activity(user=new_yorker, now=after_midnight)  # the 14th is stored

    with mock.patch("django.utils.timezone.now", return_value=after_midnight):
        undone = scheduling.undo_last(
            user=new_yorker, sources=[ReviewLog.Source.STUDY], scope=Scope(kinds=(Kind.CARD,), deck=deck)
        )

    assert undone is not None
    assert date(2025, 1, 14) not in daily_activity(user=new_yorker, now=after_midnight)


def test_a_new_time_zone_recounts_every_day(new_yorker, clock):
    card = make_deck(cards=1).cards.get()
    rate_item(new_yorker, card, 3, datetime(2025, 1, 10, 3, 0, tzinfo=UTC))  # 22:00 on the 9th in New York
    assert date(2025, 1, 9) in daily_activity(user=new_yorker, now=NOW)

    new_yorker.time_zone = "Europe/Paris"
    new_yorker.save()

    assert set(daily_activity(user=new_yorker, now=NOW)) == {date(2025, 1, 10)}  # 04:00 on the 10th in Paris
    assert set(StudyDay.objects.filter(user=new_yorker).values_list("time_zone", flat=True)) == {"Europe/Paris"}
