"""Spaced-repetition state (FSRS) per learner and study item, and the review log."""

from functools import reduce
from operator import or_

from django.db import models
from django.db.models import Q

from .content import Card, Choice, Question
from .users import User


class MemoryStateQuerySet(models.QuerySet):
    def for_user(self, user):
        return self.filter(user=user)

    def due(self, now):
        """Due: the next review at or before now, learning steps included (as Anki counts). Every
        count of due items says this, split as learning (`in_learning`) and review (`in_review`)."""
        return self.filter(due__lte=now)

    def in_learning(self):
        return self.filter(phase__in=MemoryState.LEARNING_PHASES)

    def in_review(self):
        return self.filter(phase=MemoryState.Phase.REVIEW)

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
    # What "Review due" mixes: flashcards and quiz questions (drill statements have their own drill).
    REVIEW_KINDS = (Kind.CARD, Kind.QUESTION)

    class Phase(models.IntegerChoices):  # the values of fsrs.State
        LEARNING = 1, "Learning"
        REVIEW = 2, "Review"
        RELEARNING = 3, "Relearning"

    LEARNING_PHASES = (Phase.LEARNING, Phase.RELEARNING)

    objects = MemoryStateQuerySet.as_manager()

    # No index of its own: memory_user_due leads with the user.
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="memories", db_index=False)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    # PROTECT: deleting a card or question must never delete what a learner did with it
    # (re-importing a document without it is refused instead; see quiz.content.sync).
    card = models.ForeignKey(Card, null=True, blank=True, on_delete=models.PROTECT, related_name="memories")
    # No index of its own: memory_unique_question leads with it, one index fewer to write on
    # every rating.
    question = models.ForeignKey(
        Question, null=True, blank=True, on_delete=models.PROTECT, related_name="memories", db_index=False
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
                # The question first: it is also the index of a question's memories (PROTECT's lookup).
                fields=["question", "user"], condition=Q(question__isnull=False), name="memory_unique_question"
            ),
            models.CheckConstraint(
                condition=(Q(kind="question", question__isnull=False, card__isnull=True))
                | (Q(kind__in=["card", "myth", "fact"], card__isnull=False, question__isnull=True)),
                name="memory_item_matches_kind",
            ),
            models.CheckConstraint(
                condition=Q(last_rating__isnull=True) | Q(last_rating__gte=1, last_rating__lte=4),
                name="memory_last_rating_range",
            ),
        ]

    def __str__(self):
        return f"{self.user} · {self.kind} {self.card_id or self.question_id}"

    @property
    def item(self):
        return self.question if self.kind == self.Kind.QUESTION else self.card


