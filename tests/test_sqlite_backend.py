"""The SQLite backend (studyapp.sqlite3): Django's, with each statement's placeholders converted
once. Checked on its own cursor over an in-memory database, whatever database the suite runs on."""

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from studyapp.sqlite3.base import CONVERTED_KEPT, LONGEST_KEPT, SQLiteCursorWrapper


@pytest.fixture
def cursor():
    SQLiteCursorWrapper._converted.clear()
    connection = sqlite3.connect(":memory:")
    yield connection.cursor(factory=SQLiteCursorWrapper)
    connection.close()


def test_a_statement_runs_as_django_writes_it_and_its_conversion_is_kept(cursor):
    statement = "SELECT %s, '100%%', %s, '%%s'"

    assert cursor.execute(statement, (1, "two")).fetchone() == (1, "100%", "two", "%s")
    assert cursor.execute(statement, (3, "four")).fetchone() == (3, "100%", "four", "%s")
    assert SQLiteCursorWrapper._converted == {statement: "SELECT ?, '100%', ?, '%s'"}


def test_named_parameters_and_statements_without_parameters_still_run(cursor):
    assert cursor.execute("SELECT %(a)s + %(b)s", {"a": 1, "b": 2}).fetchone() == (3,)
    assert cursor.execute("SELECT '100%'").fetchone() == ("100%",)
    assert SQLiteCursorWrapper._converted == {}


def test_a_very_long_statement_is_not_kept_and_the_kept_ones_stay_few(cursor):
    long_statement = f"SELECT %s /* {'x' * LONGEST_KEPT} */"
    assert cursor.execute(long_statement, (1,)).fetchone() == (1,)
    assert SQLiteCursorWrapper._converted == {}

    for number in range(CONVERTED_KEPT + 10):
        cursor.execute(f"SELECT %s + {number}", (1,))
    assert len(SQLiteCursorWrapper._converted) <= CONVERTED_KEPT
    assert cursor.execute("SELECT %s + 1", (1,)).fetchone() == (2,)


def test_the_settings_run_a_sqlite_database_on_this_backend(tmp_path):
    """Whatever database this suite runs on: the settings a SQLite URL gives."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}", "DJANGO_SETTINGS_MODULE": "studyapp.settings"}
    engine = subprocess.run(
        [sys.executable, "-c", "from django.conf import settings; print(settings.DATABASES['default']['ENGINE'])"],
        cwd=Path(__file__).resolve().parent.parent, env=env, capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert engine == "studyapp.sqlite3"
