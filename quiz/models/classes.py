"""Instructors' side: classes learners join with a code, question pools built from the question
bank, and assignments of a question pool to a class with dates and rules (with per-learner
overrides)."""

import random
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import models, transaction
from django.db.models import Exists, F, Max, OuterRef, Q, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone

from quiz.lib.content_version import content_changed
from quiz.lib.scores import announce_scores_changed
from quiz.lib.sql import BULK_UPDATE_BATCH

from .content import Question
from .users import User

# No 0/O or 1/I/L: join codes are read aloud and typed from a projector.
JOIN_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
JOIN_CODE_LENGTH = 8


def new_join_code():
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


class ClassroomQuerySet(models.QuerySet):
    def active(self):
        """Not archived: what the instructor's list shows and learners can join."""
        return self.filter(archived_at__isnull=True)

    def owned_by(self, user):
        return self.filter(owner=user)

    def joined_by(self, user):
        return self.filter(enrollments__learner=user)


class Classroom(models.Model):
    owner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="classrooms")
    name = models.CharField(max_length=200)
    join_code = models.CharField(max_length=16, unique=True, default=new_join_code)
    created_at = models.DateTimeField(default=timezone.now)
    # Set when the course is over: the class leaves the instructor's list and its learners',
    # nobody can join it, and everything in it (learners, attempts, gradebook) is kept.
    archived_at = models.DateTimeField(null=True, blank=True)

    objects = ClassroomQuerySet.as_manager()

    class Meta:
        ordering = ["name", "pk"]
        indexes = [models.Index(fields=["owner", "name"], name="classroom_owner")]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("classroom", args=[self.pk])

    def archive(self, *, now=None):
        """Archive the class (idempotent: the first date stays). True if it was active."""
        changed = Classroom.objects.filter(pk=self.pk, archived_at=None).update(archived_at=now or timezone.now())
        self.refresh_from_db(fields=["archived_at"])
        content_changed()
        return bool(changed)

    def restore(self):
        self.archived_at = None
        self.save(update_fields=["archived_at"])
        content_changed()

    def join(self, learner):
        """Enroll a learner (idempotent). Returns True when they were not enrolled yet."""
        _, created = Enrollment.objects.get_or_create(classroom=self, learner=learner)
        content_changed()
        return created

    def remove_learner(self, learner, *, now=None):
        """Take a learner out of the class. Their attempts are kept; work in progress is
        submitted as it stands, since a removed learner answers no more."""
        from .attempts import Attempt

        with transaction.atomic():
            Enrollment.objects.filter(classroom=self, learner=learner).delete()
            content_changed()
            for attempt in Attempt.objects.filter(assignment__classroom=self, user=learner, finished_at=None):
                attempt.finish(now=now)


class Enrollment(models.Model):
    classroom = models.ForeignKey(Classroom, on_delete=models.CASCADE, related_name="enrollments")
    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="enrollments")
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["classroom_id", "pk"]
        constraints = [models.UniqueConstraint(fields=["classroom", "learner"], name="enrollment_unique")]
        indexes = [models.Index(fields=["learner"], name="enrollment_learner")]

    def __str__(self):
        return f"{self.learner} in {self.classroom}"


class QuestionPool(models.Model):
    """Questions an instructor picked from the bank, in order; or a pool to draw from.

    With `draw_count` set, each attempt draws that many questions at random from the
    pool, and the attempt's slots record which ones (so its review shows them)."""

    owner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="question_pools")
    title = models.CharField(max_length=255)
    draw_count = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Draw this many questions at random per attempt; empty = all, in order"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["title", "pk"]
        indexes = [models.Index(fields=["owner", "title"], name="pool_owner")]

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        return reverse("pool", args=[self.pk])

    def add_questions(self, question_ids):
        """Append the questions with these ids (those not in the pool yet, among those the
        pool's owner may see) in id order."""
        questions = (
            Question.objects.visible_to(self.owner)
            .current()
            .filter(pk__in=question_ids)
            .exclude(pool_entries__pool=self)
            .order_by("pk")
        )
        with transaction.atomic():
            last = self.entries.aggregate(last=Max("position"))["last"] or 0
            PoolQuestion.objects.bulk_create(
                PoolQuestion(pool=self, question=question, position=last + offset)
                for offset, question in enumerate(questions, start=1)
            )
            content_changed()

    def move_entry(self, entry, action):
        """Move an entry "up" or "down" one place, or "remove" it; positions are renumbered
        once, with gaps closed. Any other action changes nothing."""
        with transaction.atomic():
            entries = list(self.entries.select_for_update().order_by("position"))
            index = next((i for i, item in enumerate(entries) if item.pk == entry.pk), None)
            if index is None:
                return
            if action == "remove":
                entries.pop(index).delete()
            elif action in ("up", "down"):
                other = index + (-1 if action == "up" else 1)
                if 0 <= other < len(entries):
                    entries[index], entries[other] = entries[other], entries[index]
            for position, item in enumerate(entries, start=1):
                item.position = position
            PoolQuestion.objects.bulk_update(entries, ["position"], batch_size=BULK_UPDATE_BATCH)
            content_changed()

    def questions_for_attempt(self, rng=random, *, leaving_out=()):
        """The questions one attempt gets, in the pool's order: all of them, or a random draw;
        never those `leaving_out` (an assignment's excluded ones). (Shuffling the order is the
        assignment's choice, made after the draw.)"""
        questions = list(
            Question.objects.current()
            .filter(pool_entries__pool=self)
            .exclude(pk__in=leaving_out)
            .order_by("pool_entries__position")
        )
        if self.draw_count and self.draw_count < len(questions):
            drawn = set(rng.sample(range(len(questions)), k=self.draw_count))
            return [question for index, question in enumerate(questions) if index in drawn]
        return questions


