"""Content (source documents, question sets, decks) and learners' quiz attempts.

Room is left for what later work adds: topics (a many-to-many on Question and Card),
scheduling state (a per-user row keyed by the item), classes and assignments (an
optional link from Attempt to an assignment).
"""

import random
from datetime import timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.contrib.auth.models import AbstractUser
from django.db import IntegrityError, models, transaction
from django.db.models import Count, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone

# An answer given after a longer pause than this is not "time spent" on the question:
# the learner walked away and resumed later, so the time is capped.
MAX_SECONDS_PER_QUESTION = 30 * 60


class User(AbstractUser):
    """A learner (and, later, an instructor). Custom from the start so fields can be added."""

    time_zone = models.CharField(max_length=64, default="UTC", help_text="IANA name, e.g. Europe/Paris")
    new_cards_per_day = models.PositiveSmallIntegerField(
        default=20, help_text="How many new flashcards a study session introduces per day"
    )

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
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["question_set", "position"]
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
        ordering = ["question", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["question"], condition=Q(is_correct=True), name="one_correct_choice_per_question"
            ),
        ]

    def __str__(self):
        return self.text[:80]


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
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["deck", "position"]
        constraints = [models.UniqueConstraint(fields=["deck", "key"], name="card_key_unique_in_deck")]

    def __str__(self):
        return self.front[:80]


def shuffled(items, rng):
    return rng.sample(items, k=len(items))


class AttemptQuerySet(models.QuerySet):
    def for_user(self, user):
        return self.filter(user=user)

    def unfinished(self):
        return self.filter(finished_at__isnull=True)

    def finished(self):
        return self.filter(finished_at__isnull=False)

    def start_or_resume(self, *, user, question_set, feedback=None, rng=random):
        """Return the learner's open attempt on this set, or start one with its own shuffle.

        At most one open attempt per learner and set (a database constraint), so two tabs
        clicking Start at once end up in the same attempt.
        """
        existing = self.for_user(user).unfinished().filter(question_set=question_set).first()
        if existing:
            return existing, False
        try:
            attempt = self._create_with_slots(
                user=user, questions=question_set.questions.all(), feedback=feedback, rng=rng, question_set=question_set
            )
        except IntegrityError:
            return self.for_user(user).unfinished().get(question_set=question_set), False
        return attempt, True

    def start_custom(self, *, user, title, questions, feedback=None, rng=random):
        """A quiz over any list of questions (which may span sets), in the order given."""
        return self._create_with_slots(user=user, questions=questions, feedback=feedback, rng=rng, title=title)

    def _create_with_slots(self, *, user, questions, feedback, rng, **fields):
        questions = list(questions.prefetch_related("choices"))
        with transaction.atomic():
            attempt = self.create(
                user=user, feedback=feedback or Attempt.Feedback.IMMEDIATE, question_count=len(questions), **fields
            )
            AttemptQuestion.objects.bulk_create(
                AttemptQuestion.shown_to_learner(attempt, position, question, rng)
                for position, question in enumerate(questions, start=1)
            )
        return attempt


