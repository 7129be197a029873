"""The PostgreSQL backend (studyapp.postgresql): Django's, with timestamps read by psycopg's
compiled loader, which must give exactly what Django's own loader gives. tests/conftest.py
collects this module only when the suite runs on PostgreSQL (never a skip)."""

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import psycopg
import pytest
from django.db import connection
from django.db.backends.postgresql.psycopg_any import register_tzloader
from django.test import override_settings
from psycopg.pq import Format

from quiz.models import Attempt
from studyapp.postgresql.base import UtcTimestampLoader

from .factories import make_question_set, make_user, start_attempt

MOMENTS = [
    datetime(2026, 12, 1, 16, 20, 5, 123456, tzinfo=UTC),
    datetime(1969, 7, 20, 20, 17, 40, tzinfo=UTC),
    datetime(2999, 1, 2, 3, 4, 5, 6, tzinfo=UTC),
    datetime(2026, 3, 29, 1, 30, tzinfo=ZoneInfo("Europe/Paris")),  # written in another zone, read in UTC
    datetime(2026, 10, 25, 23, 59, 59, 999999, tzinfo=timezone(timedelta(hours=-9, minutes=-30))),
]


def read(cursor, moments):
    cursor.execute("SELECT unnest(%s::timestamptz[])", [moments])
    return [row[0] for row in cursor.fetchall()]


def test_the_settings_run_a_postgresql_database_on_this_backend():
    url = "postgres://postgres@127.0.0.1:5432/anything"
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "studyapp.settings"}
    engine = subprocess.run(
        [sys.executable, "-c", "from django.conf import settings; print(settings.DATABASES['default']['ENGINE'])"],
        cwd=Path(__file__).resolve().parent.parent, env=env, capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert engine == "studyapp.postgresql"


def loader_of(cursor):
    """The loader a Django cursor reads a timestamptz with (Django may register its own on it)."""
    adapters = cursor.cursor.adapters
    return adapters.get_loader(adapters.types["timestamptz"].oid, Format.TEXT)


@pytest.mark.django_db
def test_timestamps_read_as_django_reads_them_in_utc():
    with connection.cursor() as cursor:
        assert loader_of(cursor) is UtcTimestampLoader
        ours = read(cursor, MOMENTS)
    with connection.cursor() as cursor:
        register_tzloader(timezone.utc, cursor.cursor)  # Django's own loader, on this cursor alone
        djangos = read(cursor, MOMENTS)

    assert ours == djangos == MOMENTS
    assert all(moment.tzinfo is timezone.utc for moment in ours + djangos)
    assert [moment.isoformat() for moment in ours] == [moment.isoformat() for moment in djangos]


@pytest.mark.django_db
def test_a_model_and_a_server_side_cursor_read_the_same_moment():
    attempt = start_attempt(make_user(), make_question_set())
    started = datetime(2026, 12, 1, 9, 8, 7, 654321, tzinfo=UTC)
    Attempt.objects.filter(pk=attempt.pk).update(started_at=started)

    assert Attempt.objects.get(pk=attempt.pk).started_at == started
    with connection.chunked_cursor() as cursor:  # what .iterator() reads through
        assert loader_of(cursor) is UtcTimestampLoader
    streamed = list(Attempt.objects.filter(pk=attempt.pk).values_list("started_at", flat=True).iterator(chunk_size=10))
    assert streamed == [started] and streamed[0].tzinfo is timezone.utc


@pytest.mark.django_db
def test_the_compiled_loader_is_only_for_a_session_in_utc():
    params = {key: value for key, value in connection.get_connection_params().items() if key != "cursor_factory"}
    with psycopg.connect(**params, autocommit=True) as other:
        other.execute("SET TIME ZONE 'Europe/Paris'")
        assert not connection.compiled_loader_fits(other)
        other.execute("SET TIME ZONE 'UTC'")
        assert connection.compiled_loader_fits(other)


@pytest.mark.django_db
def test_without_time_zones_django_reads_naive_timestamps_with_its_own_loader():
    with override_settings(USE_TZ=False, TIME_ZONE="Europe/Paris"):
        with connection.cursor() as cursor:
            assert loader_of(cursor) is not UtcTimestampLoader
            (moment,) = read(cursor, MOMENTS[:1])
        assert moment.tzinfo is None
    with connection.cursor() as cursor:
        assert loader_of(cursor) is UtcTimestampLoader  # back on, for the rest of the suite
