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


def rows_the_old_admin_let_through(apps):
    """What today's checks refuse but the old admin saved: they must be mended, not lost."""
    User = apps.get_model("quiz", "User")
    User.objects.filter(username="alice").update(target_retention=90)  # a percentage typed in the admin
    learner = User.objects.get(username="alice")
    assignment = apps.get_model("quiz", "Assignment").objects.get()
    apps.get_model("quiz", "AssignmentOverride").objects.create(
        assignment=assignment, learner=learner, opens_at=T0 + timedelta(days=2), due_at=T0 + timedelta(days=1)
    )
    apps.get_model("quiz", "Attempt").objects.filter(user=learner).update(correct_count=5)
    apps.get_model("quiz", "AttemptQuestion").objects.filter(position=2).update(answered_at=None)
    staff = User.objects.create(username="support", is_staff=True)
    Permission = apps.get_model("auth", "Permission")
    ContentType = apps.get_model("contenttypes", "ContentType")
    # A database made at the old main has no permissions under the new names yet.
    Permission.objects.filter(codename__endswith="_questionpool").delete()
    content_type, _ = ContentType.objects.get_or_create(app_label="quiz", model="quizset")
    permission, _ = Permission.objects.get_or_create(
        content_type=content_type, codename="change_quizset", defaults={"name": "Can change quiz set"}
    )
    staff.user_permissions.add(permission)


@pytest.mark.django_db(transaction=True)
def test_a_database_from_before_the_renames_migrates_with_every_row():
    head = latest()
    try:
        old = migrate(BEFORE_RENAMES)
        history_at_the_old_schema(old)
        rows_the_old_admin_let_through(old)
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
        assert slots[0].attempt.correct_count == 2  # was 5 of 2 questions: capped at the count
        assert slots[1].answered_at == slots[1].attempt.finished_at  # completed from the slot's own pick
        assignment = Assignment.objects.get()
        assert assignment.pool.title == "Week 1"
        assert list(assignment.pool.entries.order_by("position").values_list("question__key", flat=True)) == ["q1", "q2"]
        alice = apps.get_model("quiz", "User").objects.get(username="alice")
        assert alice.enrollments.count() == 1
        assert alice.target_retention == 0.97  # 0033 brought targets into the one range, 70% to 97%
        override = apps.get_model("quiz", "AssignmentOverride").objects.get()
        assert (override.opens_at, override.due_at) == (None, T0 + timedelta(days=1))
        support = apps.get_model("quiz", "User").objects.get(username="support")
        assert list(support.user_permissions.values_list("codename", flat=True)) == ["change_questionpool"]
    finally:
        migrate(head)  # leave the schema as the other tests expect it


BEFORE_KINDS = [("quiz", "0029_drop_turn_stopped_function")]


def answered_history_before_kinds(apps):
    """A learner's finished attempt (one right, one wrong answer) and its review log row."""
    learner = apps.get_model("quiz", "User").objects.create(username="bob")
    question_set = apps.get_model("quiz", "QuestionSet").objects.create(title="Storage", visibility="everyone")
    Choice, Slot = apps.get_model("quiz", "Choice"), apps.get_model("quiz", "AttemptSlot")
    attempt = apps.get_model("quiz", "Attempt").objects.create(
        user=learner, question_set=question_set, started_at=T0, finished_at=T0 + timedelta(minutes=3),
        question_count=2, correct_count=1,
    )
    for number, right in ((1, True), (2, False)):
        question = apps.get_model("quiz", "Question").objects.create(
            question_set=question_set, key=f"q{number}", position=number, stem=f"Stem {number}?"
        )
        choices = [Choice.objects.create(question=question, text=t, is_correct=i == 0, position=i) for i, t in enumerate("ab")]
        picked = choices[0 if right else 1]
        Slot.objects.create(
            attempt=attempt, question=question, position=number, stem=question.stem, chosen_index=1 if right else 2,
            shown_choices=[{"id": c.pk, "text": c.text, "correct": c.is_correct} for c in choices],
            chosen_choice=picked, is_correct=right, answered_at=T0 + timedelta(minutes=number), scheduled_at=T0,
        )
    memory = apps.get_model("quiz", "MemoryState").objects.create(
        user=learner, kind="question", question=question, phase=2, stability=3.0, difficulty=5.0,
        due=T0 + timedelta(days=3), last_review=T0, reps=1, last_rating=1,
    )
    apps.get_model("quiz", "ReviewLog").objects.create(
        user=learner, memory=memory, source="quiz", rating=1, reviewed_at=T0, due_after=T0 + timedelta(days=3),
        shown={"stem": "Stem 2?", "explanation": "", "choices": [{"text": "a", "correct": True}], "chosen": 2},
    )


@pytest.mark.django_db(transaction=True)
def test_every_question_so_far_becomes_a_single_answer_one_with_its_attempts_and_reviews_unchanged():
    head = latest()
    try:
        answered_history_before_kinds(migrate(BEFORE_KINDS))
        apps = migrate(head)

        questions = apps.get_model("quiz", "Question").objects.order_by("key")
        assert [(q.kind, q.partial_credit) for q in questions] == [("single", False)] * 2
        assert set(apps.get_model("quiz", "Choice").objects.values_list("weight", flat=True)) == {None}
        slots = apps.get_model("quiz", "AttemptSlot").objects.order_by("position")
        assert [(s.kind, s.chosen_index, s.chosen_numbers, s.is_correct, s.credit) for s in slots] == [
            ("single", 1, None, True, 1), ("single", 2, None, False, 0),
        ]
        attempt = apps.get_model("quiz", "Attempt").objects.get()
        assert (attempt.correct_count, attempt.score) == (1, 1)
        review = apps.get_model("quiz", "ReviewLog").objects.get()
        assert (review.rating, review.shown["chosen"]) == (1, 2)
    finally:
        migrate(head)
