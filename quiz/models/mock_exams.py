"""A mock exam's record beside its attempt: the rules it was taken under and what the memory
model predicted when it began, so its results can show predicted and actual side by side."""

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q

from quiz.lib.numbers import percent


class MockExam(models.Model):
    # Also the attempt's `purpose`: one open mock exam per learner, by that constraint.
    PURPOSE = "mock-exam"

    attempt = models.OneToOneField("quiz.Attempt", primary_key=True, on_delete=models.CASCADE, related_name="mock_exam")
    minutes = models.PositiveSmallIntegerField(validators=[MinValueValidator(1)])
    pass_percent = models.PositiveSmallIntegerField(validators=[MinValueValidator(1), MaxValueValidator(100)])
    # {question id: predicted recall when the exam began}; a question never studied is absent.
    predictions = models.JSONField(default=dict)
    # {topic id, or "" for untagged: questions drawn}, as the draw spread them.
    topic_counts = models.JSONField(default=dict)
    # The class whose instructor's topic weights shaped the draw, if any.
    classroom = models.ForeignKey("quiz.Classroom", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(pass_percent__gte=1, pass_percent__lte=100), name="mock_exam_pass_mark_range"),
            models.CheckConstraint(condition=Q(minutes__gte=1), name="mock_exam_minutes_positive"),
        ]

    def __str__(self):
        return f"Mock exam {self.attempt_id}"

    def compare(self, slots):
        """Predicted against actual, over the attempt's slots (already fetched for the results
        page): the questions the learner had studied, those never studied, and all of them.

        The overall prediction counts a never-studied question as 0, as the dashboard's exam
        outlook does (nothing predicts it would be recalled); the studied row is the fair test
        of the model, the same questions on both sides."""
        studied, unseen = [], []
        for slot in slots:
            # Credit, as the score above it counts: a partly right answer is a share of its point.
            (studied if str(slot.question_id) in self.predictions else unseen).append(slot.credit or 0)
        predicted = sum(self.predictions.values())
        rows = [
            _row("Questions you had studied", len(studied), predicted, sum(studied)),
            _row("Questions you had never answered", len(unseen), None, sum(unseen)),
            _row("The whole exam", len(studied) + len(unseen), predicted, sum(studied) + sum(unseen)),
        ]
        return [row for row in rows if row["questions"]]

    @property
    def predicted_percent(self):
        """The prediction for the whole exam when it began (a never-studied question as 0)."""
        return percent(sum(self.predictions.values()), self.attempt.question_count)

    @property
    def passed(self):
        score = self.attempt.score_percent
        return score is not None and score >= self.pass_percent


def _row(label, questions, predicted_sum, right):
    return {
        "label": label,
        "questions": questions,
        "predicted": None if predicted_sum is None or not questions else percent(predicted_sum, questions),
        "actual": percent(right, questions) if questions else None,
    }


class ExamBlueprint(models.Model):
    """An instructor's mock exam for a class: its rules, and how much each topic weighs in the
    draw (the real exam's blueprint), instead of the bank's proportions."""

    classroom = models.OneToOneField("quiz.Classroom", primary_key=True, on_delete=models.CASCADE, related_name="exam_blueprint")
    questions = models.PositiveSmallIntegerField(validators=[MinValueValidator(1), MaxValueValidator(200)])
    minutes = models.PositiveSmallIntegerField(validators=[MinValueValidator(1)])
    pass_percent = models.PositiveSmallIntegerField(validators=[MinValueValidator(1), MaxValueValidator(100)])
    # {topic id: weight}; a topic left out (or weighted 0) is not drawn from.
    topic_weights = models.JSONField(default=dict)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(pass_percent__gte=1, pass_percent__lte=100), name="blueprint_pass_mark_range"),
            models.CheckConstraint(condition=Q(minutes__gte=1, questions__gte=1), name="blueprint_positive"),
        ]

    def __str__(self):
        return f"Mock exam of {self.classroom}"

    @property
    def weights(self):
        """The weights as the draw reads them: {topic id: weight}."""
        return {int(topic): weight for topic, weight in self.topic_weights.items()}
