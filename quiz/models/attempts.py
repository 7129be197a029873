"""Quiz attempts: a learner's run through a list of questions, one slot per question,
each slot a snapshot of what was shown and the answer given."""

import random

from django.db import IntegrityError, models, transaction
from django.db.models import Count, F, OuterRef, Q, Subquery, Sum, prefetch_related_objects
from django.db.models.functions import Coalesce, Least
from django.urls import reverse
from django.utils import timezone

from quiz.lib.numbers import percent, points
from quiz.lib.scores import announce_scores_changed

from .content import Choice, QuestionSet, count_of, points_of
from .kinds import QuestionKind, is_full_credit, picks_problem, typed_problem
from .slots import AttemptSlot
from .users import User

# An answer given after a longer pause than this is not "time spent" on the question:
# the learner walked away and resumed later, so the time is capped.
MAX_SECONDS_PER_QUESTION = 30 * 60


class AttemptQuerySet(models.QuerySet):
    def for_user(self, user):
        return self.filter(user=user)

    def unfinished(self):
        return self.filter(finished_at__isnull=True)

    def finished(self):
        return self.filter(finished_at__isnull=False)

    def start_or_resume(self, *, user, question_set, questions=None, feedback=None, rng=random):
        """Return the learner's open attempt on this set, or start one with its own shuffle over
        `questions` (default: the set's current questions).

        At most one open attempt per learner and set (a database constraint), so two tabs
        clicking Start at once end up in the same attempt.
        """
        existing = self.for_user(user).unfinished().filter(question_set=question_set).first()
        if existing:
            return existing, False
        if questions is None:
            questions = question_set.questions.current()
        try:
            attempt = self.create_with_slots(
                user=user, questions=questions, feedback=feedback, rng=rng, question_set=question_set
            )
        except IntegrityError:
            return self.for_user(user).unfinished().get(question_set=question_set), False
        return attempt, True

    def with_exclusions(self):
        """Annotate how many of each attempt's questions (`excluded_total`), and of its right
        answers (`excluded_right`), the instructor has excluded from its assignment since:
        `score_percent` and the counted figures of an assignment's attempt need them."""
        from .classes import ExcludedQuestion

        excluded_here = ExcludedQuestion.objects.filter(assignment=OuterRef(OuterRef("assignment")))
        excluded = AttemptSlot.objects.filter(attempt=OuterRef("pk"), question__in=excluded_here.values("question"))
        return self.annotate(excluded_total=count_of(excluded), excluded_right=points_of(excluded))

    def expired(self, now):
        """Timed attempts still open after their deadline."""
        return self.filter(finished_at__isnull=True, deadline__lt=now)

    def close_expired(self, now=None):
        """Finish every timed attempt whose deadline has passed (learners who never came
        back), scoring them from their slots.

        The rows are locked first and scored by a second statement: an UPDATE that waited
        for an answer's lock would count the slots as they were when it started, without
        that answer (PostgreSQL re-checks the WHERE on the new row, not the subquery)."""
        now = now or timezone.now()
        correct = AttemptSlot.objects.filter(attempt=OuterRef("pk"), is_correct=True)
        correct = correct.order_by().values("attempt").annotate(n=Count("pk")).values("n")
        slots = AttemptSlot.objects.filter(attempt=OuterRef("pk"))
        with transaction.atomic():
            expired = list(self.expired(now).select_for_update(of=("self",)).values_list("pk", flat=True))
            if not expired:
                return 0
            return Attempt.objects.filter(pk__in=expired, finished_at__isnull=True).update(
                finished_at=F("deadline"),
                correct_count=Coalesce(Subquery(correct[:1]), 0),
                score=points_of(slots),
                is_late=Q(due_at__isnull=False) & Q(deadline__gt=F("due_at")),
            )

    def start_custom(self, *, user, purpose, title, questions, feedback=None, rng=random):
        """The learner's open quiz for this purpose ("mistakes", "topic-3"), or a new one over
        `questions` (which may span sets), in the order given.

        One open attempt per learner and purpose (a database constraint): two clicks or two
        tabs at once end up in the same attempt."""
        existing = self.for_user(user).unfinished().filter(purpose=purpose).first()
        if existing:
            return existing
        try:
            return self.create_with_slots(
                user=user, questions=questions, feedback=feedback, rng=rng, title=title, purpose=purpose
            )
        except IntegrityError:
            return self.for_user(user).unfinished().get(purpose=purpose)

    def create_with_slots(self, *, user, questions, feedback, rng, **fields):
        questions = list(questions)
        prefetch_related_objects(questions, "choices")
        with transaction.atomic():
            attempt = self.create(
                user=user, feedback=feedback or Attempt.Feedback.IMMEDIATE, question_count=len(questions), **fields
            )
            AttemptSlot.objects.bulk_create(
                AttemptSlot.shown_to_learner(attempt, position, question, rng)
                for position, question in enumerate(questions, start=1)
            )
        return attempt