class PoolQuestion(models.Model):
    pool = models.ForeignKey(QuestionPool, on_delete=models.CASCADE, related_name="entries")
    question = models.ForeignKey(Question, on_delete=models.PROTECT, related_name="pool_entries")
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["pool_id", "position"]
        constraints = [models.UniqueConstraint(fields=["pool", "question"], name="pool_question_unique")]


@dataclass(frozen=True)
class Rules:
    """The rules in force for one learner: the assignment's, with their override applied."""

    opens_at: datetime
    due_at: datetime
    time_limit: timedelta | None
    max_attempts: int | None

    def is_open(self, now):
        return now >= self.opens_at


class AssignmentQuerySet(models.QuerySet):
    def active(self):
        """Not archived: what learners see and the gradebook counts."""
        return self.filter(archived_at__isnull=True)

    def for_learner(self, user):
        """Active assignments of the learner's active classes (an archived class's are history)."""
        return self.active().filter(classroom__archived_at__isnull=True, classroom__enrollments__learner=user)

    def holding_back(self, *, learner, question, now, learner_for_override=None):
        """The learner's assignments that hold a question back from practice, whoever owns the
        question: until the learner may see the assignment's answers, practising its questions
        with feedback would give them away. When answers are shown after the due date, that is
        until the learner's due date (theirs, with an extension); when they are shown once an
        attempt is finished, until the learner has finished one or the due date has passed (a
        later attempt is marked late anyway). Annotated with `held_until`, the learner's due date.

        Each argument is a value or an OuterRef (`learner_for_override`: the learner as seen
        from inside the subqueries on overrides and attempts, when `learner` is an OuterRef);
        `question` None: whatever questions the pool has (the caller filters on them)."""
        from .attempts import Attempt

        learner_inside = learner_for_override or learner
        own_due = AssignmentOverride.objects.filter(
            assignment=OuterRef("pk"), learner=learner_inside, due_at__isnull=False
        ).values("due_at")[:1]
        finished_one = Attempt.objects.filter(assignment=OuterRef("pk"), user=learner_inside, finished_at__isnull=False)
        timing = Assignment.FeedbackTiming
        in_pool = {} if question is None else {"pool__entries__question": question}
        # Only assignments the learner can see: an archived one, or one of an archived class, holds nothing.
        return (
            self.active()
            .filter(classroom__archived_at__isnull=True, classroom__enrollments__learner=learner, **in_pool)
            .annotate(held_until=Coalesce(Subquery(own_due), F("due_at")))
            .filter(held_until__gt=now)
            .filter(Q(feedback_timing=timing.AFTER_DUE) | Q(Q(feedback_timing=timing.AFTER_ATTEMPT), ~Exists(finished_one)))
        )

    def owned_by(self, user):
        return self.filter(classroom__owner=user)