class Attempt(models.Model):
    """One run of a learner through a question set, in the order and shuffle stored on its slots."""

    class Feedback(models.TextChoices):
        IMMEDIATE = "immediate", "Right after each answer"
        DEFERRED = "deferred", "At the end of the attempt"

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="attempts")
    # Empty for a quiz built on the fly (say, "Retake my mistakes"), which has a title instead.
    question_set = models.ForeignKey(
        QuestionSet, null=True, blank=True, on_delete=models.CASCADE, related_name="attempts"
    )
    title = models.CharField(max_length=255, blank=True)
    feedback = models.CharField(max_length=16, choices=Feedback.choices, default=Feedback.IMMEDIATE)
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    question_count = models.PositiveIntegerField(default=0)
    correct_count = models.PositiveIntegerField(default=0)

    objects = AttemptQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at", "-pk"]
        indexes = [
            models.Index(fields=["user", "-started_at"], name="attempt_user_recent"),
            models.Index(fields=["user", "question_set", "finished_at"], name="attempt_user_set"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "question_set"],
                condition=Q(finished_at__isnull=True),
                name="one_open_attempt_per_user_and_set",
            ),
        ]

    def __str__(self):
        return f"{self.user} on {self.display_title} ({self.started_at:%Y-%m-%d %H:%M})"

    @property
    def display_title(self):
        return self.title or (self.question_set.title if self.question_set_id else "Quiz")

    def get_absolute_url(self):
        return reverse("attempt", args=[self.pk])

    @property
    def is_finished(self):
        return self.finished_at is not None

    @property
    def shows_feedback_per_question(self):
        return self.feedback == self.Feedback.IMMEDIATE

    @property
    def score_percent(self):
        if not self.question_count:
            return 0
        return round(100 * self.correct_count / self.question_count)

    @property
    def duration(self):
        if self.finished_at is None:
            return None
        return self.finished_at - self.started_at

    def next_unanswered_slot(self):
        return self.slots.filter(answered_at__isnull=True).order_by("position").first()

    def record_answer(self, slot, number, *, now=None):
        """Save the learner's pick (the 1-based number of a choice as shown); True if recorded.

        The grade comes from the slot's snapshot, i.e. from what the learner was shown. The
        attempt row is locked and the UPDATE is conditional: a double submit (double click,
        back button, two tabs) finds the slot answered and changes nothing, and two last
        answers racing in two tabs cannot both miss finishing the attempt.
        """
        if slot.attempt_id != self.pk or not 1 <= number <= len(slot.shown_choices):
            raise ValueError("no such choice in this attempt's question")
        shown = slot.shown_choices[number - 1]
        now = now or timezone.now()
        with transaction.atomic():
            Attempt.objects.select_for_update().filter(pk=self.pk).values_list("pk").get()
            previous = self.slots.filter(answered_at__isnull=False).aggregate(last=models.Max("answered_at"))
            since = max(filter(None, [previous["last"], self.started_at]))
            seconds = min(max(int((now - since).total_seconds()), 0), MAX_SECONDS_PER_QUESTION)
            recorded = AttemptQuestion.objects.filter(pk=slot.pk, answered_at__isnull=True).update(
                chosen_index=number,
                chosen_choice=Subquery(Choice.objects.filter(pk=shown["id"]).values("pk")[:1]),
                is_correct=shown["correct"],
                answered_at=now,
                seconds_spent=seconds,
            )
            if recorded and not self.slots.filter(answered_at__isnull=True).exists():
                self.finish(now=now)
        slot.refresh_from_db(fields=["chosen_index", "chosen_choice", "is_correct", "answered_at", "seconds_spent"])
        return bool(recorded)

    def finish(self, *, now=None):
        """Close the attempt and store its score, counted by the database from the slots."""
        now = now or timezone.now()
        correct = self.slots.filter(is_correct=True).count()
        Attempt.objects.filter(pk=self.pk, finished_at__isnull=True).update(finished_at=now, correct_count=correct)
        self.refresh_from_db(fields=["finished_at", "correct_count"])


