"""Opt-in email reminders: a daily digest of due reviews at the learner's own local hour, and an
email when one of their assignments opens and a day before it is due. `send_reminders` is what
the `send_reminders` command (run by a timer) calls; `ReminderSettingsForm` is the switches in
Settings, and `unsubscribe_token` / `unsubscribe` are the one-click link every reminder carries.

An email says how many and when, never what: no question's or card's text and no answer, only
an assignment's title. Links in it are absolute (settings.SITE_URL), since no request is there.

Sending is idempotent across runs and servers: each reminder is claimed first by inserting its
ReminderSent row (unique per learner, kind and key), and only the run that inserted it sends.
A send that fails leaves the row "failed"; a later run claims it again while it is still
relevant (the digest on the same local day, an assignment within its window), up to MAX_TRIES.

Two clocks: `now`, passed in (tests pass a fixed one), decides what is due; the rows' own times
(claimed, sent, how long ago a claim was made) are the real clock's, read when they happen,
since they measure how long this run and others have been at it, and a run can last long.
"""

import logging
from dataclasses import dataclass
from datetime import timedelta
from functools import reduce
from itertools import islice
from operator import or_

from django import forms
from django.conf import settings
from django.core import signing
from django.core.mail import EmailMessage, get_connection
from django.db import IntegrityError, transaction
from django.db.models import Avg, Exists, F, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Least
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from quiz.lib.durations import spoken_wait
from quiz.models import Assignment, AssignmentOverride, Attempt, Enrollment, MemoryState, ReviewLog, User, count_of
from quiz.models.reminders import ReminderSent
from quiz.study.queue import Scope, queue_status

logger = logging.getLogger("quiz.reminders")

Kind = ReminderSent.Kind
Status = ReminderSent.Status

# How many learners (or assignments) one batch reads, and how many reminders one batch claims
# and sends through one mail connection.
BATCH_SIZE = 200
# "Is open" goes only for an assignment that opened within the last day: one that opened long
# before the learner turned reminders on (or joined the class) is old news, not an opening.
OPEN_WINDOW = timedelta(days=1)
# "Is due" goes once the due date is less than a day away, and only for an assignment that
# opened more than a day ago: otherwise the "is open" email, which names the due date, came
# within the last day, and two emails about one assignment in a day is one too many. It says
# "tomorrow" only when the due date is the next local date: across a 23-hour day (daylight
# saving starts), less than a day away can be two dates away.
DUE_WINDOW = timedelta(days=1)
# A failed send is tried again by a run at least this much later (a timer every 15 minutes
# retries at each run), so a run started twice by hand does not spend the tries in a minute.
RETRY_AFTER = timedelta(minutes=10)
# A row still "sending" after this long belongs to a run that crashed between claiming and
# marking it: it is tried again. If that run did hand the email to the mail server before
# crashing, the learner gets it twice; a crash in that instant is rare, a lost reminder is not.
STALE_AFTER = timedelta(minutes=30)
# No digest within this long of the last one, whatever its date: a learner who moves to a time
# zone where it is still (or already) another day would otherwise get a second one within hours.
# A learner who moves their hour earlier gets the next one this long after the last.
DIGEST_GAP = timedelta(hours=20)
# The learner's pace: their average measured review time over this many days, each review
# counted at most LONGEST_REVIEW (a longer one was a pause, not a review).
PACE_DAYS = 30
LONGEST_REVIEW = timedelta(minutes=2)

UNSUBSCRIBE_SALT = "quiz.reminders.unsubscribe"
# Which switch each unsubscribe link turns off, and what the page calls it.
LISTS = {
    "reviews": ("remind_reviews", "daily review reminder"),
    "assignments": ("remind_assignments", "assignment reminder"),
}


# --- Settings: the switches -------------------------------------------------------------------

HOURS = [(hour, f"{hour:02d}:00") for hour in range(24)]


