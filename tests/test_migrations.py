"""A database made before the renames (QuizSet, Review, AttemptQuestion) migrates to the
current schema with every row, and every link between rows, intact."""

from datetime import datetime, timedelta, timezone

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE_RENAMES = [("quiz", "0003_slot_scheduled_at")]
T0 = datetime(2026, 5, 4, 10, 0, tzinfo=timezone.utc)


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()  # the graph may have changed since the last run
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def latest():
    return MigrationExecutor(connection).loader.graph.leaf_nodes("quiz")


def history_at_the_old_schema(apps):
    """A class with an assignment, attempts answered and rated, as today's main stores them."""
    User = apps.get_model("quiz", "User")
    learner = User.objects.create(username="alice", time_zone="Europe/Paris")
    teacher = User.objects.create(username="teacher", is_instructor=True)
    question_set = apps.get_model("quiz", "QuestionSet").objects.create(title="Networking")
    questions = []
    for number in (1, 2):
        question = apps.get_model("quiz", "Question").objects.create(
            question_set=question_set, key=f"q{number}", position=number, stem=f"Stem {number}?"
        )
        for index in range(3):
            apps.get_model("quiz", "Choice").objects.create(
                question=question, text=f"Choice {number}.{index}", is_correct=index == 0, position=index
            )
        questions.append(question)
    classroom = apps.get_model("quiz", "Classroom").objects.create(owner=teacher, name="Net 101", join_code="ABCDEFGH")
    apps.get_model("quiz", "Enrollment").objects.create(classroom=classroom, learner=learner)
    quiz_set = apps.get_model("quiz", "QuizSet").objects.create(owner=teacher, title="Week 1", draw_count=None)
    for position, question in enumerate(questions, start=1):
        apps.get_model("quiz", "QuizSetQuestion").objects.create(quiz_set=quiz_set, question=question, position=position)
    assignment = apps.get_model("quiz", "Assignment").objects.create(
        classroom=classroom, quiz_set=quiz_set, title="Week 1", opens_at=T0, due_at=T0 + timedelta(days=1)
    )
    attempt = apps.get_model("quiz", "Attempt").objects.create(
        user=learner, assignment=assignment, title="Week 1", started_at=T0, finished_at=T0 + timedelta(minutes=5),
        question_count=2, correct_count=1,
    )
    memory = apps.get_model("quiz", "MemoryState").objects.create(
        user=learner, kind="question", question=questions[0], phase=2, stability=3.0, difficulty=5.0,
        due=T0 + timedelta(days=3), last_review=T0, reps=1, last_rating=3,
    )
    for position, (question, right) in enumerate(zip(questions, (True, False)), start=1):
        choice = question.choices.get(position=0 if right else 1)
        apps.get_model("quiz", "AttemptQuestion").objects.create(
            attempt=attempt, question=question, position=position, stem=question.stem,
            shown_choices=[{"id": choice.pk, "text": choice.text, "correct": right}], chosen_index=1,
            chosen_choice=choice, is_correct=right, answered_at=T0 + timedelta(minutes=position), seconds_spent=60,
            scheduled_at=T0 + timedelta(minutes=position),
        )
    apps.get_model("quiz", "Review").objects.create(
        user=learner, memory=memory, source="quiz", rating=3, reviewed_at=T0, due_after=T0 + timedelta(days=3)
    )


@pytest.mark.django_db(transaction=True)
def test_a_database_from_before_the_renames_migrates_with_every_row():
    head = latest()
    try:
        history_at_the_old_schema(migrate(BEFORE_RENAMES))
        apps = migrate(head)

        ReviewLog = apps.get_model("quiz", "ReviewLog")
        AttemptSlot = apps.get_model("quiz", "AttemptSlot")
        Assignment = apps.get_model("quiz", "Assignment")
        review = ReviewLog.objects.get()
        assert (review.user.username, review.memory.question.key, review.rating) == ("alice", "q1", 3)
        slots = AttemptSlot.objects.order_by("position")
        assert [(s.question.key, s.is_correct, s.chosen_choice.text) for s in slots] == [
            ("q1", True, "Choice 1.0"), ("q2", False, "Choice 2.1"),
        ]
        assert slots[0].attempt.correct_count == 1
        assignment = Assignment.objects.get()
        assert assignment.pool.title == "Week 1"
        assert list(assignment.pool.entries.order_by("position").values_list("question__key", flat=True)) == ["q1", "q2"]
        assert apps.get_model("quiz", "User").objects.get(username="alice").enrollments.count() == 1
    finally:
        migrate(head)  # leave the schema as the other tests expect it