class Attempt(models.Model):
    """One run of a learner through a question set, in the order and shuffle stored on its slots."""

    class Feedback(models.TextChoices):
        IMMEDIATE = "immediate", "Right after each answer"
        DEFERRED = "deferred", "At the end of the attempt"

    # No index of its own: attempt_user_recent leads with the user.
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="attempts", db_index=False)
    # Empty for a quiz built on the fly (say, "Retake my mistakes"), which has a title instead.
    # PROTECT here and below: deleting a set, an assignment or a class never deletes a
    # learner's attempts (the admin says what protects it instead).
    question_set = models.ForeignKey(
        QuestionSet, null=True, blank=True, on_delete=models.PROTECT, related_name="attempts"
    )
    title = models.CharField(max_length=255, blank=True)
    # What a quiz built on the fly is for ("mistakes", "topic-3"): one open attempt each.
    purpose = models.CharField(max_length=40, blank=True)
    assignment = models.ForeignKey(
        "quiz.Assignment", null=True, blank=True, on_delete=models.PROTECT, related_name="attempts",
        db_index=False,  # attempt_assignment_user leads with it
    )
    # Set for timed attempts: answers after this moment are refused and the attempt closes.
    deadline = models.DateTimeField(null=True, blank=True)
    due_at = models.DateTimeField(null=True, blank=True, help_text="The learner's due date, for assignments")
    is_late = models.BooleanField(default=False, help_text="Finished after the due date")
    # Until this moment the learner sees no score, correct answers or explanations.
    reveal_at = models.DateTimeField(null=True, blank=True)
    feedback = models.CharField(max_length=16, choices=Feedback.choices, default=Feedback.IMMEDIATE)
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    question_count = models.PositiveIntegerField(default=0)
    # Answers with full credit, and the points: the sum of every answer's credit (a question
    # answered with partial credit adds its share of one point).
    correct_count = models.PositiveIntegerField(default=0)
    score = models.DecimalField(max_digits=9, decimal_places=4, default=0)
    # When the last answer was recorded: time spent on the next one is counted from here.
    last_answered_at = models.DateTimeField(null=True, blank=True)

    objects = AttemptQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at", "-pk"]
        indexes = [
            models.Index(fields=["user", "-started_at"], name="attempt_user_recent"),
            models.Index(fields=["user", "question_set", "finished_at"], name="attempt_user_set"),
            # Item analysis and the gradebook read each learner's attempts at one assignment.
            models.Index(fields=["assignment", "user", "started_at"], name="attempt_assignment_user"),
            # Open timed attempts: what catch-up looks for on every study page, a handful per learner.
            models.Index(
                fields=["user", "deadline"],
                condition=Q(finished_at__isnull=True, deadline__isnull=False),
                name="attempt_open_timed",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "question_set"],
                condition=Q(finished_at__isnull=True),
                name="one_open_attempt_per_user_and_set",
            ),
            models.UniqueConstraint(
                fields=["user", "assignment"],
                condition=Q(finished_at__isnull=True),
                name="one_open_attempt_per_user_and_assignment",
            ),
            models.UniqueConstraint(
                fields=["user", "purpose"],
                condition=Q(finished_at__isnull=True) & ~Q(purpose=""),
                name="one_open_attempt_per_user_and_purpose",
            ),
            models.CheckConstraint(condition=Q(correct_count__lte=F("question_count")), name="attempt_score_within_count"),
            models.CheckConstraint(condition=Q(score__gte=0, score__lte=F("question_count")), name="attempt_points_within_count"),
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

    def answers_visible(self, now=None):
        """May the learner see the score, correct answers and explanations yet?

        Every page that shows an attempt's correctness must ask this: deferred feedback holds
        them back until the attempt is finished, and an assignment may hold them back until
        after its due date."""
        return Attempt.visible(self.feedback, self.finished_at, self.reveal_at, now or timezone.now())

    @staticmethod
    def visible(feedback, finished_at, reveal_at, now):
        """`answers_visible` from the three columns it reads: for rows read as plain values."""
        if not (feedback == Attempt.Feedback.IMMEDIATE or finished_at is not None):
            return False
        return reveal_at is None or now >= reveal_at

    def is_past_deadline(self, now=None):
        return self.deadline is not None and (now or timezone.now()) > self.deadline

    @property
    def counted_questions(self):
        """The questions that count toward the score: all but those excluded after the fact."""
        return self.question_count - self._excluded("excluded_total")

    @property
    def counted_points(self):
        """The points that count, exactly: every answer's credit, less the excluded questions'."""
        return self.score - self._excluded("excluded_right")

    @property
    def counted_right(self):
        """`counted_points` as a page shows them: 3, 2.5, 1.33."""
        return points(self.counted_points)

    def _excluded(self, name):
        # Only an assignment excludes questions. Its attempts must be read `with_exclusions()`:
        # a page that forgot would show a score the gradebook disagrees with, so it raises.
        return getattr(self, name) if self.assignment_id else 0

    @property
    def score_percent(self):
        """The score as a whole percentage, rounded half up; None when no question counts (an
        instructor excluded all the attempt drew): such an attempt has no score, not 0%."""
        return percent(self.counted_points, self.counted_questions)

    @property
    def score_text(self):
        score = self.score_percent
        return "no question counts" if score is None else f"{score}%"

    @property
    def duration(self):
        if self.finished_at is None:
            return None
        return self.finished_at - self.started_at

    def record_answer(self, slot, answer, *, now=None, queued=False):
        """Save the learner's answer; True if recorded. `answer`: the 1-based number of a choice
        as shown, or a list of them (choose N, select all that apply).

        The grade comes from the slot's snapshot, i.e. from what the learner was shown. One
        transaction: the attempt row is updated (and so locked, as `finish` locks it) only while
        it is open and within its deadline, then the slot only if it has no answer yet, so a
        double submit (double click, back button, two tabs) is a refused update that changes
        nothing. With feedback per question, the last answer finishes the attempt and counts
        its score. `queued` marks the answer as entering the memory queue (its feedback is shown
        at once, and the caller rates it in the same transaction).

        Deferred feedback works as Moodle's: the learner may change an answer until they submit
        the attempt (`finish`), and answering every question does not submit it. A change
        overwrites the slot's one answer (the same row, so nothing is counted twice); the time
        spent adds up.
        """
        if slot.attempt_id != self.pk:
            raise ValueError("not a question of this attempt")
        fields = self._answer_fields(slot, answer)
        now = now or timezone.now()
        if self.is_past_deadline(now):
            self.finish(now=now)  # time is up: the answer is refused and the attempt closes
            return False
        changeable = not self.shows_feedback_per_question  # deferred: until the learner submits
        since = max(filter(None, [self.last_answered_at, self.started_at]))
        seconds = min(max(int((now - since).total_seconds()), 0), MAX_SECONDS_PER_QUESTION)
        answer = {**fields, "answered_at": now, "scheduled_at": now if queued else None}
        with transaction.atomic():
            still_open = Attempt.objects.filter(pk=self.pk, finished_at__isnull=True).exclude(deadline__lt=now)
            if not still_open.update(last_answered_at=now):
                return False  # closed meanwhile (its deadline passed, or it was submitted elsewhere)
            if changeable:  # never one already in the memory queue (none is while the attempt is open)
                writable = AttemptSlot.objects.filter(pk=slot.pk, scheduled_at__isnull=True)
                spent = Least(Coalesce(F("seconds_spent"), 0) + seconds, MAX_SECONDS_PER_QUESTION)
            else:
                writable = AttemptSlot.objects.filter(pk=slot.pk, answered_at__isnull=True)
                spent = seconds
            if not writable.update(**answer, seconds_spent=spent):
                transaction.set_rollback(True)  # answered already: the attempt stays as it was
                return False
            if not changeable and not self.slots.filter(answered_at__isnull=True).exists():
                self._finish_with_last_answer(now)
        for name, value in answer.items():
            setattr(slot, name, value)
        slot.seconds_spent = min((slot.seconds_spent or 0) + seconds, MAX_SECONDS_PER_QUESTION) if changeable else seconds
        self.last_answered_at = now
        return True

    @staticmethod
    def _answer_fields(slot, answer):
        """The slot's answer columns for `answer` (picks, or a typed text), graded from its
        snapshot; ValueError for an answer the question does not take (the answer form says
        why to the learner first, so a caller that skipped it is a bug)."""
        if slot.is_typed:
            if not isinstance(answer, str) or (problem := typed_problem(slot.kind, answer)):
                raise ValueError(problem if isinstance(answer, str) else "this question takes a typed answer")
            credit, matched = slot.typed_credit(answer)
            chosen = {"typed_answer": answer.strip(), "chosen_index": None, "chosen_numbers": None}
            matched_id = slot.shown_choices[matched - 1]["id"] if matched else None
        elif slot.kind == QuestionKind.MATCHING:  # the option picked for each item, in the items' order
            picks = list(answer)
            if problem := picks_problem(slot.kind, slot.shown_choices, picks, slot.shown_options):
                raise ValueError(problem)
            credit, matched_id = slot.credit_for(picks), None
            chosen = {"typed_answer": None, "chosen_index": None, "chosen_numbers": picks}
        else:
            picks = sorted(set([answer] if isinstance(answer, int) else answer))
            if not picks or not all(1 <= n <= len(slot.shown_choices) for n in picks):
                raise ValueError("no such choice in this attempt's question")
            if problem := picks_problem(slot.kind, slot.shown_choices, picks):
                raise ValueError(problem)
            credit, one = slot.credit_for(picks), not slot.several_picks
            chosen = {"typed_answer": None, "chosen_index": picks[0] if one else None, "chosen_numbers": None if one else picks}
            matched_id = slot.shown_choices[picks[0] - 1]["id"] if one else None
        return {
            **chosen, "credit": credit, "is_correct": is_full_credit(credit),
            "chosen_choice_id": Choice.id_if_still_there(matched_id) if matched_id else None,
        }

    def _finish_with_last_answer(self, now):
        """Feedback per question: the answer just recorded was the last one open, so the attempt
        is finished and scored (inside the answer's transaction, the attempt row locked)."""
        self.finished_at, self.is_late = now, self.due_at is not None and now > self.due_at
        self.correct_count, self.score = self._scored()
        Attempt.objects.filter(pk=self.pk).update(
            finished_at=self.finished_at, is_late=self.is_late, correct_count=self.correct_count, score=self.score
        )
        if self.assignment_id:
            announce_scores_changed(self.assignment_id, self.user_id)

    def _scored(self):
        """(answers with full credit, points), counted by the database from the slots."""
        totals = self.slots.aggregate(right=Count("pk", filter=Q(is_correct=True)), points=Sum("credit"))
        return totals["right"], totals["points"] or 0

    def finish(self, *, now=None):
        """Close the attempt and store its score, counted by the database from the slots.

        A timed attempt closes at its deadline at the latest, whenever this runs. The row is
        locked before the slots are counted: an answer being recorded at that moment (it holds
        the lock) is either counted or, once the attempt is closed, refused; never stored and
        left out of the score."""
        now = now or timezone.now()
        if self.deadline is not None:
            now = min(now, self.deadline)
        late = self.due_at is not None and now > self.due_at
        with transaction.atomic():
            if list(Attempt.objects.select_for_update().filter(pk=self.pk, finished_at__isnull=True).values_list("pk")):
                correct, score = self._scored()
                Attempt.objects.filter(pk=self.pk).update(finished_at=now, correct_count=correct, score=score, is_late=late)
                if self.assignment_id:
                    announce_scores_changed(self.assignment_id, self.user_id)
        self.refresh_from_db(fields=["finished_at", "correct_count", "score", "is_late"])
