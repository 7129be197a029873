"""`make bench`: every page's speed under gunicorn (production settings, 2 workers), as a ratio
to a signed-in bare page of the same stack in the same run, with its queries and its server
time, at BENCH_ANSWERS answers (default "10000 1000000"), on SQLite and on PostgreSQL.

Each size gets a database of its own, filled by `manage.py seed_demo`, whose class, assignments
and `demo` learner are the same at every size of 10,000 answers or more: a page's 1M vs 10k
compares the same class and learner in a longer history (the header line says how many attempts
the class, the analysed assignment and `demo` have, so a run shows it). Requests/s come from
BENCH_CLIENTS threads (default 4) for BENCH_SECONDS (default 3) per page, each asking for gzip
as a browser does; the answer's clients are as many learners of the class, each answering an
attempt of their own in order (four clients on one attempt measured how answers to the same
attempt wait for each other, and ran out of questions in half a second); the query count and
the server time (median of BENCH_REPEAT, default 9, after ten warm-up requests, measured in this
process with Django's test client on the same database, in BENCH_SERVER_ROUNDS rounds, default 3,
the sizes taking turns: the median of the rounds') tell what a page costs apart from the
network. Each page's CPU per request under that load comes from /proc: the app's (gunicorn's
workers, SQLite included), PostgreSQL's processes, and the bench's own clients; a busy machine
moves it far less than requests/s, and the app and database's against the bare page's is the
server's cost ratio, which the client's share does not blur. The sizes are served side by side
and measured page by page in turn, and a last table sets each page's server time at the largest
size against the smallest. A benchmark, not a test: it prints.
"""

import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.servers import Browser, gunicorn_servers, manage, postgres_database, production_env  # noqa: E402

SIZES = [int(size) for size in os.environ.get("BENCH_ANSWERS", "10000 1000000").split()]
DATABASES = os.environ.get("BENCH_DATABASES", "sqlite postgres").split()
CLIENTS = int(os.environ.get("BENCH_CLIENTS", "4"))
SECONDS = float(os.environ.get("BENCH_SECONDS", "3"))
REPEAT = int(os.environ.get("BENCH_REPEAT", "9"))
# Rounds of that in-process server time per page, the sizes taking turns (the median of the
# rounds' medians is reported): on a machine whose speed drifts, one median of nine per size at
# one moment made a page's "1M vs 10k" swing both ways, by up to twice, from run to run.
SERVER_ROUNDS = int(os.environ.get("BENCH_SERVER_ROUNDS", "3"))
# Requests before the server time is measured: psycopg prepares a statement on its fifth run on a
# connection and PostgreSQL plans the first five runs of a prepared statement afresh before it
# keeps a generic plan, so a page's tenth request is the first as warm as a busy server's (the
# answer's slot read takes 2 ms to plan and 0.2 ms to run).
WARMUP = 10
QUESTIONS = 400  # in each bench attempt: one answer POST each
PASSWORD = "demo-pass-phrase"
PG = os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
# What a browser says it accepts: pages of 8 KB or more then come gzipped, as they reach learners.
ACCEPT_ENCODING = "gzip, deflate, br"
# Only the pages whose names start with one of these (comma-separated; the yardstick always runs).
ONLY = [name.strip() for name in os.environ.get("BENCH_PAGES", "").split(",") if name.strip()]


