"""The app's user: a learner, or also an instructor; their time zone, daily limits, exam date
and their own scheduler settings live on the row, so a page has them without a query."""

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.contrib.auth.models import AbstractUser
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower
from django.utils import timezone

from quiz.lib.days import start_of_day

# The one range of both retentions a learner chooses (the scheduler's desired retention and the
# exam target): FSRS's simulator is reliable from 70%, and above 97% reviews grow without bound.
RETENTION_RANGE = (0.70, 0.97)


class User(AbstractUser):
    """A learner, and with `is_instructor` also someone who runs classes."""

    time_zone = models.CharField(max_length=64, default="UTC", help_text="IANA name, e.g. Europe/Paris")
    new_cards_per_day = models.PositiveSmallIntegerField(
        default=20, help_text="How many new flashcards a study session introduces per day"
    )
    exam_date = models.DateField(null=True, blank=True, help_text="The learner's exam day, for recall forecasts")
    # The share of the bank the learner wants to recall on exam day: what the exam plan aims for.
    target_retention = models.FloatField(
        default=0.9, validators=[MinValueValidator(RETENTION_RANGE[0]), MaxValueValidator(RETENTION_RANGE[1])],
        help_text="The share of your bank to recall on exam day (70% to 97%)",
    )
    # What the scheduler aims for: the predicted recall at which a review falls due. Higher means
    # more reviews; see Settings for the workload each choice costs.
    desired_retention = models.FloatField(
        default=0.9,
        validators=[MinValueValidator(RETENTION_RANGE[0]), MaxValueValidator(RETENTION_RANGE[1])],
        help_text="The chance of recalling an item when it comes due (70% to 97%). Higher means more reviews.",
    )
    # The learner's own FSRS parameters (21 numbers) once a fit beat the defaults on their later
    # reviews (quiz.study.personal); empty: the defaults. On the user row, so choosing the
    # learner's scheduler costs no query; each fit's record is a ScheduleFit.
    fsrs_parameters = models.JSONField(null=True, blank=True, help_text="Personal FSRS parameters, if adopted")
    is_instructor = models.BooleanField(default=False, help_text="May create classes, question pools and assignments")
    # The email is verified when its owner followed the signed link sent to it (quiz.accounts.emails);
    # until then no reminder or password reset goes to it. `email_changed_at` moves with every change
    # of address, so a link sent for an earlier address (or used once) never verifies a later one.
    email_verified_at = models.DateTimeField(null=True, blank=True)
    email_changed_at = models.DateTimeField(null=True, blank=True)
    # Opt-in email reminders (quiz.accounts.reminders): a daily digest of due reviews at the learner's
    # local hour, and assignment deadlines. Off until the learner turns them on.
    remind_reviews = models.BooleanField(default=False, help_text="A daily email when reviews are due")
    remind_assignments = models.BooleanField(
        default=False, help_text="An email when an assignment opens, and a day before it is due"
    )
    reminder_hour = models.PositiveSmallIntegerField(
        default=18, validators=[MaxValueValidator(23)], help_text="The hour of your day the daily email comes at"
    )
    # An account that stands in for a deleted one (quiz.accounts.deletion): "Deleted learner …" keeps
    # a class's past answers without naming anyone, "Deleted author" keeps content others studied.
    # It cannot sign in and receives nothing.
    is_placeholder = models.BooleanField(default=False)

    class Meta(AbstractUser.Meta):
        constraints = [
            models.CheckConstraint(
                condition=Q(target_retention__gte=RETENTION_RANGE[0], target_retention__lte=RETENTION_RANGE[1]),
                name="user_target_retention_range",
            ),
            models.CheckConstraint(
                condition=Q(desired_retention__gte=RETENTION_RANGE[0], desired_retention__lte=RETENTION_RANGE[1]),
                name="user_desired_retention_range",
            ),
            models.CheckConstraint(condition=Q(reminder_hour__lte=23), name="user_reminder_hour_range"),
            # An email is optional, but one given belongs to one account only, whatever its
            # letter case: a reset link must reach the one person it was asked for.
            models.UniqueConstraint(
                Lower("email"), condition=~Q(email=""), name="user_email_unique_when_given",
                violation_error_message="Another account already uses this email address.",
            ),
        ]

    @property
    def email_verified(self):
        return bool(self.email) and self.email_verified_at is not None

    @property
    def zone(self):
        try:
            return ZoneInfo(self.time_zone)
        except (ZoneInfoNotFoundError, ValueError):
            return ZoneInfo("UTC")

    def start_of_today(self, now=None):
        """When the learner's current day began, in UTC (daily limits reset here):
        its first midnight if midnight repeats, the clock change if midnight is skipped."""
        return start_of_day((now or timezone.now()).astimezone(self.zone).date(), self.zone)
