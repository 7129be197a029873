"""SQLite as the embedded default must serve several people at once: eight learners answering
at the same time through gunicorn (several worker processes, one SQLite file) get no error,
and every answer is stored once."""

import re
import threading

import pytest

from tests.servers import Browser, count_rows, gunicorn_servers, production_env, seed_learners

pytestmark = pytest.mark.servers
LEARNERS = 8
PASSWORD = "sqlite-clients-pass-phrase"


def take_the_quiz(server, username, set_id, statuses):
    browser = Browser()
    browser.post_form(f"{server}/accounts/login/", {"username": username, "password": PASSWORD})
    status, location = browser.location(f"{server}/sets/{set_id}/start/", {})
    statuses.append(status)
    attempt = re.search(r"/attempts/(\d+)/", location).group(1)
    for position in range(1, 50):
        status, _ = browser.location(f"{server}/attempts/{attempt}/questions/{position}/", {"choice": "1"})
        statuses.append(status)
        status, location = browser.location(f"{server}/attempts/{attempt}/")
        statuses.append(status)
        if "/results/" in (location or ""):
            return


def test_eight_learners_answering_at_once_on_sqlite_get_no_error(tmp_path):
    env = production_env(f"sqlite:///{tmp_path / 'db.sqlite3'}", tmp_path / "static")
    with gunicorn_servers(env, count=1, workers=4) as (server,):
        set_id, questions = seed_learners(env, LEARNERS, PASSWORD, prefix="sqlite")
        statuses = []
        threads = [
            threading.Thread(target=take_the_quiz, args=(server, f"sqlite{n}", set_id, statuses))
            for n in range(LEARNERS)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)

    assert statuses and set(statuses) == {302}, sorted(set(statuses))  # no 500 "database is locked"
    assert count_rows(env, "AttemptSlot.objects.filter(answered_at__isnull=False).count()") == LEARNERS * questions
