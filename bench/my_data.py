""""Download my data" for a heavy learner, over HTTP: time to the first byte, total time and bytes,
and the server's peak memory.

    .venv/bin/python bench/my_data.py --reviews 1000000                       # SQLite file
    .venv/bin/python bench/my_data.py --reviews 1000000 --database postgres   # PostgreSQL

It makes a database of its own (an SQLite file in a temporary folder, or a PostgreSQL database on
BENCH_POSTGRES_URL's server, default postgres://postgres@127.0.0.1:5432/postgres, dropped after),
fills it through the ORM (bulk_create in batches) with a learner `bench` who has N review-log rows
over 200 cards and 200 questions, a few hundred attempts, a class and content of their own, and
another learner with a tenth of that history, whom the download must leave out. Then it starts
gunicorn on the production settings (one sync worker, the production timeout, WEB_TIMEOUT or 30 s),
signs in through the login form and downloads /settings/my-data/ as a browser does (asking for
gzip), timing the first byte of the body and the whole. The worker's peak memory is its VmHWM in
/proc, read before and after the download. Last, it checks the archive: every file reads, and
reviews.json holds the learner's N rows. A benchmark, not a test: it prints.

A sync worker that spends longer than gunicorn's --timeout on one request is killed, download or
not: `--timeout 0` (no limit) measures a download that outlasts the production 30 s.
`--reuse NAME` keeps the database (SQLite: the file NAME; PostgreSQL: the database NAME) and seeds
it only once, for reruns: a million rows take minutes to make. Drop it yourself afterwards.
"""

import argparse
import contextlib
import http.client
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse
import zipfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.run import cpu_seconds  # noqa: E402
from tests.servers import Browser, free_port, manage, postgres_database, production_env, wait_until_up  # noqa: E402

PG = os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
PASSWORD = "bench-pass-phrase"

# Run in `manage.py shell` on the bench's database: the two learners' histories. Rows are made
# in batches so the filling process stays small too.
SEED = """
import random
from datetime import timedelta
from django.contrib.auth.hashers import make_password
from django.utils import timezone
from quiz.models import *
from quiz.study.scheduling import snapshot
from tests.factories import make_deck, make_question_set

BATCH = 10_000
rng = random.Random(40)
now = timezone.now()
hashed = make_password({password!r})


def history(username, reviews, attempts):
    user = User.objects.create(username=username, password=hashed, email=f"{{username}}@example.com")
    deck = make_deck(f"{{username}}'s deck", cards=200, owner=user)
    quiz = make_question_set(f"{{username}}'s questions", questions=200, owner=user)
    questions = list(quiz.questions.prefetch_related("choices").order_by("position"))
    cards = [MemoryState(user=user, kind="card", card=card, phase=2, stability=rng.uniform(1, 60),
                         difficulty=rng.uniform(2, 8), due=now + timedelta(days=rng.randint(-5, 30)),
                         last_review=now, reps=5, last_rating=3) for card in deck.cards.all()]
    asked = [MemoryState(user=user, kind="question", question=question, phase=2, stability=rng.uniform(1, 60),
                         difficulty=rng.uniform(2, 8), due=now + timedelta(days=rng.randint(-5, 30)),
                         last_review=now, reps=5, last_rating=3) for question in questions]
    memories = MemoryState.objects.bulk_create(cards + asked)
    shown = {{q.pk: {{"stem": q.stem, "explanation": q.explanation, "kind": q.kind,
                     "choices": [{{"text": c.text, "correct": c.is_correct}} for c in q.choices.all()]}}
              for q in questions}}
    start = now - timedelta(minutes=reviews + 10)
    for first in range(0, reviews, BATCH):
        rows = []
        for n in range(first, min(first + BATCH, reviews)):
            memory = memories[n % len(memories)]
            question = memory.kind == "question"
            at = start + timedelta(minutes=n)
            rows.append(ReviewLog(
                user=user, memory=memory, source="review" if question else "study", rating=rng.choice([1, 3, 3, 3, 4]),
                reviewed_at=at, due_after=at + timedelta(days=3), duration_ms=rng.randint(1500, 12000),
                was_new=n < len(memories), retrievability=None if n < len(memories) else rng.uniform(0.5, 1),
                state_before=None if n < len(memories) else snapshot(memory),
                shown={{**shown[memory.question_id], "chosen": 1}} if question else None,
            ))
        ReviewLog.objects.bulk_create(rows)
    for number in range(attempts):
        attempt = Attempt.objects.create_with_slots(user=user, questions=questions[:20], feedback="immediate",
                                                    rng=rng, question_set=quiz)
        Attempt.objects.filter(pk=attempt.pk).update(finished_at=now, correct_count=0)
    classroom = Classroom.objects.create(owner=user, name=f"{{username}}'s study group")
    classroom.join(user)
    return user


history("bench_other", {reviews} // 10, 30)
history("bench", {reviews}, 300)
print(ReviewLog.objects.filter(user__username="bench").count())
"""


