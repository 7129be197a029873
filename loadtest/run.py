"""`make loadtest`: N learners answer quizzes against a production server, then the figures.

1. A database of its own (PostgreSQL at LOADTEST_DATABASE_URL's server, default the local one;
   dropped afterwards), migrated, with the seed content and N learners.
2. gunicorn on the production settings (WEB_WORKERS workers), on 127.0.0.1 only.
3. locust, headless, for LOADTEST_SECONDS with LOADTEST_USERS learners (bounded in time and count).
4. It prints the 5xx responses, the answers sent vs stored, and p50/p95 per request kind, and
   exits non-zero if any answer was lost or doubled or any response was a 5xx.
"""

import csv
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.servers import gunicorn_servers, manage, production_env, shared_database  # noqa: E402

USERS = int(os.environ.get("LOADTEST_USERS", "20"))
SECONDS = int(os.environ.get("LOADTEST_SECONDS", "30"))
PASSWORD = "load-test-pass-phrase-42"


def prepare(env):
    manage(env, "migrate", "--noinput")
    manage(env, "import_questions", str(ROOT / "fixtures" / "seed.json"))
    script = (
        "from quiz.models import User, QuestionSet\n"
        "from django.contrib.auth.hashers import make_password\n"
        f"hashed = make_password({PASSWORD!r})\n"
        f"User.objects.bulk_create([User(username=f'load{{n}}', password=hashed) for n in range({USERS})])\n"
        "print(QuestionSet.objects.order_by('pk').values_list('pk', flat=True).first())\n"
    )
    result = subprocess.run([sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT, env=env,
                            capture_output=True, text=True, check=True)
    return result.stdout.strip().splitlines()[-1]


def stored_answers(env):
    script = "from quiz.models import AttemptSlot; print(AttemptSlot.objects.filter(answered_at__isnull=False).count())"
    result = subprocess.run([sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT, env=env,
                            capture_output=True, text=True, check=True)
    return int(result.stdout.strip().splitlines()[-1])


def main():
    os.environ.setdefault("DATABASE_URL", os.environ.get("LOADTEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres"))
    with tempfile.TemporaryDirectory() as tmp, shared_database(Path(tmp)) as database_url:
        tmp = Path(tmp)
        env = production_env(database_url, tmp / "static")
        set_id = prepare(env)
        with gunicorn_servers(env, count=1) as (url,):
            sent_file = tmp / "sent"
            locust_env = {**env, "LOADTEST_PASSWORD": PASSWORD, "LOADTEST_SET_ID": set_id,
                          "LOADTEST_SENT_FILE": str(sent_file)}
            subprocess.run(
                [sys.executable, "-m", "locust", "-f", str(ROOT / "loadtest" / "locustfile.py"), "--headless",
                 "-u", str(USERS), "-r", str(USERS), "--run-time", f"{SECONDS}s", "--host", url,
                 "--csv", str(tmp / "stats"), "--only-summary", "--loglevel", "WARNING",
                 # Learners finish the quiz in hand before stopping: an answer cut off in flight
                 # would be stored but never known as sent.
                 "--stop-timeout", "30"],
                cwd=ROOT, env=locust_env, check=False, timeout=SECONDS + 180,
            )
            sent = int(sent_file.read_text() or 0)
        stored = stored_answers(env)
        return report(tmp / "stats_stats.csv", tmp / "stats_failures.csv", sent, stored)


def report(stats_path, failures_path, sent, stored):
    rows = list(csv.DictReader(stats_path.open()))
    failures = list(csv.DictReader(failures_path.open())) if failures_path.exists() else []
    server_errors = sum(int(row["Occurrences"]) for row in failures if re.search(r"\b5\d\d\b", row.get("Error", "")))
    print(f"\nLearners: {USERS}, for {SECONDS} s, against gunicorn ({os.environ.get('WEB_WORKERS', '2')} workers) on PostgreSQL")
    print(f"{'request':<22}{'count':>8}{'failures':>10}{'p50 ms':>9}{'p95 ms':>9}{'req/s':>8}")
    for row in rows:
        print(f"{row['Name']:<22}{row['Request Count']:>8}{row['Failure Count']:>10}{row['50%']:>9}{row['95%']:>9}"
              f"{float(row['Requests/s']):>8.1f}")
    print(f"5xx responses: {server_errors}")
    print(f"answers sent (accepted): {sent}, answers stored: {stored}")
    ok = server_errors == 0 and sent == stored
    print("OK: no 5xx, no answer lost or doubled" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