def pages(ids):
    """(name, who, method, url) for each page measured."""
    every = [
        ("bare (yardstick)", "demo", "get", "/bench/bare/"),
        ("dashboard", "demo", "get", "/"),
        ("question", "demo", "get", f"/attempts/{ids['attempt']}/questions/1/"),
        ("answer POST", "demo", "answer", "/attempts/{attempt}/questions/{position}/"),
        ("review due", "demo", "get", "/review/"),
        ("my attempts", "demo", "get", "/attempts/"),
        ("attempt results", "demo", "get", f"/attempts/{ids['finished']}/results/"),
        ("history CSV", "demo", "get", "/history/download/"),
        ("gradebook", "demo_teacher", "get", f"/teach/classes/{ids['classroom']}/gradebook/"),
        ("gradebook CSV", "demo_teacher", "get", f"/teach/classes/{ids['classroom']}/gradebook.csv"),
        ("responses CSV", "demo_teacher", "get", f"/teach/classes/{ids['classroom']}/responses.csv"),
        ("item analysis", "demo_teacher", "get", f"/teach/assignments/{ids['assignment']}/analysis/"),
    ]
    return every[:1] + [page for page in every[1:] if not ONLY or page[0].startswith(tuple(ONLY))]


PREPARE = f"""
from quiz.models import *
questions = list(Question.objects.order_by("pk")[:{QUESTIONS}])
def bench_attempt(username, purpose="bench"):
    user = User.objects.get(username=username)
    return Attempt.objects.start_custom(user=user, purpose=purpose, title="Bench", questions=questions, feedback="immediate")
demo = User.objects.get(username="demo")
attempt = bench_attempt("demo")  # answered in this process (server_side)
# Each client answers as a learner of its own, in an attempt of its own, as a class does:
# answers to one attempt are taken in turn (each holds the attempt's row until it commits).
answering = [bench_attempt(f"demo_learner{{n}}").pk for n in range({CLIENTS})]
finished = Attempt.objects.for_user(demo).finished().order_by("-started_at").first()
classroom = Classroom.objects.get(name="Demo class")
assignment = classroom.assignments.order_by("pk").first()  # Week 1: the whole class took it
sizes = (Attempt.objects.filter(assignment__classroom=classroom).count(), assignment.attempts.count(),
         Attempt.objects.for_user(demo).exclude(purpose="bench").count())
print(attempt.pk, finished.pk, classroom.pk, assignment.pk, *sizes, ",".join(map(str, answering)))
"""


def prepare(env, answers):
    manage(env, "migrate", "--noinput")
    manage(env, "createcachetable")
    # Not through `manage`, whose timeout a million answers on a busy machine can outlast.
    subprocess.run([sys.executable, "manage.py", "seed_demo", "--answers", str(answers)], cwd=ROOT, env=env,
                   check=True, capture_output=True)
    result = subprocess.run([sys.executable, "manage.py", "shell", "-c", PREPARE], cwd=ROOT, env=env,
                            capture_output=True, text=True, check=True)
    names = ("attempt", "finished", "classroom", "assignment", "class_attempts", "assignment_attempts", "demo_attempts",
             "answering")
    ids = dict(zip(names, result.stdout.strip().splitlines()[-1].split()))
    ids["answering"] = ids["answering"].split(",")
    return ids


# The pages that answer: {method: (the ids of demo's attempt, of the clients' attempts)}. Their
# URLs take the attempt and the position of the question answered.
ANSWERING = {"answer": ("attempt", "answering")}


