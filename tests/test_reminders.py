"""Opt-in email reminders: the daily digest at each learner's local hour (time zones, daylight
saving), assignment openings and deadlines, sent once whatever runs twice, retried after a
failure, each with a one-click unsubscribe link that works with or without a session."""

import logging
import re
from datetime import UTC, date, datetime, timedelta
from io import StringIO

import pytest
import time_machine
from django.conf import settings as project_settings
from django.contrib.messages import get_messages
from django.core import mail, signing
from django.core.mail.backends.base import BaseEmailBackend
from django.core.mail.backends.locmem import EmailBackend as MemoryBackend
from django.core.management import CommandError, call_command
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse

from quiz.accounts.reminders import (
    BATCH_SIZE,
    RETRY_AFTER,
    STALE_AFTER,
    UNSUBSCRIBE_SALT,
    ReminderSettingsForm,
    send_reminders,
    unsubscribe_token,
)
from quiz.models import Assignment, AssignmentOverride, Enrollment, User
from quiz.models.reminders import ReminderSent
from tests.class_factories import make_assignment, make_classroom, make_pool, take
from tests.factories import make_deck, make_question_set, make_user
from tests.helpers import logged_in, rate_item

Kind, Status = ReminderSent.Kind, ReminderSent.Status
UNSUBSCRIBE_LINK = re.compile(r"https?://[^/\s]+(/accounts/unsubscribe/[^/\s]+/)")

