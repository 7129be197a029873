"""`make explain`: every query of every page a learner and an instructor reach, EXPLAINed on
PostgreSQL against a database filled by `manage.py seed_demo` (DATABASE_URL), with each
sequential scan of a table that grows with history reported. Exits non-zero when there is one.

    DATABASE_URL=postgres://.../bench make explain            # plans of flagged queries only
    DATABASE_URL=postgres://.../bench python bench/explain.py --analyze   # and each SELECT's time

It writes nothing that lasts: the visits (an answer, ratings, sign-ins) and the quiz they
answer run in one transaction that is rolled back, so a shared benchmark database is left as it
was (only sequences, which no rollback resets, move on).
"""

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studyapp.settings")
os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "testserver")

import django  # noqa: E402

django.setup()

from django.db import connection, transaction  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from quiz.models import Attempt, Classroom, Deck, Question, QuestionPool, ReviewLog, User  # noqa: E402

# Tables whose size follows the history (answers, reviews, attempts), not the content.
GROWING = ("quiz_attemptslot", "quiz_reviewlog", "quiz_attempt", "quiz_memorystate")
# What a page's own work is not: the session and cache lookups, and transaction control.
SKIPPED = ("quiz_usersession", "django_cache", "SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK")
# `.iterator()` reads through a server-side cursor: the query is what follows the DECLARE.
CURSOR = re.compile(r'^DECLARE "[^"]+" NO SCROLL CURSOR (?:WITH(?:OUT)? HOLD )?FOR ', re.S)


def hidden(name, page):
    """A hidden form field's value on the page, for the POST that follows it."""
    found = re.search(rf'name="{name}" value="([^"]+)"', page)
    return found.group(1) if found else ""


def visits():
    """(page, who, method, url, data) in the order a learner and an instructor meet them; `data`
    may be a function of the page the same person saw last (a form's hidden field)."""
    demo, pupil = User.objects.get(username="demo"), User.objects.get(username="demo_learner0")
    teacher = User.objects.get(username="demo_teacher")
    classroom = Classroom.objects.get(name="Demo class")
    assignment = classroom.assignments.order_by("pk").first()
    deck = Deck.objects.get(title="Demo deck")
    quiz = Attempt.objects.start_custom(user=demo, purpose="explain", title="Explain",
                                        questions=Question.objects.order_by("pk")[:20], feedback="immediate")
    finished = Attempt.objects.for_user(demo).finished().order_by("-started_at").first()
    answered = ReviewLog.objects.filter(user=demo, memory__kind="question").order_by("-reviewed_at").first()
    taken = Attempt.objects.filter(assignment=assignment, user=pupil).order_by("started_at").first()
    question_set = finished.question_set_id or Question.objects.order_by("pk").first().question_set_id
    return [
        ("dashboard", demo, "get", "/", None),
        ("question", demo, "get", f"/attempts/{quiz.pk}/questions/1/", None),
        ("answer", demo, "post", f"/attempts/{quiz.pk}/questions/1/", {"choice": "1"}),
        ("attempt (where it stands)", demo, "get", f"/attempts/{quiz.pk}/", None),
        ("review due", demo, "get", "/review/", None),
        ("review due: answer or rate", demo, "post", "/review/",
         lambda page: {"item": hidden("item", page), "choice": "1", "rating": "3"}),
        ("review answer", demo, "get", f"/review/answers/{answered.pk}/", None),
        ("deck", demo, "get", f"/decks/{deck.pk}/", None),
        ("study deck", demo, "get", f"/decks/{deck.pk}/study/", None),
        ("study deck: rate", demo, "post", f"/decks/{deck.pk}/study/",
         lambda page: {"item": hidden("item", page), "rating": "3"}),
        ("drill", demo, "get", f"/decks/{deck.pk}/drill/", None),
        ("drill: answer", demo, "post", f"/decks/{deck.pk}/drill/",
         lambda page: {"token": hidden("token", page), "answer": "myth"}),
        ("card info", demo, "get", f"/cards/{deck.cards.order_by('position').first().pk}/", None),
        ("my attempts", demo, "get", "/attempts/", None),
        ("my attempts, page 3", demo, "get", "/attempts/?page=3", None),
        ("my attempts, one set", demo, "get", f"/attempts/?question_set={question_set}", None),
        ("attempt review (results)", demo, "get", f"/attempts/{finished.pk}/results/", None),
        ("card history", demo, "get", "/history/cards/", None),
        ("library", demo, "get", "/library/", None),
        ("mock exam", demo, "get", "/dashboard/exam/mock/", None),
        ("mock exam: start", demo, "post", "/dashboard/exam/mock/", {"questions": "40", "minutes": "60", "pass_percent": "70"}),
        ("history CSV", demo, "get", "/history/download/", None),
        ("my classes", pupil, "get", "/classes/", None),
        ("assignment (learner)", pupil, "get", f"/assignments/{assignment.pk}/", None),
        ("teach home", teacher, "get", "/teach/", None),
        ("classroom", teacher, "get", f"/teach/classes/{classroom.pk}/", None),
        ("gradebook", teacher, "get", f"/teach/classes/{classroom.pk}/gradebook/", None),
        ("gradebook by score", teacher, "get", f"/teach/classes/{classroom.pk}/gradebook/?sort=-{assignment.pk}", None),
        ("gradebook CSV", teacher, "get", f"/teach/classes/{classroom.pk}/gradebook.csv", None),
        ("responses CSV", teacher, "get", f"/teach/classes/{classroom.pk}/responses.csv", None),
        ("assignment (rules)", teacher, "get", f"/teach/assignments/{assignment.pk}/", None),
        ("learner's attempts", teacher, "get", f"/teach/assignments/{assignment.pk}/learners/{pupil.pk}/", None),
        ("attempt review (instructor)", teacher, "get", f"/teach/attempts/{taken.pk}/", None),
        ("item analysis", teacher, "get", f"/teach/assignments/{assignment.pk}/analysis/", None),
        ("class mock exam", teacher, "get", f"/teach/classes/{classroom.pk}/mock-exam/", None),
        ("class calibration", teacher, "get", f"/teach/classes/{classroom.pk}/calibration/", None),
        ("pool", teacher, "get", f"/teach/pools/{QuestionPool.objects.order_by('pk').first().pk}/", None),
    ]


