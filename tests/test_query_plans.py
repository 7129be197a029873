"""PostgreSQL's plans of the statements every answer makes, as a busy server runs them: prepared,
with a generic plan (psycopg prepares a statement on its fifth run on a connection, and
PostgreSQL keeps a generic plan after five more). `make explain` reads each page's plans with
its values written in; these read the plan that is kept. A plan that reads rows only to throw
them away costs more with every learner who answers the same question."""

import pytest
from django.db import connection, transaction
from django.utils import timezone

from quiz.models import Attempt, MemoryState, User
from quiz.views import access
from tests.factories import make_question_set

# EXPLAIN plans are PostgreSQL's: tests/conftest.py collects this module only there (never a skip).
pytestmark = pytest.mark.django_db


def generic_plan(query, **values):
    """The plan PostgreSQL keeps for a prepared query (quiz.lib.prepared), run with `values`:
    EXPLAIN ANALYZE's JSON."""
    _, _, sql, params, spots, _ = query._compile()
    numbered = sql
    for number in range(1, sql.count("%s") + 1):
        numbered = numbered.replace("%s", f"${number}", 1)
    arguments = ", ".join(connection.ops.compose_sql("%s", [value]) for value in query._parameters(params, spots, values, connection))
    # In a savepoint: a failing EXPLAIN then leaves the test's transaction usable, so the
    # DEALLOCATE (which no rollback does) runs and the error shown is EXPLAIN's own.
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        cursor.execute(f"PREPARE planned AS {numbered}")
        try:
            with transaction.atomic():
                cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE planned({arguments})")
                return cursor.fetchone()[0][0]["Plan"]
        finally:
            cursor.execute("DEALLOCATE planned")


def scans_of(plan, table):
    """Every node of `plan` that reads `table`."""
    found = [plan] if plan.get("Relation Name") == table else []
    for child in plan.get("Plans", ()):
        found += scans_of(child, table)
    return found


def test_the_answers_read_finds_the_learners_memory_of_the_question_by_question_and_learner():
    # A bank of questions that a class of learners has answered: each has a memory of each.
    questions = list(make_question_set(questions=200, choices=2).questions.order_by("position"))
    learners = User.objects.bulk_create(User(username=f"classmate{n}") for n in range(80))
    now = timezone.now()
    MemoryState.objects.bulk_create(
        MemoryState(user=learner, kind=MemoryState.Kind.QUESTION, question=question, due=now)
        for learner in learners for question in questions
    )
    attempt = Attempt.objects.start_custom(
        user=learners[0], purpose="plan", title="Plan", questions=questions[:3], feedback="immediate"
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")

    plan = generic_plan(access._SLOTS_TO_ANSWER, attempt=attempt.pk, position=1)

    (memory,) = scans_of(plan, MemoryState._meta.db_table)
    # The learner's one row, looked up by both columns of memory_unique_question: not every
    # classmate's memory of the question read and filtered out (80 rows for one).
    assert memory["Index Name"] == "memory_unique_question"
    assert "user_id" in memory["Index Cond"] and "question_id" in memory["Index Cond"]
    assert memory["Actual Rows"] == 1
    assert access._SLOTS_TO_ANSWER.first(attempt=attempt.pk, position=1).memory.user_id == learners[0].pk
