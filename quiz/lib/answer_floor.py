"""The answer's floor that `make bench` measures (quiz.views.health.answer_floor): an answer's
durable row writes in plain SQL, with fixed values and nothing else, so that no answer which
keeps what it writes can cost less."""

import json
from datetime import timedelta

from django.db import DatabaseError, connection, transaction

from quiz.lib.prepared import TURN_STOPPED

# An answer's rows, in an answer's order: the learner's open attempt (locked first, as `finish`
# locks it), its slot while unanswered, the learner's memory of the question (a new one, or the
# one they have) and a review log row; each only if the one before it was written. On
# PostgreSQL outside a transaction one statement, as the answer's own writes are
# (quiz.lib.prepared.InTurn), which quiz_turn_stopped rolls back when it stops after the
# attempt; otherwise one transaction.
_FLOOR_ATTEMPT = """UPDATE quiz_attempt SET last_answered_at = %(now)s WHERE id = %(attempt)s AND user_id = %(user)s
    AND finished_at IS NULL AND (deadline IS NULL OR deadline >= %(now)s) RETURNING id"""
_FLOOR_SLOT = """UPDATE quiz_attemptslot SET chosen_index = 1, is_correct = false, answered_at = %(now)s,
    scheduled_at = %(now)s, seconds_spent = 0 WHERE attempt_id = %(attempt)s AND position = %(position)s
    AND answered_at IS NULL{after} RETURNING question_id"""
_FLOOR_MEMORY = """INSERT INTO quiz_memorystate (user_id, kind, question_id, phase, step, stability, difficulty, due,
    last_review, reps, lapses, last_rating) SELECT %(user)s, 'question', {question}, 3, 0, 2.5, 8.5, %(due)s, %(now)s,
    1, 1, 1{source} ON CONFLICT (user_id, question_id) WHERE question_id IS NOT NULL DO UPDATE SET phase = 3, step = 0,
    stability = 2.5, difficulty = 8.5, due = %(due)s, last_review = %(now)s, reps = quiz_memorystate.reps + 1,
    lapses = quiz_memorystate.lapses + 1, last_rating = 1 RETURNING id"""
_FLOOR_LOG = """INSERT INTO quiz_reviewlog (user_id, memory_id, source, rating, reviewed_at, was_new, retrievability,
    due_after, state_before, answer, shown) SELECT %(user)s, {memory}, 'quiz', 1, %(now)s, false, 0.92, %(due)s,
    %(state)s{cast}, '', %(shown)s{cast}{source} RETURNING id"""
_FLOOR_TOGETHER = f"""WITH attempt AS ({_FLOOR_ATTEMPT}),
    slot AS ({_FLOOR_SLOT.format(after=" AND EXISTS (SELECT 1 FROM attempt)")}),
    memory AS ({_FLOOR_MEMORY.format(question="slot.question_id", source=" FROM slot")}),
    log AS ({_FLOOR_LOG.format(memory="memory.id", cast="::jsonb", source=" FROM memory")})
    SELECT (SELECT id FROM log),
        CASE WHEN EXISTS (SELECT 1 FROM attempt) AND NOT EXISTS (SELECT 1 FROM log) THEN quiz_turn_stopped(1) END"""
_FLOOR_APART = (
    _FLOOR_SLOT.format(after=""),
    _FLOOR_MEMORY.format(question="%(question)s", source=""),
    _FLOOR_LOG.format(memory="%(memory)s", cast="", source=""),
)
# A log row's JSON, as long as an answer's: the memory state it replaced and the question shown.
_FLOOR_STATE = json.dumps({
    "phase": 2, "step": None, "stability": 43.9, "difficulty": 5.68, "due": "2026-12-01T22:08:17+00:00",
    "last_review": "2026-11-01T22:08:17+00:00", "reps": 1, "lapses": 0, "last_rating": 3,
})
_FLOOR_SHOWN = json.dumps({
    "stem": "Demo question 12 of Demo set 1?", "explanation": "Because the demo says so.",
    "choices": [{"text": f"Choice {n}", "correct": n == 1} for n in (4, 1, 3, 2)], "chosen": 1,
})


def write_answer_floor(attempt_id, position, user_id, now):
    """Write the floor's answer to the slot at `position` of the learner's open attempt; False
    (and nothing written) when there is no such unanswered slot."""
    moment = connection.ops.adapt_datetimefield_value  # as Django stores it (SQLite: UTC text without a zone)
    values = {"attempt": attempt_id, "position": position, "user": user_id, "now": moment(now),
              "due": moment(now + timedelta(minutes=10)), "state": _FLOOR_STATE, "shown": _FLOOR_SHOWN}
    if connection.vendor == "postgresql" and connection.get_autocommit():
        try:
            with connection.cursor() as cursor:  # its own transaction: no BEGIN, no COMMIT
                cursor.execute(_FLOOR_TOGETHER, values)
                return cursor.fetchone()[0] is not None
        except DatabaseError as error:
            if getattr(error.__cause__, "sqlstate", None) != TURN_STOPPED:
                raise
            return False  # the slot was answered already: the attempt's write is undone
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_FLOOR_ATTEMPT, values)
        if cursor.fetchone() is None:
            return False
        slot, memory, log = _FLOOR_APART
        cursor.execute(slot, values)
        if (written := cursor.fetchone()) is None:
            transaction.set_rollback(True)
            return False
        cursor.execute(memory, {**values, "question": written[0]})
        cursor.execute(log, {**values, "memory": cursor.fetchone()[0]})
        return True
