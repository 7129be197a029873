"""What links an LMS course to a class here (quiz.lti): the course, as django-lti records it from
launches (lti_tool.LtiContext), becomes one Classroom, made by the first instructor who launches
from it and owned by them."""

from django.db import models

from .classes import Classroom


class LtiClass(models.Model):
    context = models.OneToOneField("lti_tool.LtiContext", on_delete=models.CASCADE, related_name="quiz_class")
    classroom = models.OneToOneField(Classroom, on_delete=models.CASCADE, related_name="lti_course")

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
