"""What links an LMS course to a class here (quiz.lti): the course, as django-lti records it from
launches (lti_tool.LtiContext), becomes one Classroom, made by the first instructor who launches
from it and owned by them."""

from datetime import timedelta

from django.db import models

from .classes import Classroom
from .users import User


class LtiClass(models.Model):
    context = models.OneToOneField("lti_tool.LtiContext", on_delete=models.CASCADE, related_name="quiz_class")
    classroom = models.OneToOneField(Classroom, on_delete=models.CASCADE, related_name="lti_course")
    roster_synced_at = models.DateTimeField(null=True, blank=True)  # the last roster sync (quiz.lti.roster)

    def __str__(self):
        return f"{self.context} → {self.classroom}"


class LtiNonce(models.Model):
    """A launch's nonce, kept once the launch was accepted: the same id_token posted again is
    refused (pylti1p3 only checks that the nonce was issued). Kept a day; a launch must be
    fresher than that (quiz.lti.launches.MAX_AGE)."""

    issuer = models.CharField(max_length=255)
    nonce = models.CharField(max_length=255)
    used_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["issuer", "nonce"], name="lti_nonce_once")]
        indexes = [models.Index(fields=["used_at"], name="lti_nonce_used_at")]

    def __str__(self):
        return self.nonce


class LtiGradeLink(models.Model):
    """Where an assignment's scores go in an LMS: the line item (gradebook column) its deep link
    asked for, as the LMS names it in the launches of that link (quiz.lti.grades)."""

    assignment = models.OneToOneField("quiz.Assignment", on_delete=models.CASCADE, related_name="lti_grades")
    line_item_url = models.URLField(max_length=500)

    def __str__(self):
        return self.line_item_url


class GradeSend(models.Model):
    """A learner's counted score on a linked assignment, for the LMS: the latest one to send
    (`version`) and the last one it took (`sent_version`). A change of score makes a new version;
    a failed call leaves it waiting, and the catch-up timer tries again: none is lost, and an
    older score never overwrites a newer one (each carries the moment it changed)."""

    assignment = models.ForeignKey("quiz.Assignment", on_delete=models.CASCADE, related_name="grade_sends")
    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    score = models.PositiveSmallIntegerField(null=True, blank=True)  # 0-100; None: no finished attempt yet
    status = models.CharField(max_length=20)  # the learner's standing (quiz.teaching.standing.Status)
    changed_at = models.DateTimeField()
    version = models.PositiveIntegerField(default=1)
    sent_version = models.PositiveIntegerField(default=0)
    sent_at = models.DateTimeField(null=True, blank=True)
    tries = models.PositiveSmallIntegerField(default=0)  # failed calls since the last success
    retry_after = models.DateTimeField(null=True, blank=True)  # after a failure: not tried again before
    last_error = models.CharField(max_length=300, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["assignment", "learner"], name="grade_send_once")]

    def __str__(self):
        return f"{self.learner} on {self.assignment_id}: {self.score}"

    @property
    def waiting(self):
        return self.version > self.sent_version

    @staticmethod
    def back_off(tries):
        """How long to wait after the `tries`-th failed call in a row: 2, 4, 8... minutes, at
        most a day. A score the LMS keeps refusing is tried again, ever more rarely, never dropped."""
        return timedelta(minutes=min(2 ** min(tries, 11), 24 * 60))