@contextlib.contextmanager
def database(kind, folder, reuse=None):
    """(the database's URL, whether it was seeded by an earlier run)."""
    if kind == "sqlite":
        yield f"sqlite:///{reuse or folder / 'my_data.sqlite3'}", bool(reuse and Path(reuse).exists())
    elif reuse:
        yield kept_postgres_database(str(reuse))
    else:
        with postgres_database(PG, f"bench_my_data_{os.getpid()}") as url:
            yield url, False


def kept_postgres_database(name):
    import psycopg

    with psycopg.connect(PG, autocommit=True) as connection:
        exists = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            connection.execute(f'CREATE DATABASE "{name}"')
    return urllib.parse.urlsplit(PG)._replace(path=f"/{name}").geturl(), bool(exists)


@contextlib.contextmanager
def gunicorn(env, timeout):
    """One gunicorn master and sync worker; yields (base URL, the worker's pid)."""
    port = free_port()
    master = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "studyapp.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1",
         "--timeout", str(timeout)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_up(url)
        yield url, worker_of(master.pid)
    finally:
        master.terminate()
        _, errors = master.communicate(timeout=30)
        if "WORKER TIMEOUT" in errors:
            print(f"gunicorn's --timeout ({timeout} s) killed the worker in the middle of the download")
        elif "Traceback" in errors:
            print("gunicorn said:\n" + errors[-3000:])


def worker_of(pid):
    with open(f"/proc/{pid}/task/{pid}/children") as file:
        return int(file.read().split()[0])


def peak_memory_mb(pid):
    """The process's peak resident memory so far (VmHWM), in MB."""
    with open(f"/proc/{pid}/status") as file:
        return int(re.search(r"VmHWM:\s+(\d+) kB", file.read()).group(1)) / 1024


