"""quiz_turn_stopped(made): raised by a turn of writes (quiz.lib.prepared.InTurn) run as one
statement outside a transaction on PostgreSQL when it stopped partway, so that the database
undoes the writes it had made: the statement is its own transaction, and an error ends it
rolled back. Its SQLSTATE (QZ001) and its detail (how many writes were made) tell the app
why. SQLite has no such function and needs none: there a turn runs inside a transaction.
PostgreSQL looks the function up when it parses an answer's statement, so the code that calls
it needs this migration applied first (`make serve` migrates before it serves). Each refusal
is logged by PostgreSQL as an ERROR with its statement (a double click's answer, typically)."""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION quiz_turn_stopped(made integer) RETURNS integer LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a turn of writes stopped after % of them', made USING ERRCODE = 'QZ001', DETAIL = made::text;
END
$$
"""
DROP = "DROP FUNCTION IF EXISTS quiz_turn_stopped(integer)"


def run_on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)  # as written: its "%" is plpgsql's, not a parameter

    return run


class Migration(migrations.Migration):
    dependencies = [("quiz", "0025_slot_attempt_index_covered")]

    operations = [migrations.RunPython(run_on_postgresql(CREATE), run_on_postgresql(DROP))]
