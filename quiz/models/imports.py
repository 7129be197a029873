"""Imports in the browser: what a user uploaded or pasted, kept between its preview and its apply."""

from django.db import models
from django.utils import timezone

from .users import User


class PendingImport(models.Model):
    """Documents a user is importing, kept from the preview to the apply so that applying writes
    exactly what was previewed, and only once: applying claims the row (`applied_at`) in the
    same transaction that saves the content, so a second click, a reload or a concurrent apply
    finds it claimed and writes nothing."""

    owner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+", db_index=False)
    format = models.CharField(max_length=8, blank=True)  # empty: recognised from each file's content
    created_at = models.DateTimeField(default=timezone.now)
    applied_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["owner", "created_at"], name="pending_import_owner")]

    def __str__(self):
        return f"import by {self.owner} at {self.created_at:%Y-%m-%d %H:%M}"


class PendingFile(models.Model):
    """One uploaded file or pasted text of a pending import, as its bytes; `name` identifies the
    set or deck it becomes among its owner's content (importing it again updates that one)."""

    pending = models.ForeignKey(PendingImport, on_delete=models.CASCADE, related_name="files")
    name = models.CharField(max_length=255)
    data = models.BinaryField()

    class Meta:
        ordering = ["pending_id", "pk"]

    def __str__(self):
        return self.name


class PendingImage(models.Model):
    """An image a pending import's file carries, checked and cleaned as saving will store it, so
    that the preview shows it before anything is saved. Served only to the import's owner
    (quiz.views.media), under a random name; dropped with its import, and at the apply."""

    pending = models.ForeignKey(PendingImport, on_delete=models.CASCADE, related_name="images")
    name = models.CharField(max_length=64, unique=True)
    source_sha256 = models.CharField(max_length=64)  # of the bytes as the file carries them
    content_type = models.CharField(max_length=32)
    data = models.BinaryField()

    class Meta:
        ordering = ["pending_id", "pk"]

    def __str__(self):
        return self.name


class HistoryImport(models.Model):
    """An Anki package's review history on its way into a learner's log, for the cards of one of
    their decks (quiz.content.apkg_history): written a step of a few thousand reviews at a time,
    so that a history of years never holds one request or transaction for minutes. `reviews`
    holds what is left: {card key: [[epoch milliseconds, rating, duration ms], ...]}."""

    owner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+", db_index=False)
    deck = models.ForeignKey("quiz.Deck", on_delete=models.CASCADE, related_name="+")
    reviews = models.JSONField(default=dict)
    total = models.PositiveIntegerField(default=0)  # reviews in the package for this deck's cards
    left = models.PositiveIntegerField(default=0)  # of those, not written yet
    cards = models.PositiveIntegerField(default=0)
    added = models.PositiveIntegerField(default=0)
    already = models.PositiveIntegerField(default=0)
    later = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["owner", "finished_at"], name="history_import_owner")]

    def __str__(self):
        return f"history import for {self.owner} ({self.done} of {self.total})"

    @property
    def done(self):
        return self.total - self.left

    @property
    def percent(self):
        return 100 * self.done // self.total if self.total else 100