def download(url, cookies, into, every_second=lambda: None):
    """GET the archive as a browser does; (seconds to the first byte of the body, total seconds,
    the longest wait for the next bytes, bytes over the wire, whether it came whole), the archive
    written to `into`; `every_second` is called about once a second meanwhile."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)
    start = time.perf_counter()
    connection.request("GET", "/settings/my-data/", headers={"Cookie": cookies, "Accept-Encoding": "gzip"})
    response = connection.getresponse()
    assert response.status == 200, response.status
    gzipped = response.getheader("Content-Encoding") == "gzip"
    inflate = zlib.decompressobj(16 + zlib.MAX_WBITS)
    first, wire, whole, ticked, last, pause = None, 0, True, start, start, 0
    with open(into, "wb") as file:
        try:
            while chunk := response.read1(1 << 16):
                first = first or time.perf_counter() - start
                pause, last = max(pause, time.perf_counter() - last), time.perf_counter()
                wire += len(chunk)
                file.write(inflate.decompress(chunk) if gzipped else chunk)
                if time.perf_counter() - ticked >= 1:
                    every_second()
                    ticked = time.perf_counter()
        except http.client.IncompleteRead:  # the worker was killed (see `gunicorn`)
            whole = False
    return first, time.perf_counter() - start, pause, wire, whole


def cpu_used(before, after):
    """{"app", "database", "client": CPU seconds between two `cpu_seconds` readings}."""
    spent = {"app": 0.0, "database": 0.0, "client": 0.0}
    for pid, (part, seconds) in after.items():
        spent[part] += seconds - before.get(pid, (part, 0.0))[1]
    return spent


def check(archive, reviews):
    """The archive's files, and the learner's review rows counted in reviews.json (a row a line)."""
    with zipfile.ZipFile(archive) as opened:
        names = opened.namelist()
        with opened.open("reviews.json") as file:
            rows = sum(1 for line in file if line.startswith(b"{"))
    assert rows == reviews, f"reviews.json holds {rows} rows, not {reviews}"
    return names


def seed(env, options):
    started = time.perf_counter()
    seeded = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", SEED.format(password=PASSWORD, reviews=options.reviews)],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True,
    )
    print(f"{options.database}: {int(seeded.stdout.split()[-1]):,} review rows for `bench` "
          f"(and a tenth for another learner), seeded in {time.perf_counter() - started:.0f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reviews", type=int, default=1_000_000, help="the learner's review-log rows")
    default = "postgres" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite"
    parser.add_argument("--database", choices=["sqlite", "postgres"], default=default)
    parser.add_argument("--timeout", type=int, default=int(os.environ.get("WEB_TIMEOUT", "30")),
                        help="gunicorn's --timeout (default: WEB_TIMEOUT, or 30 as `make serve`); 0: none")
    parser.add_argument("--reuse", help="an SQLite file or a PostgreSQL database name to keep the data in, for reruns")
    options = parser.parse_args()
    with (tempfile.TemporaryDirectory() as folder,
          database(options.database, Path(folder), options.reuse) as (url, seeded)):
        env = production_env(url, Path(folder) / "static")
        manage(env, "migrate", "--noinput")
        manage(env, "createcachetable")
        manage(env, "collectstatic", "--noinput")
        if seeded:
            print(f"{options.database}: the database seeded before in {options.reuse}")
        else:
            seed(env, options)
        with gunicorn(env, options.timeout) as (server, worker):
            browser = Browser()
            status, _ = browser.post_form(f"{server}/accounts/login/", {"username": "bench", "password": PASSWORD})
            assert status == 302, f"signing in answered {status}"
            cookies = "; ".join(f"{cookie.name}={cookie.value}" for cookie in browser.jar)
            database_name = url.rsplit("/", 1)[1] if options.database == "postgres" else None
            before, cpu_before = peak_memory_mb(worker), cpu_seconds(server, database_name)
            # Read while the download runs too: at its end, a connection older than
            # CONN_MAX_AGE is closed, and its PostgreSQL process with it.
            cpu_last = {}
            first, total, pause, wire, whole = download(server + "/", cookies, Path(folder) / "archive.zip",
                                                 lambda: cpu_last.update(cpu_seconds(server, database_name)))
            after = peak_memory_mb(worker) if whole else None
            cpu = cpu_used(cpu_before, {**cpu_last, **cpu_seconds(server, database_name)})
        size = (Path(folder) / "archive.zip").stat().st_size
        print(f"first byte {first:.2f} s, total {total:.1f} s, longest wait for more {pause:.2f} s, "
              f"{wire / 1e6:.1f} MB over the wire (gzip asked), archive {size / 1e6:.1f} MB"
              + ("" if whole else ": CUT SHORT"))
        if whole:
            names = check(Path(folder) / "archive.zip", options.reviews)
            print(f"{len(names)} files, reviews.json holds the {options.reviews:,} rows")
            print(f"gunicorn worker peak memory (VmHWM): {before:.0f} MB before the download, {after:.0f} MB after")
            print(f"CPU seconds for the download: app {cpu['app']:.1f}, database {cpu['database']:.1f} "
                  "(a busy machine stretches the total time, much less these)")


if __name__ == "__main__":
    main()
