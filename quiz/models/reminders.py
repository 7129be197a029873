"""What reminder emails went out: one row per learner and reminder (the day's digest, an
assignment opening, an assignment due tomorrow), claimed before the email is sent.

The row's unique key is what makes sending idempotent: two runs of `send_reminders` at once, on
one server or several, both try to insert it and only one can. A failed send keeps its row as
failed, and a later run tries again (up to MAX_TRIES)."""

from django.db import models
from django.utils import timezone

from .users import User


class ReminderSent(models.Model):
    class Kind(models.TextChoices):
        DIGEST = "digest", "Daily reviews digest"
        ASSIGNMENT_OPEN = "assignment_open", "Assignment opened"
        ASSIGNMENT_DUE = "assignment_due", "Assignment due tomorrow"

    class Status(models.TextChoices):
        SENDING = "sending", "Being sent"
        SENT = "sent", "Sent"
        FAILED = "failed", "Failed, to be retried"

    MAX_TRIES = 5

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="reminders_sent", db_index=False)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # What the reminder is about, unique per learner and kind: the learner's local date (ISO) for
    # the digest, the assignment's id for the others.
    key = models.CharField(max_length=32)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.SENDING)
    tries = models.PositiveSmallIntegerField(default=1)
    claimed_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)
    # Why the last try failed (the mail server's words), for the operator; never the email's text.
    error = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["-claimed_at", "-pk"]
        constraints = [models.UniqueConstraint(fields=["user", "kind", "key"], name="reminder_once")]
        indexes = [models.Index(fields=["status", "claimed_at"], name="reminder_retry")]

    def __str__(self):
        return f"{self.get_kind_display()} for {self.user_id} ({self.key}): {self.status}"
