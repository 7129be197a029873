"""`make explain`: every query of every page, EXPLAINed on PostgreSQL against a seeded database
(DATABASE_URL, filled by `manage.py seed_demo`), with each sequential scan of a table that
grows with history reported. Exits non-zero when there is one.

    DATABASE_URL=postgres://.../bench make explain
"""

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

from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from quiz.models import Attempt, Classroom, Question, User  # noqa: E402

# Tables whose size follows the history (answers, reviews, attempts), not the content.
GROWING = ("quiz_attemptslot", "quiz_reviewlog", "quiz_attempt", "quiz_memorystate")


def pages():
    demo, teacher = User.objects.get(username="demo"), User.objects.get(username="demo_teacher")
    attempt = Attempt.objects.start_custom(user=demo, purpose="explain", title="Explain",
                                           questions=Question.objects.order_by("pk")[:20], feedback="immediate")
    classroom = Classroom.objects.get(name="Demo class")
    assignment = classroom.assignments.order_by("pk").first()
    return [
        (demo, "get", "/"), (demo, "get", f"/attempts/{attempt.pk}/questions/1/"),
        (demo, "post", f"/attempts/{attempt.pk}/questions/1/"), (demo, "get", "/review/"),
        (demo, "get", "/attempts/"), (demo, "get", "/history/download/"), (demo, "get", "/history/cards/"),
        (teacher, "get", f"/teach/classes/{classroom.pk}/gradebook/"),
        (teacher, "get", f"/teach/classes/{classroom.pk}/responses.csv"),
        (teacher, "get", f"/teach/assignments/{assignment.pk}/analysis/"),
    ]


def main():
    if connection.vendor != "postgresql":
        sys.exit("EXPLAIN checks need PostgreSQL: set DATABASE_URL to a database filled by seed_demo")
    problems = 0
    for user, method, url in pages():
        client = Client()
        client.force_login(user)
        with CaptureQueriesContext(connection) as captured:
            response = getattr(client, method)(url, {"choice": "1"} if method == "post" else {})
            if hasattr(response, "streaming_content"):
                b"".join(response.streaming_content)
        print(f"{method.upper()} {url}: {len(captured)} queries")
        for query in captured:
            sql = query["sql"]
            if not sql.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE")) or "django_session" in sql:
                continue
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN " + sql)
                plan = "\n".join(row[0] for row in cursor.fetchall())
            scans = [table for table in GROWING if re.search(rf"Seq Scan on {table}\b", plan)]
            if scans:
                problems += 1
                print(f"  SEQUENTIAL SCAN of {', '.join(scans)}:\n    {sql[:300]}\n    " + plan.replace("\n", "\n    "))
    print(f"\n{problems} quer{'y' if problems == 1 else 'ies'} scan a growing table")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
