"""Study content: source documents, question sets with their questions and choices, and
flashcard decks with their cards. Plus the User, custom from the start."""

from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.contrib.auth.models import AbstractUser
from django.db import connection, models
from django.db.models import Count, OuterRef, Q, Subquery, Value
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone


class User(AbstractUser):
    """A learner, and with `is_instructor` also someone who runs classes."""

    time_zone = models.CharField(max_length=64, default="UTC", help_text="IANA name, e.g. Europe/Paris")
    new_cards_per_day = models.PositiveSmallIntegerField(
        default=20, help_text="How many new flashcards a study session introduces per day"
    )
    exam_date = models.DateField(null=True, blank=True, help_text="The learner's exam day, for recall forecasts")
    target_retention = models.FloatField(
        default=0.9, help_text="Predicted recall to keep above on exam day (0.7 to 0.99)"
    )
    is_instructor = models.BooleanField(default=False, help_text="May create classes, question pools and assignments")

    class Meta(AbstractUser.Meta):
        constraints = [
            models.CheckConstraint(
                condition=Q(target_retention__gte=0.7, target_retention__lte=0.99), name="user_target_retention_range"
            ),
        ]

    @property
    def zone(self):
        try:
            return ZoneInfo(self.time_zone)
        except (ZoneInfoNotFoundError, ValueError):
            return ZoneInfo("UTC")

    def start_of_today(self, now=None):
        """Midnight of the learner's current day, as an aware datetime (daily limits reset here)."""
        local = (now or timezone.now()).astimezone(self.zone)
        return local.replace(hour=0, minute=0, second=0, microsecond=0)


class Topic(models.Model):
    """A tag on questions and cards ("NVLink", "Parallelism"), for mastery by topic and focused study."""

    name = models.CharField(max_length=100, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class SourceDocument(models.Model):
    """A plain-text document that content was imported from, identified by its file name."""

    class Kind(models.TextChoices):
        QUIZ = "quiz", "Multiple-choice quiz"
        DECK = "deck", "Flashcard deck"

    file_name = models.CharField(max_length=255, unique=True)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    title = models.CharField(max_length=255)
    checksum = models.CharField(max_length=64, help_text="SHA-256 of the document's bytes")
    imported_at = models.DateTimeField(default=timezone.now)

    def __str__(self):
        return self.file_name


class QuestionSetQuerySet(models.QuerySet):
    def with_progress_for(self, user):
        """Annotate each set with its question count and, for a signed-in user, their
        best finished score and the id of an attempt they can resume. One query."""
        from .attempts import Attempt

        sets = self.annotate(question_count=Count("questions", distinct=True))
        if not user.is_authenticated:
            return sets
        mine = Attempt.objects.filter(user=user, question_set=OuterRef("pk"))
        best = mine.filter(finished_at__isnull=False).order_by("-correct_count", "-finished_at")
        return sets.annotate(
            best_correct=Subquery(best.values("correct_count")[:1]),
            best_total=Subquery(best.values("question_count")[:1]),
            open_attempt_id=Subquery(mine.filter(finished_at__isnull=True).values("pk")[:1]),
        )


class QuestionSet(models.Model):
    title = models.CharField(max_length=255)
    source = models.OneToOneField(
        SourceDocument, null=True, blank=True, on_delete=models.SET_NULL, related_name="question_set"
    )
    created_at = models.DateTimeField(default=timezone.now)

    objects = QuestionSetQuerySet.as_manager()

    class Meta:
        ordering = ["title", "pk"]

    def __str__(self):
        return self.title


class Question(models.Model):
    question_set = models.ForeignKey(QuestionSet, on_delete=models.CASCADE, related_name="questions")
    # Stable across edits of the text ("Question 3" stays q3), so re-importing updates in place
    # and keeps every attempt that refers to the question.
    key = models.CharField(max_length=64)
    position = models.PositiveIntegerField()
    stem = models.TextField()
    explanation = models.TextField(blank=True)
    topics = models.ManyToManyField(Topic, blank=True, related_name="questions")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["question_set_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["question_set", "key"], name="question_key_unique_in_set"),
        ]

    def __str__(self):
        return self.stem[:80]

    @property
    def correct_choice(self):
        return next((choice for choice in self.choices.all() if choice.is_correct), None)


class Choice(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="choices")
    text = models.TextField()
    is_correct = models.BooleanField(default=False)
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["question_id", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["question"], condition=Q(is_correct=True), name="one_correct_choice_per_question"
            ),
        ]

    def __str__(self):
        return self.text[:80]

    @classmethod
    def id_if_still_there(cls, pk):
        """`pk` if that choice still exists, else NULL, as SQL for an UPDATE: a slot's snapshot
        keeps the ids of choices that an import may have deleted since. Plain SQL: the ORM's
        Subquery for it cost twice as much to build as the answer's whole UPDATE takes to run."""
        table, column = connection.ops.quote_name(cls._meta.db_table), connection.ops.quote_name(cls._meta.pk.column)
        return RawSQL(f"SELECT {column} FROM {table} WHERE {column} = %s", (pk,), output_field=models.BigIntegerField())


def count_of(queryset):
    """A correlated subquery counting `queryset`'s rows (usable in annotate, 0 when none)."""
    counted = queryset.order_by().values(group=Value(1)).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted[:1]), 0)


class DeckQuerySet(models.QuerySet):
    def with_counts_for(self, user, now=None):
        """Annotate card_count and, for a signed-in learner, new, learning and due-now counts,
        each a correlated subquery on the indexed memory table (one query in all)."""
        decks = self.annotate(card_count=count_of(Card.objects.filter(deck=OuterRef("pk"))))
        if not user.is_authenticated:
            return decks
        from .memory import MemoryState

        now = now or timezone.now()
        mine = MemoryState.objects.filter(user=user, kind=MemoryState.Kind.CARD, card__deck=OuterRef("pk"))
        return decks.annotate(
            studied_count=count_of(mine),
            learning_count=count_of(mine.filter(phase__in=MemoryState.LEARNING_PHASES)),
            due_count=count_of(mine.filter(phase=MemoryState.Phase.REVIEW, due__lte=now)),
        )


class Deck(models.Model):
    title = models.CharField(max_length=255)
    source = models.OneToOneField(
        SourceDocument, null=True, blank=True, on_delete=models.SET_NULL, related_name="deck"
    )
    created_at = models.DateTimeField(default=timezone.now)

    objects = DeckQuerySet.as_manager()

    class Meta:
        ordering = ["title", "pk"]

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        return reverse("deck", args=[self.pk])

    @property
    def new_count(self):
        return self.card_count - self.studied_count


class Card(models.Model):
    deck = models.ForeignKey(Deck, on_delete=models.CASCADE, related_name="cards")
    key = models.CharField(max_length=64)
    position = models.PositiveIntegerField()
    front = models.TextField()
    back = models.TextField()
    misconception = models.TextField(blank=True)
    correction = models.TextField(blank=True)
    topics = models.ManyToManyField(Topic, blank=True, related_name="cards")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["deck_id", "position"]
        constraints = [models.UniqueConstraint(fields=["deck", "key"], name="card_key_unique_in_deck")]

    def __str__(self):
        return self.front[:80]
