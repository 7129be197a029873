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

from tests.servers import (  # noqa: E402
    count_rows,
    gunicorn_servers,
    manage,
    production_env,
    seed_learners,
    shared_database,
)

USERS = int(os.environ.get("LOADTEST_USERS", "20"))
SECONDS = int(os.environ.get("LOADTEST_SECONDS", "30"))
PASSWORD = "load-test-pass-phrase-42"


def main():
    os.environ.setdefault("DATABASE_URL", os.environ.get("LOADTEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres"))
    with tempfile.TemporaryDirectory() as tmp, shared_database(Path(tmp)) as database_url:
        tmp = Path(tmp)
        env = production_env(database_url, tmp / "static")
        manage(env, "migrate", "--noinput")
        set_id, _ = seed_learners(env, USERS, PASSWORD)
        with gunicorn_servers(env, count=1) as (url,):
            sent_file = tmp / "sent"
            locust_env = {**env, "LOADTEST_PASSWORD": PASSWORD, "LOADTEST_SET_ID": str(set_id),
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
        stored = count_rows(env, "AttemptSlot.objects.filter(answered_at__isnull=False).count()")
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