class Assignment(models.Model):
    class Grading(models.TextChoices):
        BEST = "best", "Best attempt"
        LAST = "last", "Last attempt"
        FIRST = "first", "First attempt"
        AVERAGE = "average", "Average of attempts"

    class FeedbackTiming(models.TextChoices):
        IMMEDIATE = "immediate", "Right after each answer"
        AFTER_ATTEMPT = "after_attempt", "When the attempt is finished"
        AFTER_DUE = "after_due", "After the due date"

    classroom = models.ForeignKey(Classroom, on_delete=models.CASCADE, related_name="assignments")
    pool = models.ForeignKey(QuestionPool, on_delete=models.PROTECT, related_name="assignments")
    title = models.CharField(max_length=255)
    opens_at = models.DateTimeField()
    due_at = models.DateTimeField()
    time_limit = models.DurationField(null=True, blank=True)
    max_attempts = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Empty = unlimited")
    grading = models.CharField(max_length=8, choices=Grading.choices, default=Grading.BEST)
    shuffle = models.BooleanField(default=True, help_text="Shuffle the order of questions and choices")
    feedback_timing = models.CharField(
        max_length=16, choices=FeedbackTiming.choices, default=FeedbackTiming.IMMEDIATE
    )
    created_at = models.DateTimeField(default=timezone.now)
    # Set when an instructor removes an assignment learners have attempted: it leaves their
    # lists and the gradebook, and its attempts stay (deleting it would take their history).
    archived_at = models.DateTimeField(null=True, blank=True)

    objects = AssignmentQuerySet.as_manager()

    class Meta:
        ordering = ["due_at", "pk"]
        indexes = [models.Index(fields=["classroom", "due_at"], name="assignment_class_due")]
        constraints = [
            models.CheckConstraint(condition=Q(due_at__gt=models.F("opens_at")), name="assignment_due_after_open"),
        ]

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        return reverse("assignment", args=[self.pk])

    def delete_or_archive(self, *, now=None):
        """Delete the assignment if nobody attempted it, else archive it. Returns "deleted" or
        "archived". An attempt started meanwhile makes the delete fail (attempts PROTECT
        their assignment), and the assignment is archived instead."""
        content_changed()
        if not self.attempts.exists():
            try:
                with transaction.atomic():
                    self.delete()
                return "deleted"
            except models.ProtectedError:
                pass
        self.archived_at = now or timezone.now()
        self.save(update_fields=["archived_at"])
        return "archived"

    def restore(self):
        self.archived_at = None
        self.save(update_fields=["archived_at"])
        content_changed()

    def questions(self):
        """Its pool's questions, and any since taken out of the pool that learners answered."""
        answered = Q(slots__attempt__assignment=self)
        return Question.objects.filter(Q(pool_entries__pool=self.pool_id) | answered).distinct()

    def exclude_question(self, question, *, by, now=None):
        """Stop `question` counting for anyone in this assignment; True if it counted until now."""
        _, created = ExcludedQuestion.objects.get_or_create(
            assignment=self, question=question, defaults={"excluded_at": now or timezone.now(), "excluded_by": by}
        )
        content_changed()
        announce_scores_changed(self.pk)
        return created

    def include_question(self, question):
        """Undo `exclude_question`; True if the question was excluded."""
        deleted, _ = self.exclusions.filter(question=question).delete()
        content_changed()
        announce_scores_changed(self.pk)
        return bool(deleted)

    def rules_for(self, override=None):
        """The rules for one learner (`override` is their AssignmentOverride, if any)."""

        def pick(name):
            value = getattr(override, name, None) if override else None
            return value if value is not None else getattr(self, name)

        return Rules(pick("opens_at"), pick("due_at"), pick("time_limit"), pick("max_attempts"))


class AssignmentOverride(models.Model):
    """Different dates, time limit or attempts for one learner (extra time, a late start)."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="overrides")
    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="assignment_overrides")
    opens_at = models.DateTimeField(null=True, blank=True)
    due_at = models.DateTimeField(null=True, blank=True)
    time_limit = models.DurationField(null=True, blank=True)
    max_attempts = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["assignment", "learner"], name="override_unique_per_learner"),
            models.CheckConstraint(
                condition=Q(opens_at__isnull=True) | Q(due_at__isnull=True) | Q(due_at__gt=F("opens_at")),
                name="override_due_after_open",
            ),
        ]

    def __str__(self):
        return f"{self.assignment} for {self.learner}"


class ExcludedQuestion(models.Model):
    """A question an instructor took out of an assignment's scoring after the fact (a wrong key,
    say): it counts for no one, so every score is out of the questions left. Scores are read
    through `Attempt.objects.with_exclusions()`, so deleting the row (undo) restores them, and
    the learners' answers are never changed."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="exclusions")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="exclusions")
    excluded_at = models.DateTimeField(default=timezone.now)
    excluded_by = models.ForeignKey(User, null=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["assignment", "question"], name="excluded_question_unique")]

    def __str__(self):
        return f"{self.question_id} excluded from {self.assignment}"
