"""Timers, time limits and deadlines read one way everywhere: durations in units ("38 min 11 s",
"15 min", "1 h 30 min"), clock times with a colon ("at 17:56"), and a countdown red only in its
last stretch. The countdown's ticking is app.js's, tested in tests/test_browser_quiz.py."""

import re
from datetime import datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from quiz.lib.days import moment_text
from quiz.lib.durations import clock_duration, closing_stretch, minutes_duration
from quiz.models import Attempt
from tests.class_factories import make_assignment, make_classroom
from tests.factories import start_attempt
from tests.helpers import question_url


@pytest.mark.parametrize("seconds, text", [
    (0, "0 s"),
    (14, "14 s"),
    (60, "1 min"),
    (62, "1 min 2 s"),
    (38 * 60 + 11, "38 min 11 s"),
    (15 * 60, "15 min"),  # a time limit: not "0:15:00", not "15 min 0 s"
    (3600, "1 h"),
    (5400 + 59, "1 h 30 min"),  # past the hour, to the minute
    (47 * 3600 + 59 * 60, "47 h 59 min"),
    (48 * 3600, "2 days"),
    (71 * 3600 + 59 * 60, "2 days 23 h"),  # what app.js writes for a deadline three days away
    (-3, "0 s"),  # a clock a little ahead of the server's: never "-3 s"
])
def test_a_duration_is_written_in_units_dropping_a_zero_tail(seconds, text):
    assert clock_duration(timedelta(seconds=seconds)) == text


def test_a_limit_in_minutes_reads_as_a_duration():
    assert [minutes_duration(m) for m in (11, 60, 90, None)] == ["11 min", "1 h", "1 h 30 min", ""]


@pytest.mark.parametrize("limit, stretch", [
    (timedelta(minutes=10), timedelta(minutes=1)),  # a tenth: not red from half time
    (timedelta(minutes=60), timedelta(minutes=5)),
    (timedelta(hours=3), timedelta(minutes=5)),  # at most five minutes: not 18
    (timedelta(days=3), timedelta(minutes=5)),
])
def test_a_countdown_turns_red_for_its_last_tenth_but_never_more_than_five_minutes(limit, stretch):
    assert closing_stretch(limit) == stretch


@pytest.fixture
def attempt(learner, question_set):
    return start_attempt(learner, question_set, feedback=Attempt.Feedback.DEFERRED)


def timer_of(html):
    return re.search(r'<p class="(timer[^"]*)" role="timer" data-deadline="[^"]+"\s+data-ending="([^"]+)"', html)


def timed(attempt, *, limit, left):
    now = timezone.now()
    Attempt.objects.filter(pk=attempt.pk).update(started_at=now + left - limit, deadline=now + left)
    return now + left


def test_a_countdown_is_not_red_with_most_of_its_time_left(learner_client, attempt):
    deadline = timed(attempt, limit=timedelta(minutes=60), left=timedelta(minutes=20))

    timer = timer_of(learner_client.get(question_url(attempt, 1)).content.decode())

    assert timer.group(1) == "timer"
    # The moment app.js turns it red, worked out here: the last 5 of 60 minutes.
    assert datetime.fromisoformat(timer.group(2)) == deadline - timedelta(minutes=5)


def test_a_countdown_is_red_in_its_last_stretch_even_without_javascript(learner_client, attempt):
    timed(attempt, limit=timedelta(minutes=60), left=timedelta(minutes=4))
    assert timer_of(learner_client.get(question_url(attempt, 1)).content.decode()).group(1) == "timer is-ending"

    # A 10-minute quiz: red for its last minute only, not with two minutes still to go.
    timed(attempt, limit=timedelta(minutes=10), left=timedelta(minutes=2))
    assert timer_of(learner_client.get(question_url(attempt, 1)).content.decode()).group(1) == "timer"
    timed(attempt, limit=timedelta(minutes=10), left=timedelta(seconds=50))
    assert timer_of(learner_client.get(question_url(attempt, 1)).content.decode()).group(1) == "timer is-ending"


def test_hidden_results_say_when_they_are_shown_without_a_doubled_full_stop(learner_client, attempt):
    reveal = (timezone.localtime() + timedelta(days=2)).replace(hour=18, minute=0, second=0, microsecond=0)
    Attempt.objects.filter(pk=attempt.pk).update(reveal_at=reveal)
    attempt.refresh_from_db()
    attempt.finish(now=timezone.now())

    html = learner_client.get(reverse("attempt_results", args=[attempt.pk])).content.decode()

    hidden = re.search(r'data-testid="score-hidden">(.*?)</p>', html, re.S).group(1)
    assert f"you see them {moment_text(reveal)}. Until then" in hidden
    assert hidden.count("at 18:00.") == 1 and "p.m." not in hidden and ".." not in hidden
    assert f"Started {moment_text(attempt.started_at)} · took" in html  # the same clock, 24-hour


def test_a_time_limit_reads_as_minutes_for_the_learner_and_the_instructor(learner, learner_client, teacher, teacher_client):
    classroom = make_classroom(teacher, learners=[learner])
    assignment = make_assignment(classroom, time_limit=timedelta(minutes=15), due_at=timezone.now() + timedelta(days=1))

    learner_page = learner_client.get(reverse("learner_assignment", args=[assignment.pk])).content.decode()
    teacher_client.post(reverse("assignment", args=[assignment.pk]), {"learner": learner.pk, "time_limit": "90"})
    teacher_page = teacher_client.get(reverse("assignment", args=[assignment.pk])).content.decode()

    assert "<dt>Time limit</dt><dd>15 min</dd>" in learner_page
    assert "<dt>Time limit</dt><dd>15 min</dd>" in teacher_page
    assert "<td>1 h 30 min</td>" in teacher_page  # the learner's own limit
    assert "0:15:00" not in learner_page + teacher_page