class ReviewLog(models.Model):
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
        # A review brought from another app's history (an Anki package's review log, with consent).
        IMPORT = "import", "Imported review"

    # Neither gets an index of its own: review_user_time and review_memory_time lead with them.
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="reviews", db_index=False)
    memory = models.ForeignKey(MemoryState, on_delete=models.CASCADE, related_name="reviews", db_index=False)
    source = models.CharField(max_length=8, choices=Source.choices)
    rating = models.PositiveSmallIntegerField(choices=Rating.choices)
    # When the learner answered (or rated). A quiz answer held back until its feedback could be
    # shown is rated at this time too; when it was released is `released_at`.
    reviewed_at = models.DateTimeField()
    released_at = models.DateTimeField(null=True, blank=True, help_text="When a held-back answer was rated")
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    was_new = models.BooleanField(default=False, help_text="First time the learner saw the item")
    retrievability = models.FloatField(null=True, blank=True, help_text="Predicted recall just before")
    due_after = models.DateTimeField(help_text="When the item became due again after this rating")
    state_before = models.JSONField(null=True, blank=True, help_text="The memory state this rating replaced")
    chosen_choice = models.ForeignKey(Choice, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    answer = models.CharField(max_length=8, blank=True, help_text="Myth or fact, for drill statements")
    # For a question: what the learner saw and picked, so its review shows that even after
    # the question is edited: {"stem", "choices": [{"text", "correct"}], "chosen": n (1-based)}.
    shown = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-reviewed_at", "-pk"]
        indexes = [
            models.Index(fields=["user", "reviewed_at"], name="review_user_time"),
            models.Index(fields=["memory", "reviewed_at"], name="review_memory_time"),
            # The learner's newest review at a glance: the dashboard's kept page is stale once it
            # moves (quiz.progress.dashboard_cache).
            models.Index(fields=["user", "id"], name="review_user_newest"),
        ]
        constraints = [models.CheckConstraint(condition=Q(rating__gte=1, rating__lte=4), name="review_rating_range")]

    def __str__(self):
        return f"{self.user} rated {self.get_rating_display()} at {self.reviewed_at:%Y-%m-%d %H:%M}"

    @property
    def interval(self):
        return self.due_after - self.reviewed_at


class ScheduleFit(models.Model):
    """One fit of a learner's FSRS parameters to their review log, adopted or not, with how the
    fitted and the default parameters predicted the learner's later reviews: what Settings shows."""

    class Outcome(models.TextChoices):
        ADOPTED = "adopted", "Adopted: predicts your reviews better than the defaults"
        WORSE = "worse", "Kept the defaults: they predict your reviews as well or better"
        TOO_FEW = "too_few", "Not fitted: too few reviews yet"

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="schedule_fits", db_index=False)
    fitted_at = models.DateTimeField()
    review_count = models.PositiveIntegerField()
    outcome = models.CharField(max_length=8, choices=Outcome.choices)
    parameters = models.JSONField(null=True, blank=True)
    # {"personal": {"log_loss", "rmse_bins"}, "default": {...}, "tested_on": reviews scored}
    metrics = models.JSONField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "-fitted_at"], name="schedule_fit_user_time")]

    def __str__(self):
        return f"{self.user} fitted at {self.fitted_at:%Y-%m-%d %H:%M}: {self.outcome}"


class StudyDayQuerySet(models.QuerySet):
    def forget_from(self, user, day):
        """Drop `user`'s counted days from `day` on, so the next dashboard counts them again.
        Whatever adds or removes a review dated before the learner's today calls this."""
        return self.filter(user=user, day__gte=day).delete()

    def forget_days_before_today(self, first_moments, now):
        """`forget_from` for several learners in one DELETE: `first_moments` is {user_id: (time
        zone, earliest moment of the change)}; only learners whose change is before their today."""
        days = {}
        for user_id, (time_zone, moment) in first_moments.items():
            zone = User(time_zone=time_zone).zone  # an unknown name counts as UTC, as everywhere
            if moment.astimezone(zone).date() < now.astimezone(zone).date():
                days[user_id] = moment.astimezone(zone).date()
        if not days:
            return 0, {}
        return self.filter(reduce(or_, (Q(user_id=user_id, day__gte=day) for user_id, day in days.items()))).delete()


class StudyDay(models.Model):
    """One learner's finished day of study, counted once from the review log.

    The heatmap, the streak and the accuracy chart read these rows for the past and count only
    today live, so a dashboard visit reads at most a year of small rows instead of re-counting
    a year of reviews. A row is a cache of the log: it is written for a day once that day is
    over in the learner's time zone (`time_zone`, the zone its midnight was cut in; a change of
    zone recounts), and `forget_from` drops it when history before today changes, e.g. an undo
    just after midnight. The last counted day always has a row, even with no reviews, so the
    dashboard knows where counting stopped.
    """

    objects = StudyDayQuerySet.as_manager()

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+", db_index=False)
    day = models.DateField()
    time_zone = models.CharField(max_length=64)
    reviews = models.PositiveIntegerField(default=0)
    correct = models.PositiveIntegerField(default=0)  # of which not "Again"
    new_cards = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "day"], name="study_day_unique"),
            models.CheckConstraint(condition=Q(correct__lte=models.F("reviews")), name="study_day_correct_le_reviews"),
        ]

    def __str__(self):
        return f"{self.user} on {self.day}: {self.reviews} reviews"