class AttemptQuestion(models.Model):
    """One question of an attempt, exactly as the learner saw it, and their answer.

    The stem and the choices (text, right or wrong, in the shuffled order) are copied when the
    attempt starts, so editing the source later never changes what a past attempt shows or
    how it was graded. The answer lives on the slot: one question of one attempt has at most
    one answer.
    """

    attempt = models.ForeignKey(Attempt, on_delete=models.CASCADE, related_name="slots")
    question = models.ForeignKey(Question, on_delete=models.PROTECT, related_name="slots")
    position = models.PositiveIntegerField()
    stem = models.TextField()
    shown_choices = models.JSONField(help_text='[{"id", "text", "correct"}] in the order shown')
    chosen_index = models.PositiveSmallIntegerField(null=True, blank=True, help_text="1-based, as shown")
    # The live choice picked, for statistics across attempts; the snapshot above is the record.
    chosen_choice = models.ForeignKey(Choice, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    is_correct = models.BooleanField(null=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    seconds_spent = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["attempt", "position"]
        constraints = [
            models.UniqueConstraint(fields=["attempt", "position"], name="slot_position_unique"),
            models.UniqueConstraint(fields=["attempt", "question"], name="slot_question_unique"),
        ]
        indexes = [models.Index(fields=["question", "answered_at"], name="slot_question_answered")]

    def __str__(self):
        return f"{self.attempt_id} #{self.position}"

    @classmethod
    def shown_to_learner(cls, attempt, position, question, rng):
        choices = shuffled(list(question.choices.all()), rng)
        return cls(
            attempt=attempt,
            question=question,
            position=position,
            stem=question.stem,
            shown_choices=[{"id": c.pk, "text": c.text, "correct": c.is_correct} for c in choices],
        )

    @property
    def choice_order(self):
        return [choice["id"] for choice in self.shown_choices]

    @property
    def choice_texts(self):
        """What the question page shows before answering: texts only, nothing about correctness."""
        return [choice["text"] for choice in self.shown_choices]

    @property
    def review(self):
        """The choices as shown, with the learner's pick and the right one, for feedback."""
        return [
            {"number": number, "text": c["text"], "correct": c["correct"], "chosen": number == self.chosen_index}
            for number, c in enumerate(self.shown_choices, start=1)
        ]

    @property
    def correct_number(self):
        return next(n for n, c in enumerate(self.shown_choices, start=1) if c["correct"])

    @property
    def is_answered(self):
        return self.answered_at is not None

    @property
    def time_spent(self):
        return None if self.seconds_spent is None else timedelta(seconds=self.seconds_spent)


class MemoryStateQuerySet(models.QuerySet):
    def for_user(self, user):
        return self.filter(user=user)

    def due(self, now):
        return self.filter(due__lte=now)

    def last_answered_wrong(self):
        return self.filter(kind=MemoryState.Kind.QUESTION, last_rating=1)


class MemoryState(models.Model):
    """What the scheduler knows about one learner and one study item: the FSRS card state.

    Every kind of item lives in this one table (a flashcard, a quiz question, and a card's
    myth and fact statements for the drill), so "what is due" is one indexed query over the
    whole bank. A row exists once the item has been studied; before that the item is new.
    """

    class Kind(models.TextChoices):
        CARD = "card", "Flashcard"
        QUESTION = "question", "Question"
        MYTH = "myth", "Myth statement"
        FACT = "fact", "Fact statement"

    CARD_KINDS = (Kind.CARD, Kind.MYTH, Kind.FACT)

    class Phase(models.IntegerChoices):  # the values of fsrs.State
        LEARNING = 1, "Learning"
        REVIEW = 2, "Review"
        RELEARNING = 3, "Relearning"

    LEARNING_PHASES = (Phase.LEARNING, Phase.RELEARNING)

    objects = MemoryStateQuerySet.as_manager()

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="memories")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    card = models.ForeignKey(Card, null=True, blank=True, on_delete=models.CASCADE, related_name="memories")
    question = models.ForeignKey(
        Question, null=True, blank=True, on_delete=models.CASCADE, related_name="memories"
    )
    phase = models.PositiveSmallIntegerField(choices=Phase.choices, default=Phase.LEARNING)
    step = models.PositiveSmallIntegerField(null=True, blank=True)
    stability = models.FloatField(null=True, blank=True)
    difficulty = models.FloatField(null=True, blank=True)
    due = models.DateTimeField()
    last_review = models.DateTimeField(null=True, blank=True)
    reps = models.PositiveIntegerField(default=0, help_text="Reviews so far; guards against double submits")
    lapses = models.PositiveIntegerField(default=0)
    last_rating = models.PositiveSmallIntegerField(null=True, blank=True, help_text="1 = Again: last answer wrong")

    class Meta:
        indexes = [
            models.Index(fields=["user", "due"], name="memory_user_due"),
            models.Index(fields=["user", "kind", "phase", "due"], name="memory_user_kind_due"),
            models.Index(fields=["user", "kind", "last_rating"], name="memory_user_kind_rating"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "kind", "card"], condition=Q(card__isnull=False), name="memory_unique_card_item"
            ),
            models.UniqueConstraint(
                fields=["user", "question"], condition=Q(question__isnull=False), name="memory_unique_question"
            ),
            models.CheckConstraint(
                condition=(Q(kind="question", question__isnull=False, card__isnull=True))
                | (Q(kind__in=["card", "myth", "fact"], card__isnull=False, question__isnull=True)),
                name="memory_item_matches_kind",
            ),
        ]

    def __str__(self):
        return f"{self.user} · {self.kind} {self.card_id or self.question_id}"

    @property
    def item(self):
        return self.question if self.kind == self.Kind.QUESTION else self.card


class Review(models.Model):
    """One rating of one item: the review log. `state_before` makes undo exact."""

    class Rating(models.IntegerChoices):  # the values of fsrs.Rating
        AGAIN = 1, "Again"
        HARD = 2, "Hard"
        GOOD = 3, "Good"
        EASY = 4, "Easy"

    class Source(models.TextChoices):
        STUDY = "study", "Flashcard study"
        QUIZ = "quiz", "Quiz answer"
        REVIEW = "review", "Review session question"
        DRILL = "drill", "Myth-or-fact drill"

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="reviews")
    memory = models.ForeignKey(MemoryState, on_delete=models.CASCADE, related_name="reviews")
    source = models.CharField(max_length=8, choices=Source.choices)
    rating = models.PositiveSmallIntegerField(choices=Rating.choices)
    reviewed_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    was_new = models.BooleanField(default=False, help_text="First time the learner saw the item")
    retrievability = models.FloatField(null=True, blank=True, help_text="Predicted recall just before")
    due_after = models.DateTimeField(help_text="When the item became due again after this rating")
    state_before = models.JSONField(null=True, blank=True, help_text="The memory state this rating replaced")
    chosen_choice = models.ForeignKey(Choice, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    answer = models.CharField(max_length=8, blank=True, help_text="Myth or fact, for drill statements")

    class Meta:
        ordering = ["-reviewed_at", "-pk"]
        indexes = [
            models.Index(fields=["user", "reviewed_at"], name="review_user_time"),
            models.Index(fields=["memory", "reviewed_at"], name="review_memory_time"),
        ]

    def __str__(self):
        return f"{self.user} rated {self.get_rating_display()} at {self.reviewed_at:%Y-%m-%d %H:%M}"

    @property
    def interval(self):
        return self.due_after - self.reviewed_at