class ReminderSettingsForm(forms.ModelForm):
    reminder_hour = forms.TypedChoiceField(choices=HOURS, coerce=int, label="Send the daily email at")

    class Meta:
        model = User
        fields = ["remind_reviews", "remind_assignments", "reminder_hour"]
        labels = {
            "remind_reviews": "Email me when reviews are due",
            "remind_assignments": "Email me about my assignments",
        }
        help_texts = {
            "remind_reviews": "Once a day, on days with reviews due: how many, and about how long they take. "
                              "Sent only to a verified email address.",
            "remind_assignments": "When an assignment of your classes opens, and a day before it is due if you have "
                                  "not submitted it. Sent only to a verified email address.",
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["reminder_hour"].help_text = f"Your local time ({self.instance.time_zone})."


# --- The unsubscribe link -----------------------------------------------------------------------

def unsubscribe_token(user, list_name):
    """A signed token naming the learner and the list: the link works without signing in, and
    only for what it names. No expiry: an old email's link must still stop the emails."""
    return signing.dumps({"user": user.pk, "list": list_name}, salt=UNSUBSCRIBE_SALT, compress=True)


def read_unsubscribe_token(token):
    """(user id, list name) from a token, or None for a tampered or unknown one."""
    try:
        payload = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        return None
    if not isinstance(payload, dict) or payload.get("list") not in LISTS or not isinstance(payload.get("user"), int):
        return None
    return payload["user"], payload["list"]


def unsubscribe(user_id, list_name):
    """Turn the list's switch off (idempotent: a second click changes nothing)."""
    switch, _ = LISTS[list_name]
    User.objects.filter(pk=user_id).update(**{switch: False})


def absolute_url(name, *args):
    return settings.SITE_URL + reverse(name, args=args)


# --- One reminder ------------------------------------------------------------------------------

@dataclass(eq=False)  # compared by identity: a batch asks which of its reminders were sent
class Reminder:
    """One email to one learner, with the key of its ReminderSent row."""

    user: User
    kind: str
    key: str
    list_name: str  # what its unsubscribe link turns off
    template: str  # templates/email/<template>.txt and <template>_subject.txt
    context: dict

    def describe(self):
        # The user's id, not their name or address: this goes to the operator's log.
        return f"{Kind(self.kind).label} for user {self.user.pk} ({self.key})"

    def email(self, connection):
        unsubscribe_url = absolute_url("unsubscribe", unsubscribe_token(self.user, self.list_name))
        context = {
            **self.context, "user": self.user, "list_name": self.list_name, "unsubscribe_url": unsubscribe_url,
            "settings_url": absolute_url("account_settings"),
        }
        # Dates in the learner's time zone, whoever runs the command.
        with timezone.override(self.user.zone):
            subject = render_to_string(f"email/{self.template}_subject.txt", context)
            body = render_to_string(f"email/{self.template}.txt", context)
        return EmailMessage(
            # One line whatever an instructor typed in a title: a line break in a subject is refused.
            subject=" ".join(subject.split()),
            body=body.strip() + "\n",
            to=[self.user.email],
            connection=connection,
            headers={
                "List-Unsubscribe": f"<{unsubscribe_url}>",
                "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",  # RFC 8058 one-click
            },
        )


def in_batches(queryset):
    """The queryset's rows in lists of BATCH_SIZE, by primary key: each batch one query, and
    rows that change meanwhile (a learner claimed by another run) neither skipped nor repeated."""
    last = 0
    while True:
        batch = list(queryset.filter(pk__gt=last).order_by("pk")[:BATCH_SIZE])
        if batch:
            yield batch
        if len(batch) < BATCH_SIZE:
            return  # a short batch was the last: no query to find nothing more
        last = batch[-1].pk


# --- Who may get email at all, and which rows are settled ---------------------------------------

def reachable_users():
    """Active, real accounts with a verified address (User.email_verified, as a query): nobody
    else is ever emailed. Placeholders stand in for deleted accounts."""
    return User.objects.filter(is_active=True, is_placeholder=False, email_verified_at__isnull=False).exclude(email="")


def retryable():
    """Claimed rows a run may claim again: failed a while ago, or stuck in "sending" (a crash),
    with tries left. By the real clock, as `claimed_at` is: judged by a run's start, a row that
    a long run claimed a minute ago would look stale, and be sent twice."""
    real_now = timezone.now()
    failed = Q(status=Status.FAILED, claimed_at__lte=real_now - RETRY_AFTER)
    stuck = Q(status=Status.SENDING, claimed_at__lte=real_now - STALE_AFTER)
    return (failed | stuck) & Q(tries__lt=ReminderSent.MAX_TRIES)


def settled():
    """Rows that mean "nothing to do": sent, being sent, or out of tries."""
    return ReminderSent.objects.exclude(retryable())


# --- The daily digest ------------------------------------------------------------------------------

def digest_reminders(now):
    """The digests due at `now`, batch by batch: learners who asked for them, whose local hour
    has come today (a skipped hour counts as come at the clock change), with no digest for
    their local today yet nor in the last DIGEST_GAP, and reviews due. One query per batch, and
    one per email for its count of new cards."""
    # By the real clock, as `claimed_at` is (the module's docstring).
    recent = settled().filter(user=OuterRef("pk"), kind=Kind.DIGEST, claimed_at__gt=timezone.now() - DIGEST_GAP)
    learners = reachable_users().filter(remind_reviews=True).filter(_hour_has_come_today(now), ~Exists(recent))
    learners = learners.annotate(due_reviews=_due_reviews(now), pace_ms=_pace_ms(now)).filter(due_reviews__gt=0)
    for batch in in_batches(learners):
        yield [_digest(learner, now) for learner in batch]


def _hour_has_come_today(now):
    """One term per time zone in use: the learner's local hour is at or past their reminder
    hour, and no settled digest carries their local date. On the day 2:00 is skipped, the
    clock reads 3:00 at the change, past 2; on the day 2:00 repeats, the first one sends and
    the row for the date stops the second."""
    names = reachable_users().filter(remind_reviews=True).values_list("time_zone", flat=True).distinct()
    terms = []
    for name in names:
        local = now.astimezone(User(time_zone=name).zone)  # an unknown name is UTC, as everywhere
        today = settled().filter(user=OuterRef("pk"), kind=Kind.DIGEST, key=local.date().isoformat())
        terms.append(Q(time_zone=name, reminder_hour__lte=local.hour) & ~Exists(today))
    return reduce(or_, terms, Q(pk__in=[]))


def _due_reviews(now):
    """How many items "Review due" holds now (Scope(REVIEW_KINDS).memories(...).due(now)), for
    each learner of the outer query: due flashcards and questions, less the questions one of
    their assignments holds back (Assignment.objects.holding_back, with the learner and the
    question taken from the memory row)."""
    held = Assignment.objects.holding_back(
        learner=OuterRef("user"), question=OuterRef("question"), now=now,
        learner_for_override=OuterRef(OuterRef("user")),
    )
    due = MemoryState.objects.filter(user=OuterRef("pk"), kind__in=MemoryState.REVIEW_KINDS).due(now)
    return count_of(due.filter(~Exists(held)))


def _pace_ms(now):
    """The learner's average measured time per review lately, in milliseconds, or None."""
    recent = ReviewLog.objects.filter(
        user=OuterRef("pk"), reviewed_at__gte=now - timedelta(days=PACE_DAYS), duration_ms__isnull=False
    )
    capped = Least(F("duration_ms"), Value(LONGEST_REVIEW // timedelta(milliseconds=1)), output_field=IntegerField())
    return Subquery(recent.order_by().values("user").annotate(pace=Avg(capped)).values("pace")[:1])


def _digest(learner, now):
    today = now.astimezone(learner.zone).date()
    reviews, pace_ms = learner.due_reviews, learner.pace_ms
    context = {
        "reviews": reviews,
        # Without a measured review (studied without JavaScript, or not lately), no estimate.
        "time_needed": spoken_wait(timedelta(milliseconds=reviews * float(pace_ms))) if pace_ms else "",
        "new_cards": queue_status(user=learner, scope=Scope(kinds=(MemoryState.Kind.CARD,)), now=now).new,
        "exam_date": learner.exam_date if learner.exam_date and learner.exam_date >= today else None,
        "exam_days": (learner.exam_date - today).days if learner.exam_date else None,
        "hour": f"{learner.reminder_hour:02d}:00",
        "page_url": absolute_url("review_due"),
    }
    return Reminder(learner, Kind.DIGEST, today.isoformat(), "reviews", "reminder_digest", context)


# --- Assignments -----------------------------------------------------------------------------------

def assignment_reminders(now):
    """The "is open" and "is due" emails due at `now`, in batches of at most BATCH_SIZE,
    read by batches of assignments whose dates (or one learner's override) fall in a window:
    five queries for each batch of assignments, whatever the number of learners. A batch of
    assignments can be a class of a thousand learners each: it is sent in several."""
    for assignments in in_batches(_assignments_in_window(now)):
        reminders = _assignment_batch(assignments, now)
        while batch := list(islice(reminders, BATCH_SIZE)):
            yield batch


def _assignments_in_window(now):
    opening = Q(opens_at__gt=now - OPEN_WINDOW, opens_at__lte=now)
    closing = Q(due_at__gt=now, due_at__lte=now + DUE_WINDOW)
    overridden = AssignmentOverride.objects.filter(assignment=OuterRef("pk")).filter(opening | closing)
    return (
        Assignment.objects.active()
        .filter(classroom__archived_at__isnull=True)
        .filter(opening | closing | Exists(overridden))
        .select_related("classroom")
    )


def _assignment_batch(assignments, now):
    by_id = {assignment.pk: assignment for assignment in assignments}
    enrollments = Enrollment.objects.filter(
        classroom__in={assignment.classroom_id for assignment in assignments},
        learner__in=reachable_users().filter(remind_assignments=True),
    ).select_related("learner")
    overrides = {
        (override.assignment_id, override.learner_id): override
        for override in AssignmentOverride.objects.filter(assignment__in=list(by_id))
    }
    submitted = set(Attempt.objects.finished().filter(assignment__in=list(by_id)).values_list("assignment", "user"))
    done = set(
        settled().filter(kind__in=(Kind.ASSIGNMENT_OPEN, Kind.ASSIGNMENT_DUE), key__in=[str(pk) for pk in by_id])
        .values_list("user", "kind", "key")
    )
    for enrollment in enrollments:
        learner = enrollment.learner
        for assignment in (a for a in assignments if a.classroom_id == enrollment.classroom_id):
            if (assignment.pk, learner.pk) in submitted:
                continue  # submitted: nothing to remind
            rules = assignment.rules_for(overrides.get((assignment.pk, learner.pk)))
            kind = assignment_reminder_kind(rules, now)
            if kind and (learner.pk, kind, str(assignment.pk)) not in done:
                yield _assignment_reminder(learner, assignment, rules, kind, now)


def assignment_reminder_kind(rules, now):
    """Which reminder the learner's dates (`rules`, their override applied) call for now, if any."""
    if now - OPEN_WINDOW < rules.opens_at <= now < rules.due_at:
        return Kind.ASSIGNMENT_OPEN
    if rules.opens_at <= now - OPEN_WINDOW and now < rules.due_at <= now + DUE_WINDOW:
        return Kind.ASSIGNMENT_DUE
    return None


def _assignment_reminder(learner, assignment, rules, kind, now):
    zone = learner.zone
    context = {
        "assignment": assignment,
        "classroom": assignment.classroom,
        "due_at": rules.due_at,
        # Local dates apart, which the email calls "today" or "tomorrow" (0 or 1) and otherwise
        # does not name: less than a day away is two dates away across a 23-hour day.
        "due_in_days": (rules.due_at.astimezone(zone).date() - now.astimezone(zone).date()).days,
        "page_url": absolute_url("learner_assignment", assignment.pk),
    }
    template = "reminder_assignment_open" if kind == Kind.ASSIGNMENT_OPEN else "reminder_assignment_due"
    return Reminder(learner, kind, str(assignment.pk), "assignments", template, context)


# --- Claiming and sending --------------------------------------------------------------------------

@dataclass(eq=False)
class Outcome:
    reminder: Reminder
    status: str  # "sent", "failed", "would send", or "taken" (another run claimed it first)


def send_reminders(*, now=None, dry_run=False):
    """Send every reminder due at `now` (default: the clock), in batches; [Outcome]. With
    `dry_run`, claim and send nothing and say what would go."""
    now = now or timezone.now()
    outcomes = []
    for batches in (digest_reminders(now), assignment_reminders(now)):
        for batch in batches:
            if dry_run:
                outcomes += [Outcome(reminder, "would send") for reminder in batch]
            else:
                outcomes += send_batch(batch)
    return outcomes


def send_batch(reminders):
    """Claim each reminder, send the claimed ones through one mail connection, and record how
    each went. A row is marked sent as soon as its email has gone: a crash mid-batch leaves
    only the email being sent to be sent again, not every one before it."""
    rows = {reminder: claim(reminder) for reminder in reminders}
    outcomes = [Outcome(reminder, "taken") for reminder, row in rows.items() if row is None]
    claimed = {reminder: row for reminder, row in rows.items() if row is not None}
    if not claimed:
        return outcomes
    statuses = {}
    try:
        with get_connection() as connection:
            for reminder, row in claimed.items():
                statuses[reminder] = "sent" if _send_one(reminder, row, connection) else "failed"
    except Exception as error:  # the connection itself failed: whatever was not sent failed with it
        for reminder, row in claimed.items():
            if reminder not in statuses:
                _record_failure(reminder, row, error)
                statuses[reminder] = "failed"
    return outcomes + [Outcome(reminder, statuses[reminder]) for reminder in claimed]


def claim(reminder):
    """The id of the reminder's ReminderSent row when this run may send it: it inserted the
    row, or took over one a failed or crashed run left; None when another run has it. The
    row's unique constraint (or the conditional UPDATE) lets only one run win, on any number
    of servers. Stamped with the real time of the claim, however long the run has lasted."""
    try:
        with transaction.atomic():
            row = ReminderSent.objects.create(
                user=reminder.user, kind=reminder.kind, key=reminder.key, claimed_at=timezone.now()
            )
        return row.pk
    except IntegrityError:
        pass
    ours = ReminderSent.objects.filter(user=reminder.user, kind=reminder.kind, key=reminder.key)
    if not ours.filter(retryable()).update(
        status=Status.SENDING, tries=F("tries") + 1, claimed_at=timezone.now(), error=""
    ):
        return None
    return ours.values_list("pk", flat=True).first()


def _send_one(reminder, row, connection):
    """Send one claimed reminder and mark its row sent; False (and the row marked failed) if the
    mail server refused it."""
    try:
        reminder.email(connection).send()
    except Exception as error:  # any refusal (SMTP, a bad address) must not stop the batch
        _record_failure(reminder, row, error)
        return False
    ReminderSent.objects.filter(pk=row).update(status=Status.SENT, sent_at=timezone.now(), error="")
    return True


def _record_failure(reminder, row, error):
    rows = ReminderSent.objects.filter(pk=row)
    rows.update(status=Status.FAILED, error=f"{type(error).__name__}: {error}"[:255])
    tries = rows.values_list("tries", flat=True).first() or 0
    gives_up = tries >= ReminderSent.MAX_TRIES
    logger.log(
        logging.ERROR if gives_up else logging.WARNING,
        "%s failed (try %s of %s%s): %s: %s", reminder.describe(), tries, ReminderSent.MAX_TRIES,
        ", giving up" if gives_up else ", to be retried", type(error).__name__, error,
    )
