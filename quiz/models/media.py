"""Images in content: a question's or a card's texts refer to them by name (`media:<name>` in
Markdown, rewritten from the files an Anki package or a Moodle XML file carries).

Each image belongs to the set or deck whose items show it, and is served only to those who may
see that set or deck (quiz.views.media), through Django's storage API: the file system under
MEDIA_ROOT by default, an S3-compatible store when configured. Names are random, so a file name
says nothing about an answer."""

import secrets

from django.db import models
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from .content import Deck, QuestionSet


def new_media_name(extension):
    return f"{secrets.token_hex(12)}.{extension}"


class MediaFileQuerySet(models.QuerySet):
    def visible_to(self, user):
        """Images of the sets and decks `user` may see (visitors: the library's)."""
        return self.filter(
            Q(question_set__in=QuestionSet.objects.visible_to(user)) | Q(deck__in=Deck.objects.visible_to(user))
        )

    def shown_in_attempts_of(self, user):
        """Images a question of one of `user`'s attempts shows, or of an attempt in a class they
        teach: an assignment's pool may hold questions of a set the learner cannot see (its
        instructor's private one), and the attempt still shows them."""
        from .slots import AttemptSlot

        if not user.is_authenticated:
            return self.none()
        slots = AttemptSlot.objects.filter(
            Q(attempt__user=user) | Q(attempt__assignment__classroom__owner=user),
            question__question_set=OuterRef("question_set"),
        )
        name = OuterRef("name")
        shows = (
            Q(stem__contains=name) | Q(question__stem__contains=name) | Q(question__explanation__contains=name)
            | Q(question__choices__text__contains=name) | Q(question__choices__match__contains=name)
        )
        return self.filter(question_set__isnull=False).filter(Exists(slots.filter(shows)))


class MediaFile(models.Model):
    name = models.CharField(max_length=64, unique=True)
    file = models.FileField(upload_to="content/", max_length=200)
    question_set = models.ForeignKey(
        QuestionSet, null=True, blank=True, on_delete=models.CASCADE, related_name="media", db_index=False
    )
    deck = models.ForeignKey(Deck, null=True, blank=True, on_delete=models.CASCADE, related_name="media", db_index=False)
    # Required in the editor; an imported image without one is listed on the import's preview.
    alt = models.CharField(max_length=500, blank=True)
    content_type = models.CharField(max_length=32)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    size = models.PositiveIntegerField()
    # The same picture twice in one set or deck is stored once.
    sha256 = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)

    objects = MediaFileQuerySet.as_manager()

    class Meta:
        ordering = ["pk"]
        indexes = [
            models.Index(fields=["question_set", "sha256"], name="media_set_hash"),
            models.Index(fields=["deck", "sha256"], name="media_deck_hash"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(question_set__isnull=False, deck__isnull=True) | Q(question_set__isnull=True, deck__isnull=False),
                name="media_belongs_to_one_container",
            ),
        ]

    def __str__(self):
        return self.name