def rate(server, who, method, url, ids, database=None):
    """Requests/s of CLIENTS threads, and their CPU per request (`cpu_seconds`). An answer's
    clients are the learners `demo_learner0`.. each answering their own attempt (`ids`, under
    ANSWERING) in order, as learners of a class do. `database`: PostgreSQL's name of the
    server's database."""
    answering = ids[ANSWERING[method][1]] if method in ANSWERING else ()
    browsers = []
    for index in range(CLIENTS):
        browser = Browser()
        learner = f"demo_learner{index}" if answering else who
        browser.post_form(f"{server}/accounts/login/", {"username": learner, "password": PASSWORD})
        browsers.append(browser)
    before = cpu_seconds(server, database)
    start = time.monotonic()
    done, stop = [0] * CLIENTS, start + SECONDS

    def loop(index):
        browser = browsers[index]
        while time.monotonic() < stop:
            if answering:
                if done[index] == QUESTIONS:
                    return
                answer = url.format(attempt=answering[index], position=done[index] + 1)
                browser.location(f"{server}{answer}", {"choice": "1"})
            else:
                fetch(browser, f"{server}{url}")
            done[index] += 1

    threads = [threading.Thread(target=loop, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Over the time really spent: answers stop early when the attempt's questions run out, and
    # dividing by SECONDS then capped the answer's rate at QUESTIONS / SECONDS (130/s).
    per_second = sum(done) / (time.monotonic() - start)
    spent = {"app": 0.0, "database": 0.0, "client": 0.0}
    for pid, (part, seconds) in cpu_seconds(server, database).items():
        # A process that began meanwhile counts whole; one that ended meanwhile cannot be read.
        spent[part] += (seconds - before.get(pid, (part, 0.0))[1]) * 1000 / max(sum(done), 1)
    return per_second, spent


def cpu_seconds(server, database):
    """{pid: (part, CPU seconds used so far)} of the app (the gunicorn master and workers bound
    to `server`'s address), the database (PostgreSQL's backends connected to `database`; SQLite
    runs inside the app) and this bench (its clients), from /proc: not other servers or
    databases on the machine, nor PostgreSQL's background writers. On a machine as busy as this
    bench makes it, requests/s swing from one round to the next; the CPU each request costs
    moves far less."""
    parts = {}
    if not os.path.isdir("/proc"):
        return parts
    tick = os.sysconf("SC_CLK_TCK")
    bind = f"--bind {server.split('//', 1)[1]} "
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                command = file.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{pid}/stat") as file:
                fields = file.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended meanwhile
        part = ("client" if int(pid) == os.getpid() else "app" if "gunicorn" in command and bind in command
                else "database" if database and command.startswith("postgres") and f" {database} " in command else None)
        if part:
            parts[int(pid)] = part, (int(fields[11]) + int(fields[12])) / tick  # utime + stime
    return parts


def fetch(browser, url):
    """GET `url` as a browser does (compressed if the page is worth it), reading the whole body."""
    request = urllib.request.Request(url, headers={"Accept-Encoding": ACCEPT_ENCODING})
    try:
        with browser.opener.open(request, timeout=30) as response:
            response.read()
    except urllib.error.HTTPError as error:
        error.read()


def server_side(env, who, method, url, ids, positions=None):
    """(queries, median server ms) in this process, through Django's test client. An answering
    page answers demo's attempt at the next of `positions`."""
    answering = method in ANSWERING
    if answering:
        url = url.format(attempt=ids[ANSWERING[method][0]], position="{position}")
    visits = [next(positions) if answering else 0 for _ in range(REPEAT + WARMUP)]
    script = f"""
import statistics, time
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from quiz.models import User
client = Client()
client.force_login(User.objects.get(username={who!r}))
times, counts = [], []
for position in {visits}:
    with CaptureQueriesContext(connection) as queries:
        start = time.perf_counter()
        if {answering}:
            response = client.post({url!r}.format(position=position), {{"choice": "1"}})
        else:
            response = client.get({url!r}, HTTP_ACCEPT_ENCODING={ACCEPT_ENCODING!r})
            if hasattr(response, "streaming_content"):
                b"".join(response.streaming_content)
        times.append((time.perf_counter() - start) * 1000)
    assert response.status_code in (200, 302), response.status_code
    counts.append(len(queries))
print(counts[-1], round(statistics.median(times[{WARMUP}:]), 1))  # the first warm the connection and templates
"""
    bench_env = {**env, "DJANGO_ENV": "development", "DJANGO_DEBUG": "0", "DJANGO_SETTINGS_MODULE": "bench.settings",
                 "DJANGO_ALLOWED_HOSTS": "testserver"}
    result = subprocess.run([sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT, env=bench_env,
                            capture_output=True, text=True, check=True)
    queries, ms = result.stdout.strip().splitlines()[-1].split()
    return int(queries), float(ms)


@contextlib.contextmanager
def database(kind, tmp, answers):
    """A fresh database URL for one size, dropped afterwards (each size has its own, side by side)."""
    if kind != "postgres":
        yield f"sqlite:///{tmp / f'bench{answers}.sqlite3'}"
        return
    with postgres_database(PG, f"bench_{answers}_{os.getpid()}") as url:
        yield url


def measure(kind):
    """Every size seeded and served side by side, then each page measured at one size after the
    other: on a busy machine, drift in its load falls on every size alike, not on the later one."""
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        setups = []
        for answers in SIZES:
            url = stack.enter_context(database(kind, Path(tmp), answers))
            env = production_env(url, Path(tmp) / f"static{answers}", DJANGO_SETTINGS_MODULE="bench.settings")
            ids = prepare(env, answers)
            (server,) = stack.enter_context(gunicorn_servers(env, count=1, workers=2))
            # Each answering page answers demo's attempt of its own, question after question.
            setups.append((answers, env, ids, server, {method: iter(range(1, QUESTIONS + 1)) for method in ANSWERING}))
        results = {answers: [] for answers in SIZES}
        for index in range(len(pages(setups[0][2]))):
            rates, timings = {}, {answers: [] for answers in SIZES}
            for answers, env, ids, server, positions in setups:
                name, who, method, url = pages(ids)[index]
                database_name = env["DATABASE_URL"].rsplit("/", 1)[1] if kind == "postgres" else None
                rates[answers] = name, *rate(server, who, method, url, ids, database_name)
            for round_number in range(SERVER_ROUNDS):
                for answers, env, ids, server, positions in setups[:: 1 if round_number % 2 == 0 else -1]:
                    name, who, method, url = pages(ids)[index]
                    timings[answers].append(server_side(env, who, method, url, ids, positions.get(method)))
            for answers in SIZES:
                name, per_second, cpu = rates[answers]
                queries = timings[answers][-1][0]
                results[answers].append((name, per_second, queries, statistics.median(ms for _, ms in timings[answers]), cpu))
    for answers, _, ids, *_ in setups:
        report(kind, answers, ids, results[answers])
    compare(kind, results)


def report(kind, answers, ids, rows):
    bare = rows[0][1] or 1
    print(f"\n{kind}, {answers:,} answers ({CLIENTS} clients, gunicorn 2 workers); attempts: the class "
          f"{ids['class_attempts']}, the analysed assignment {ids['assignment_attempts']}, demo {ids['demo_attempts']}")
    print(f"{'page':<18}{'req/s':>8}{'ratio':>7}{'queries':>9}{'server ms':>11}   CPU ms per request under load: "
          "app + database (ratio to bare), client")
    bare_cpu = rows[0][4]["app"] + rows[0][4]["database"] or 1
    for name, per_second, queries, ms, cpu in rows:
        server_cpu = cpu["app"] + cpu["database"]
        print(f"{name:<18}{per_second:>8.1f}{per_second / bare:>7.2f}{queries:>9}{ms:>11.1f}   "
              f"{cpu['app']:.2f} + {cpu['database']:.2f} ({bare_cpu / (server_cpu or 1):.2f}), {cpu['client']:.2f}")


def compare(kind, results):
    """Server ms at the largest size against the smallest: the 'flat pages' check (1.3x at most)."""
    small, large = min(results), max(results)
    if small == large:
        return
    print(f"\n{kind}: server ms, {small:,} vs {large:,} answers")
    for (name, _, _, before, _), (_, _, _, after, _) in zip(results[small], results[large]):
        print(f"{name:<18}{before:>9.1f}{after:>9.1f}{after / before:>8.2f}x{'  > 1.3x' if after > 1.3 * before else ''}")


if __name__ == "__main__":
    for kind in DATABASES:
        measure(kind)