# A fixed instant, a Monday in June: 18:00 in Auckland (UTC+12), 23:00 the day before in Los Angeles (UTC-7).
JUNE = datetime(2026, 6, 1, 6, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def public_site(settings):
    # Tests run with DEBUG off, and the command refuses to send links to the development server.
    settings.SITE_URL = "https://learn.certify.org"


def make_learner(username, zone="UTC", hour=18, **fields):
    """A learner who turned on both reminders and verified their address."""
    defaults = {"email": f"{username}@example.com", "email_verified_at": JUNE - timedelta(days=30),
                "remind_reviews": True, "remind_assignments": True}
    return make_user(username, time_zone=zone, reminder_hour=hour, **{**defaults, **fields})


def make_due(learner, count, at, seconds=None):
    """`count` flashcards the learner got wrong the day before `at` (a learning step of minutes:
    due by `at`), each rating timed at `seconds` when given; the deck has as many cards again
    never studied (new)."""
    deck = make_deck(cards=count * 2)
    for card in deck.cards.order_by("position")[:count]:
        rate_item(learner, card, 1, at=at - timedelta(days=1), duration_ms=seconds and seconds * 1000)
    return deck


def run(now):
    """Run the command as the timer does, at `now` on a frozen clock; what it printed."""
    output = StringIO()
    with time_machine.travel(now, tick=False):
        call_command("send_reminders", stdout=output)
    return output.getvalue()


def send_at(now):
    """send_reminders at `now`, with the real clock frozen there too: rows are stamped, and
    judged stale or ready to retry, by the real clock."""
    with time_machine.travel(now, tick=False):
        return send_reminders(now=now)


def sent_to(username):
    return [message for message in mail.outbox if message.to == [f"{username}@example.com"]]


# --- The daily digest ------------------------------------------------------------------------------

def test_it_sends_one_digest_per_learner_per_local_day_however_often_it_runs(db):
    alice = make_learner("alice")
    make_due(alice, 3, JUNE)

    first = run(JUNE.replace(hour=18))
    again = run(JUNE.replace(hour=18, minute=15))
    run(JUNE.replace(hour=23, minute=59))

    assert len(sent_to("alice")) == 1
    assert f"Sent: Daily reviews digest for user {alice.pk} (2026-06-01)" in first
    assert "Sent 1 reminder(s); 0 failed." in first and "Sent 0 reminder(s)" in again
    assert ReminderSent.objects.get(user=alice, kind=Kind.DIGEST).key == "2026-06-01"
    run(JUNE.replace(hour=18) + timedelta(days=1))  # the next day: its own digest
    assert len(sent_to("alice")) == 2


def test_it_waits_for_the_learners_own_hour(db):
    alice = make_learner("alice", zone="Europe/Paris", hour=7)  # UTC+2 in June
    make_due(alice, 2, JUNE)

    run(datetime(2026, 6, 1, 4, 59, tzinfo=UTC))  # 6:59 in Paris
    assert not mail.outbox
    run(datetime(2026, 6, 1, 5, 0, tzinfo=UTC))  # 7:00 in Paris
    assert len(sent_to("alice")) == 1


def test_learners_in_two_zones_get_their_digest_on_their_own_day(db):
    kiri = make_learner("kiri", zone="Pacific/Auckland")  # JUNE is 18:00 on Mon 1 June there
    lou = make_learner("lou", zone="America/Los_Angeles")  # and 23:00 on Sun 31 May here
    make_due(kiri, 2, JUNE)
    make_due(lou, 2, JUNE)

    run(JUNE)
    run(JUNE + timedelta(hours=1))  # midnight in Los Angeles: a new day, but 0:00 is before 18:00

    assert (len(sent_to("kiri")), len(sent_to("lou"))) == (1, 1)
    keys = dict(ReminderSent.objects.values_list("user__username", "key"))
    assert keys == {"kiri": "2026-06-01", "lou": "2026-05-31"}
    # 18:00 on Mon 1 June in Los Angeles (13:00 on the 2nd in Auckland), but only 19 hours after
    # Lou's first, which went late (23:00): the next goes 20 hours after it.
    run(datetime(2026, 6, 2, 1, 0, tzinfo=UTC))
    assert (len(sent_to("kiri")), len(sent_to("lou"))) == (1, 1)
    run(datetime(2026, 6, 2, 2, 0, tzinfo=UTC))
    assert (len(sent_to("kiri")), len(sent_to("lou"))) == (1, 2)


def test_moving_west_to_a_zone_still_on_yesterday_sends_no_second_digest(db):
    kiri = make_learner("kiri", zone="Pacific/Auckland")
    make_due(kiri, 2, JUNE)
    run(JUNE)  # 18:00 on Mon 1 June in Auckland

    User.objects.filter(pk=kiri.pk).update(time_zone="America/Los_Angeles")
    run(JUNE + timedelta(minutes=15))  # 23:15 on Sun 31 May in Los Angeles: a date without a digest

    assert len(sent_to("kiri")) == 1
    run(datetime(2026, 6, 3, 1, 0, tzinfo=UTC))  # 18:00 on Tue 2 June in Los Angeles
    assert len(sent_to("kiri")) == 2


def test_moving_east_to_a_zone_already_on_tomorrow_sends_no_second_digest(db):
    lou = make_learner("lou", zone="America/Los_Angeles")
    make_due(lou, 2, JUNE)
    run(datetime(2026, 6, 1, 1, 0, tzinfo=UTC))  # 18:00 on Sun 31 May in Los Angeles

    User.objects.filter(pk=lou.pk).update(time_zone="Pacific/Auckland")
    run(JUNE)  # 18:00 on Mon 1 June in Auckland, 5 hours later

    assert len(sent_to("lou")) == 1
    run(JUNE + timedelta(days=1))  # 18:00 on Tue 2 June in Auckland
    assert len(sent_to("lou")) == 2


def test_a_skipped_reminder_hour_sends_at_the_clock_change(db):
    # Paris, Sun 29 March 2026: at 2:00 the clocks jump to 3:00, so 2:00 never happens.
    alice = make_learner("alice", zone="Europe/Paris", hour=2)
    make_due(alice, 2, datetime(2026, 3, 28, tzinfo=UTC))

    run(datetime(2026, 3, 29, 0, 59, tzinfo=UTC))  # 1:59 CET
    assert not mail.outbox
    run(datetime(2026, 3, 29, 1, 0, tzinfo=UTC))  # 3:00 CEST, the first instant at or past 2:00
    run(datetime(2026, 3, 29, 1, 30, tzinfo=UTC))
    assert len(sent_to("alice")) == 1


def test_a_repeated_reminder_hour_sends_once(db):
    # Paris, Sun 25 October 2026: at 3:00 the clocks go back to 2:00, so 2:00-3:00 happens twice.
    alice = make_learner("alice", zone="Europe/Paris", hour=2)
    make_due(alice, 2, datetime(2026, 10, 24, tzinfo=UTC))

    run(datetime(2026, 10, 24, 23, 59, tzinfo=UTC))  # 1:59 CEST
    assert not mail.outbox
    run(datetime(2026, 10, 25, 0, 0, tzinfo=UTC))  # the first 2:00 (CEST)
    run(datetime(2026, 10, 25, 1, 0, tzinfo=UTC))  # the second 2:00 (CET)
    run(datetime(2026, 10, 25, 1, 30, tzinfo=UTC))
    assert len(sent_to("alice")) == 1


def test_nothing_is_sent_when_nothing_is_due(db):
    alice = make_learner("alice")
    make_deck(cards=5)  # new cards alone do not make a reminder
    rate_item(alice, make_deck(cards=1).cards.get(), 4, at=JUNE - timedelta(days=1))  # Easy: due in days

    run(JUNE.replace(hour=18))

    assert not mail.outbox and not ReminderSent.objects.exists()


@pytest.mark.parametrize("fields", [
    {"email_verified_at": None},
    {"email": ""},
    {"remind_reviews": False},
    {"is_active": False},
    {"is_placeholder": True},
], ids=["unverified", "no-address", "switched-off", "inactive", "placeholder"])
def test_nobody_is_emailed_who_did_not_ask_or_cannot_receive(db, fields):
    alice = make_learner("alice", **fields)
    make_due(alice, 2, JUNE)

    run(JUNE.replace(hour=18))

    assert not mail.outbox and not ReminderSent.objects.exists()


def test_the_digest_says_how_many_how_long_new_cards_and_the_exam_countdown(db):
    alice = make_learner("alice", exam_date=date(2026, 6, 10))
    make_due(alice, 12, JUNE, seconds=40)  # 12 × 40 s = 8 min; the deck has 12 more cards never studied
    alice.new_cards_per_day = 3
    alice.save()

    [outcome] = send_reminders(now=JUNE.replace(hour=18))
    [message] = mail.outbox

    assert outcome.status == "sent"
    assert message.subject == "12 reviews due today (about 8 min)"
    assert "12 reviews due today (about 8 min at your pace) · 3 new cards · Your exam is in 9 days (Wed 10 Jun 2026)" in message.body
    assert "http://testserver" not in message.body and f"{_site()}{reverse('review_due')}" in message.body
    assert "at 18:00 your time" in message.body


def test_the_digest_says_no_time_without_a_measured_pace_nor_a_past_exam(db):
    alice = make_learner("alice", exam_date=date(2026, 5, 1))
    make_due(alice, 1, JUNE)  # rated without a measured time
    alice.new_cards_per_day = 0
    alice.save()

    send_reminders(now=JUNE.replace(hour=18))

    assert "1 review due today\n" in mail.outbox[0].body
    assert "exam" not in mail.outbox[0].body and "new card" not in mail.outbox[0].body


def test_a_question_held_back_by_an_assignment_is_not_counted_as_due(db, teacher):
    alice = make_learner("alice")
    question = make_question_set(questions=1).questions.get()
    rate_item(alice, question, 1, at=JUNE - timedelta(days=1))  # due, practised before it was assigned
    classroom = make_classroom(teacher, learners=[alice])
    make_assignment(classroom, make_pool(teacher, [question]), opens_at=JUNE - timedelta(days=2),
                    due_at=JUNE + timedelta(days=5), feedback_timing=Assignment.FeedbackTiming.AFTER_DUE)

    send_reminders(now=JUNE.replace(hour=18))

    assert not sent_to("alice")  # its answer stays hidden until the due date, so it is not reviewed before


def test_no_email_carries_a_question_a_card_or_an_answer(db, teacher):
    alice = make_learner("alice")
    question_set = make_question_set(questions=1)
    question = question_set.questions.get()
    question.stem = "Which port does ZORBLAX-STEM use?"
    question.save()
    question.choices.filter(is_correct=True).update(text="ZORBLAX-ANSWER 4242")
    rate_item(alice, question, 1, at=JUNE - timedelta(days=1))
    deck = make_deck(cards=1)
    deck.cards.update(front="ZORBLAX-FRONT", back="ZORBLAX-BACK")
    rate_item(alice, deck.cards.get(), 1, at=JUNE - timedelta(days=1))
    classroom = make_classroom(teacher, learners=[alice])
    make_assignment(classroom, make_pool(teacher, [question], title="Week 1 quiz"),
                    opens_at=JUNE.replace(hour=17), due_at=JUNE + timedelta(days=3))

    send_reminders(now=JUNE.replace(hour=18))

    assert {message.subject for message in mail.outbox} == {"2 reviews due today", "“Week 1 quiz” in Networking 101 is open"}
    for message in mail.outbox:
        assert "ZORBLAX" not in message.subject + message.body


# --- Assignments ---------------------------------------------------------------------------------

@pytest.fixture
def classroom(db, teacher):
    return make_classroom(teacher, learners=[make_learner("alice"), make_learner("bob")])


def test_an_opening_is_announced_once_to_each_learner_with_its_due_date(classroom):
    make_assignment(classroom, title="Week 1 quiz", opens_at=JUNE - timedelta(hours=2),
                    due_at=datetime(2026, 6, 5, 15, 0, tzinfo=UTC))
    User.objects.filter(username="bob").update(time_zone="Europe/Paris")

    send_reminders(now=JUNE)
    send_reminders(now=JUNE + timedelta(hours=1))

    [to_alice], [to_bob] = sent_to("alice"), sent_to("bob")
    assert to_alice.subject == "“Week 1 quiz” in Networking 101 is open"
    assert "is open, due Fri 5 Jun 2026, 15:00." in to_alice.body
    assert "is open, due Fri 5 Jun 2026, 17:00." in to_bob.body  # in Bob's time zone
    assert f"{_site()}/assignments/" in to_alice.body


def test_an_assignment_that_opened_long_ago_is_not_announced(classroom):
    make_assignment(classroom, opens_at=JUNE - timedelta(days=3), due_at=JUNE + timedelta(days=5))

    send_reminders(now=JUNE)

    assert not mail.outbox


def test_a_deadline_is_announced_a_day_before_once_and_not_to_who_submitted(classroom):
    assignment = make_assignment(classroom, title="Week 1 quiz", opens_at=JUNE - timedelta(days=5),
                                 due_at=JUNE + timedelta(days=1))
    bob = User.objects.get(username="bob")
    assert take(assignment, bob, [0, 1, 2], start=JUNE - timedelta(days=1)).finished_at is not None

    send_reminders(now=JUNE - timedelta(minutes=1))  # due in a day and a minute: not yet
    assert not mail.outbox
    send_reminders(now=JUNE)
    send_reminders(now=JUNE + timedelta(hours=3))

    [message] = mail.outbox
    assert message.to == ["alice@example.com"]
    assert message.subject == "“Week 1 quiz” in Networking 101 is due tomorrow"
    assert "is due tomorrow, Tue 2 Jun 2026, 06:00. You have not submitted it yet." in message.body


# Paris, Sat 28 March 2026 at 23:30: the clocks jump from 2:00 to 3:00 overnight, so Sunday has 23
# hours and less than a day from now reaches Monday.
BEFORE_SPRING_FORWARD = datetime(2026, 3, 28, 22, 30, tzinfo=UTC)


@pytest.mark.parametrize(("due_at", "subject", "body"), [
    (datetime(2026, 3, 28, 22, 50, tzinfo=UTC), "is due today", "is due today, Sat 28 Mar 2026, 23:50."),
    (datetime(2026, 3, 29, 18, 0, tzinfo=UTC), "is due tomorrow", "is due tomorrow, Sun 29 Mar 2026, 20:00."),
    (datetime(2026, 3, 29, 22, 15, tzinfo=UTC), "is due Mon 30 Mar 2026, 00:15", "is due Mon 30 Mar 2026, 00:15."),
], ids=["today", "tomorrow", "two-dates-away"])
def test_a_deadline_is_called_tomorrow_only_on_the_next_local_date(classroom, due_at, subject, body):
    User.objects.filter(username="alice").update(time_zone="Europe/Paris")
    make_assignment(classroom, title="Week 1 quiz", opens_at=BEFORE_SPRING_FORWARD - timedelta(days=5), due_at=due_at)

    send_reminders(now=BEFORE_SPRING_FORWARD)

    [message] = sent_to("alice")
    assert message.subject == f"“Week 1 quiz” in Networking 101 {subject}"
    assert f"“Week 1 quiz” in Networking 101 {body} You have not submitted it yet." in message.body


def test_a_learners_own_dates_decide_their_reminders(classroom):
    assignment = make_assignment(classroom, opens_at=JUNE - timedelta(days=5), due_at=JUNE + timedelta(hours=12))
    alice = User.objects.get(username="alice")
    # Alice has three more days; Bob's reminder goes by the class's date.
    AssignmentOverride.objects.create(assignment=assignment, learner=alice, due_at=JUNE + timedelta(days=3))

    send_reminders(now=JUNE)
    assert [message.to for message in mail.outbox] == [["bob@example.com"]]
    send_reminders(now=JUNE + timedelta(days=2, hours=1))
    assert [message.to for message in mail.outbox][1:] == [["alice@example.com"]]


def test_a_late_start_is_announced_when_the_learner_opens(classroom):
    assignment = make_assignment(classroom, opens_at=JUNE - timedelta(days=5), due_at=JUNE + timedelta(days=5))
    alice = User.objects.get(username="alice")
    AssignmentOverride.objects.create(assignment=assignment, learner=alice, opens_at=JUNE - timedelta(hours=1))

    send_reminders(now=JUNE)

    assert [(message.to, "is open" in message.subject) for message in mail.outbox] == [(["alice@example.com"], True)]


@pytest.mark.parametrize("archived", ["class", "assignment"])
def test_nothing_about_an_archived_class_or_assignment(classroom, archived):
    archived_at = JUNE - timedelta(minutes=5)
    make_assignment(classroom, opens_at=JUNE - timedelta(hours=1), due_at=JUNE + timedelta(hours=2),
                    archived_at=archived_at if archived == "assignment" else None)
    if archived == "class":
        classroom.archive(now=archived_at)

    send_reminders(now=JUNE)

    assert not mail.outbox


def test_assignment_reminders_respect_their_own_switch(classroom):
    User.objects.filter(username="alice").update(remind_assignments=False)
    make_assignment(classroom, opens_at=JUNE - timedelta(hours=1), due_at=JUNE + timedelta(days=5))

    send_reminders(now=JUNE)

    assert [message.to for message in mail.outbox] == [["bob@example.com"]]


# --- Failures, retries, dry runs ----------------------------------------------------------------

class RefusingBackend(BaseEmailBackend):
    """A mail server that refuses every message."""

    def send_messages(self, messages):
        raise ConnectionRefusedError("the mail server said no")


def test_a_failed_send_is_recorded_logged_and_retried_by_a_later_run(db, settings, caplog):
    alice = make_learner("alice")
    make_due(alice, 2, JUNE)
    settings.EMAIL_BACKEND = "tests.test_reminders.RefusingBackend"
    at = JUNE.replace(hour=18)

    with caplog.at_level(logging.WARNING, logger="quiz.reminders"):
        [outcome] = send_at(at)

    row = ReminderSent.objects.get(user=alice)
    assert (outcome.status, row.status, row.tries) == ("failed", Status.FAILED, 1)
    assert "the mail server said no" in row.error
    assert f"for user {alice.pk}" in caplog.text and "to be retried" in caplog.text
    assert send_at(at + timedelta(minutes=1)) == []  # too soon: a run started twice by hand
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    send_at(at + RETRY_AFTER)
    row.refresh_from_db()
    assert (row.status, row.tries, row.error, len(mail.outbox)) == (Status.SENT, 2, "", 1)


def test_it_gives_up_after_the_last_try(db, settings, caplog):
    alice = make_learner("alice")
    make_due(alice, 2, JUNE)
    settings.EMAIL_BACKEND = "tests.test_reminders.RefusingBackend"
    at = JUNE.replace(hour=18)

    for attempt in range(ReminderSent.MAX_TRIES + 2):
        send_at(at + attempt * RETRY_AFTER)

    assert ReminderSent.objects.get(user=alice).tries == ReminderSent.MAX_TRIES
    assert "giving up" in caplog.text


def test_a_digest_left_sending_by_a_crash_is_sent_again_later_and_not_the_next_day(db):
    alice = make_learner("alice")
    make_due(alice, 2, JUNE)
    at = JUNE.replace(hour=18)
    ReminderSent.objects.create(user=alice, kind=Kind.DIGEST, key="2026-06-01", claimed_at=at)

    assert send_at(at + timedelta(minutes=5)) == []  # another run may be sending it now
    send_at(at + STALE_AFTER)
    assert len(mail.outbox) == 1
    ReminderSent.objects.filter(user=alice).update(status=Status.FAILED, claimed_at=at)
    send_at(JUNE.replace(hour=23, minute=59) + timedelta(days=1))  # a failed digest of yesterday
    assert ReminderSent.objects.get(user=alice, key="2026-06-01").status == Status.FAILED
    assert ReminderSent.objects.get(user=alice, key="2026-06-02").status == Status.SENT


def test_a_dry_run_lists_what_would_go_and_sends_nothing(db, capsys):
    alice = make_learner("alice")
    make_due(alice, 2, JUNE)

    with time_machine.travel(JUNE.replace(hour=18), tick=False):
        call_command("send_reminders", "--dry-run")

    assert f"Would send: Daily reviews digest for user {alice.pk} (2026-06-01)" in capsys.readouterr().out
    assert not mail.outbox and not ReminderSent.objects.exists()


class NextRunMidSend(MemoryBackend):
    """A slow mail server: while it takes the first email, the timer starts the next run (at
    `next_run_at`, on the real clock)."""

    next_run_at = None

    def send_messages(self, messages):
        at, NextRunMidSend.next_run_at = NextRunMidSend.next_run_at, None
        if at:
            with time_machine.travel(at, tick=False):
                send_reminders()
        return super().send_messages(messages)


def test_a_reminder_claimed_late_in_a_long_run_is_not_stale_to_the_next_run(db, settings):
    alice = make_learner("alice")
    make_due(alice, 2, JUNE)
    start = JUNE.replace(hour=18)
    settings.EMAIL_BACKEND = "tests.test_reminders.NextRunMidSend"
    NextRunMidSend.next_run_at = start + timedelta(minutes=45)

    # The run that started at 18:00 reaches Alice 40 minutes later (more than STALE_AFTER), and
    # the 18:45 run starts while her email goes: her row is 5 minutes old, not stale.
    with time_machine.travel(start + timedelta(minutes=40), tick=False):
        [outcome] = send_reminders(now=start)

    assert outcome.status == "sent" and len(sent_to("alice")) == 1
    assert ReminderSent.objects.get(user=alice).claimed_at == start + timedelta(minutes=40)


class WatchingBackend(MemoryBackend):
    """The test mail server, noting the most reminders claimed and not yet sent when a
    connection opens (what a crash in it could send twice)."""

    most_in_flight = 0

    def open(self):
        in_flight = ReminderSent.objects.filter(status=Status.SENDING).count()
        WatchingBackend.most_in_flight = max(WatchingBackend.most_in_flight, in_flight)
        return super().open()


def test_a_class_of_1200_is_sent_in_batches_and_each_reminder_marked_sent(db, teacher, settings):
    classroom = make_classroom(teacher)
    learners = User.objects.bulk_create(
        User(username=f"learner{n}", email=f"learner{n}@example.com", email_verified_at=JUNE - timedelta(days=30),
             remind_assignments=True, password="!")
        for n in range(1200)
    )
    Enrollment.objects.bulk_create(Enrollment(classroom=classroom, learner=learner) for learner in learners)
    make_assignment(classroom, opens_at=JUNE - timedelta(hours=1), due_at=JUNE + timedelta(days=5))
    settings.EMAIL_BACKEND = "tests.test_reminders.WatchingBackend"
    WatchingBackend.most_in_flight = 0

    first = send_at(JUNE)
    again = send_at(JUNE + STALE_AFTER + timedelta(minutes=1))  # a row left "sending" would go again

    assert [outcome.status for outcome in first] == ["sent"] * 1200 and len(mail.outbox) == 1200
    assert again == []
    assert ReminderSent.objects.filter(status=Status.SENT).count() == 1200
    assert WatchingBackend.most_in_flight <= BATCH_SIZE


@pytest.mark.parametrize("site", [
    "http://127.0.0.1:8000", "http://localhost:8000", "https://localhost", "learn.certify.org",  # the last: no scheme
])
def test_it_refuses_to_send_links_to_the_development_server_in_production(db, settings, site):
    alice = make_learner("alice")
    make_due(alice, 2, JUNE)
    settings.SITE_URL, settings.DEBUG = site, False

    with pytest.raises(CommandError, match="DJANGO_SITE_URL"):
        run(JUNE.replace(hour=18))

    assert not mail.outbox and not ReminderSent.objects.exists()
    output = StringIO()
    with time_machine.travel(JUNE.replace(hour=18), tick=False):
        call_command("send_reminders", "--dry-run", stdout=output)  # sends nothing, so it may say what would go
    assert "Would send 1 reminder(s)." in output.getvalue()
    settings.DEBUG = True  # a developer trying it out
    assert "Sent 1 reminder(s)" in run(JUNE.replace(hour=18))


def test_a_batch_costs_the_same_queries_whatever_its_learners_but_one_count_and_one_claim_each(
        db, django_assert_num_queries):
    learners = [make_learner(f"learner{n}") for n in range(4)]
    for learner in learners:
        make_due(learner, 1, JUNE)

    # The time zones in use; the learners due a digest, with their counts; per learner: its new
    # cards, its claim (a savepoint around the INSERT: 3 queries), its row marked sent once the
    # email has gone; the assignments in their window (none).
    with django_assert_num_queries(2 + 4 * (1 + 3 + 1) + 1):
        outcomes = send_reminders(now=JUNE.replace(hour=18))

    assert [outcome.status for outcome in outcomes] == ["sent"] * 4


# --- The unsubscribe link -------------------------------------------------------------------------

@pytest.fixture
def alice_link(db):
    """Alice, who gets digests, and the unsubscribe link of the one she got."""
    alice = make_learner("alice")
    make_due(alice, 2, JUNE)
    send_reminders(now=JUNE.replace(hour=18))
    [message] = mail.outbox
    return alice, UNSUBSCRIBE_LINK.search(message.body).group(1), message


def test_every_reminder_has_one_click_unsubscribe_headers_to_its_link(alice_link):
    _, link, message = alice_link

    assert message.extra_headers["List-Unsubscribe"] == f"<{_site()}{link}>"
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert "List-Unsubscribe-Post: List-Unsubscribe=One-Click" in message.message().as_string()


def test_opening_the_link_asks_and_changes_nothing(alice_link):
    alice, link, _ = alice_link

    response = Client().get(link)

    assert response.status_code == 200
    assert "Stop daily review reminder emails?" in response.content.decode()
    assert User.objects.get(pk=alice.pk).remind_reviews


@pytest.mark.parametrize("who", ["nobody", "alice", "someone else"])
def test_the_button_turns_the_list_off_signed_in_or_not(alice_link, who):
    alice, link, _ = alice_link
    bob = make_learner("bob")
    client = {"nobody": Client(), "alice": logged_in(alice), "someone else": logged_in(bob)}[who]

    response = client.post(link)

    assert response.status_code == 200
    assert "You will get no more daily review reminder emails" in response.content.decode()
    alice.refresh_from_db()
    assert (alice.remind_reviews, alice.remind_assignments) == (False, True)  # only the list the link names
    assert User.objects.get(pk=bob.pk).remind_reviews  # whoever is signed in
    assert ("only that account's" in response.content.decode()) == (who == "someone else")


def test_a_mail_providers_one_click_post_works_twice(alice_link):
    alice, link, _ = alice_link
    client = Client(enforce_csrf_checks=True)

    first = client.post(link, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded")
    again = client.post(link, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded")

    assert (first.status_code, again.status_code) == (200, 200)
    assert not User.objects.get(pk=alice.pk).remind_reviews


def test_an_assignment_reminders_link_turns_off_assignment_reminders_only(db):
    alice = make_learner("alice")

    Client().post(reverse("unsubscribe", args=[unsubscribe_token(alice, "assignments")]))

    alice.refresh_from_db()
    assert (alice.remind_reviews, alice.remind_assignments) == (True, False)


@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize("token", ["tampered", "garbage", "wrong-list"])
def test_a_tampered_link_is_a_clear_400_and_changes_nothing(alice_link, method, token):
    alice, link, _ = alice_link
    signed = link.split("/")[-2]
    tokens = {
        "tampered": signed[:-2] + ("AA" if not signed.endswith("AA") else "BB"),
        "garbage": "not-a-token",
        "wrong-list": _token_for({"user": alice.pk, "list": "everything"}),
    }

    response = getattr(Client(), method)(reverse("unsubscribe", args=[tokens[token]]))

    assert response.status_code == 400
    assert "not recognised" in response.content.decode()
    assert User.objects.get(pk=alice.pk).remind_reviews


def test_the_link_refuses_other_methods(alice_link):
    _, link, _ = alice_link

    assert Client().put(link).status_code == 405


# --- Settings ------------------------------------------------------------------------------------

def test_settings_save_the_switches_and_the_hour(db):
    alice = make_user("alice", email="alice@example.com", email_verified_at=JUNE)

    response = logged_in(alice).post(reverse("reminder_settings"),
                                     {"remind_reviews": "on", "reminder_hour": "7"}, follow=False)

    assert response.status_code == 302 and response["Location"] == reverse("account_settings") + "#reminders"
    alice.refresh_from_db()
    assert (alice.remind_reviews, alice.remind_assignments, alice.reminder_hour) == (True, False, 7)


@pytest.mark.parametrize("hour", ["24", "-1", "seven", ""])
def test_settings_refuse_an_hour_that_is_not_one_and_save_nothing(db, hour):
    alice = make_user("alice")
    client = logged_in(alice)

    response = client.post(reverse("reminder_settings"), {"remind_reviews": "on", "reminder_hour": hour})

    assert response.status_code == 302 and response["Location"] == reverse("account_settings") + "#reminders"
    alice.refresh_from_db()
    assert (alice.remind_reviews, alice.reminder_hour) == (False, 18)
    [message] = list(get_messages(response.wsgi_request))
    assert message.level_tag == "error" and "Send the daily email at" in message.message


def test_settings_say_an_unverified_address_gets_nothing_yet(db):
    alice = make_user("alice", email="alice@example.com")

    response = logged_in(alice).post(reverse("reminder_settings"), {"remind_reviews": "on", "reminder_hour": "18"})

    [message] = list(get_messages(response.wsgi_request))
    assert "once your email address is verified" in message.message


def test_the_settings_fragment_shows_hours_as_clock_times(db):
    alice = make_user("alice", time_zone="Europe/Paris")
    html = render_to_string("quiz/_reminder_settings.html", {"reminder_form": ReminderSettingsForm(instance=alice),
                                                              "user": alice})

    assert '<option value="18" selected>18:00</option>' in html
    assert "Europe/Paris" in html and "will start once it is" in html
    assert f'action="{reverse("reminder_settings")}"' in html


def test_settings_are_for_signed_in_posts_only(db):
    alice = make_user("alice")

    assert Client().post(reverse("reminder_settings"), {"reminder_hour": "7"}).status_code == 302
    assert logged_in(alice).get(reverse("reminder_settings")).status_code == 405
    assert User.objects.get(pk=alice.pk).reminder_hour == 18


def _site():
    return project_settings.SITE_URL


def _token_for(payload):
    return signing.dumps(payload, salt=UNSUBSCRIBE_SALT)