# Reports over a class's whole history, computed at most once an hour per class (cached): their
# plans are printed and a sequential scan is reported apart, not failed. In the seed one class
# holds every learner, so its reviews are most of the log and reading the log is the cheapest plan.
REPORTS = {"class calibration"}


def explained(sql, analyze):
    """The statement's plan; with `analyze`, a SELECT is run for its actual rows and time."""
    run = analyze and sql.lstrip().upper().startswith("SELECT")
    with connection.cursor() as cursor:
        cursor.execute(("EXPLAIN (ANALYZE, BUFFERS) " if run else "EXPLAIN ") + sql)
        return "\n".join(row[0] for row in cursor.fetchall())


def statements(captured):
    """The page's own statements, as EXPLAIN takes them."""
    for query in captured:
        sql = CURSOR.sub("", query["sql"])
        if any(word in sql for word in SKIPPED):
            continue
        if sql.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE", "INSERT", "WITH")):
            yield sql


def check(page, client, method, url, data, analyze):
    """(statements checked, statements that scan a growing table), printing each of the latter."""
    with CaptureQueriesContext(connection) as captured:
        response = getattr(client, method)(url, data or {})
        body = b"".join(response.streaming_content) if hasattr(response, "streaming_content") else response.content
    print(f"{page:<28} {method.upper():<4} {url:<52} {response.status_code}  {len(captured):>2} queries")
    if response.status_code not in (200, 302):  # a refusal runs other queries than the page's own
        sys.exit(f"{page}: {method.upper()} {url} answered {response.status_code}; is this a seed_demo database?")
    checked = flagged = 0
    for sql in statements(captured):
        checked += 1
        plan = explained(sql, analyze)
        scans = [table for table in GROWING if re.search(rf"Seq Scan on {table}\b", plan)]
        timing = re.search(r"Execution Time: ([\d.]+) ms", plan)
        if timing:
            print(f"    {float(timing.group(1)):8.2f} ms  {sql[:110]}")
        if scans:
            flagged += 1
            print(f"  SEQUENTIAL SCAN of {', '.join(scans)}:\n    {sql[:300]}\n    " + plan.replace("\n", "\n    "))
    return checked, flagged, body.decode(errors="replace")


def main(analyze=False):
    if connection.vendor != "postgresql":
        sys.exit("EXPLAIN checks need PostgreSQL: set DATABASE_URL to a database filled by seed_demo")
    checked = flagged = reported = 0
    with transaction.atomic():  # rolled back below: the database is left as it was
        clients, last_page, pages = {}, {}, visits()
        for page, user, method, url, data in pages:
            if user.pk not in clients:
                clients[user.pk] = Client()
                clients[user.pk].force_login(user)
            data = data(last_page.get(user.pk, "")) if callable(data) else data
            n, bad, last_page[user.pk] = check(page, clients[user.pk], method, url, data, analyze)
            if page in REPORTS:
                checked, reported = checked + n, reported + bad
            else:
                checked, flagged = checked + n, flagged + bad
        batch_checked = check_batch_work(analyze)
        transaction.set_rollback(True)
    print(f"\n{checked} statements of {len(pages)} visits explained; {flagged} scan a growing table sequentially")
    if reported:
        print(f"{reported} in the hourly class reports ({', '.join(sorted(REPORTS))}): reported, not counted (see REPORTS)")
    print(f"{batch_checked} statements of the nightly fit explained (reported, not counted: see check_batch_work)")
    return 1 if flagged else 0


def check_batch_work(analyze):
    """The nightly `optimise_schedules`: choosing whom to fit, and one learner's fit with the
    replay of their memories when the fit is adopted. Their plans are printed, and a sequential
    scan is reported but does not fail the run: choosing counts every learner's reviews once a
    night, which reads the whole log by nature; a fit and its replay read one learner's log
    through the (user, reviewed_at) and (memory, reviewed_at) indexes."""
    from quiz.study import personal  # noqa: PLC0415  (after django.setup)

    demo = User.objects.get(username="demo")
    checked = 0
    for name, work in (("choose learners to fit", lambda: list(personal.learners_to_fit()[:1000])),
                       ("fit demo and replay", lambda: personal.optimise(demo))):
        with CaptureQueriesContext(connection) as captured:
            work()
        print(f"{name:<28} {len(captured):>3} queries")
        for sql in statements(captured):
            if not sql.lstrip().upper().startswith(("SELECT", "WITH")):
                continue  # the replay's bulk UPDATEs go by primary key
            checked += 1
            plan = explained(sql, analyze)
            scans = [table for table in GROWING if re.search(rf"Seq Scan on {table}\b", plan)]
            timing = re.search(r"Execution Time: ([\d.]+) ms", plan)
            print(f"    {float(timing.group(1)) if timing else 0:8.2f} ms  {sql[:110]}")
            if scans:
                print(f"    (reads all of {', '.join(scans)})")
    return checked


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--analyze", action="store_true", help="run each SELECT (EXPLAIN ANALYZE) and print its time")
    sys.exit(main(analyze=parser.parse_args().analyze))
