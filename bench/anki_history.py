"""An Anki review history written into a learner's log in steps (quiz.content.apkg_history), as
the progress page and catch_up write it: the time of each step and of the whole.

    .venv/bin/python bench/anki_history.py --cards 1000 --per-card 100                      # SQLite file
    .venv/bin/python bench/anki_history.py --cards 1000 --per-card 100 --database postgres  # PostgreSQL

It makes a database of its own (an SQLite file in a temporary folder, or a PostgreSQL database on
BENCH_POSTGRES_URL's server, default postgres://postgres@127.0.0.1:5432/postgres, dropped after),
a learner with a deck of N cards and a HistoryImport of M reviews per card over the last years,
then writes it step by step through import_history_step. A benchmark, not a test: it prints.
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.servers import postgres_database  # noqa: E402

PG = os.environ.get("BENCH_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")


def run(cards, per_card):
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from quiz.content.apkg_history import STEP_REVIEWS, import_history_step
    from quiz.models import Card, Deck, HistoryImport, ReviewLog
    from tests.factories import make_user

    call_command("migrate", verbosity=0)
    user = make_user("mover")
    deck = Deck.objects.create(title="Shared deck", owner=user)
    Card.objects.bulk_create(Card(deck=deck, key=f"n{i}:0", front=f"Front {i}", back="Back", position=i)
                             for i in range(cards))
    rng = random.Random(37)
    now_ms = int(timezone.now().timestamp() * 1000)
    reviews = {}
    for i in range(cards):
        moment = now_ms - 3 * 365 * 86_400_000 + rng.randint(0, 86_400_000)
        rows = []
        for _ in range(per_card):
            moment += rng.randint(1, 9) * 86_400_000 + rng.randint(0, 999)
            rows.append([moment, rng.choice((1, 3, 3, 3, 4)), rng.randint(2_000, 20_000)])
        reviews[f"n{i}:0"] = rows
    total = cards * per_card
    job = HistoryImport.objects.create(owner=user, deck=deck, reviews=reviews, total=total, left=total, cards=cards)
    steps = []
    started = time.perf_counter()
    while True:
        began = time.perf_counter()
        if (step := import_history_step(job.pk)) is None:
            break
        steps.append(time.perf_counter() - began)
        if step.finished_at:
            break
    whole = time.perf_counter() - started
    assert ReviewLog.objects.filter(user=user).count() == total
    print(f"{connection.vendor}: {total:,} reviews of {cards:,} cards in {len(steps)} steps of up to "
          f"{STEP_REVIEWS:,}: {whole:.1f} s in all, a step {min(steps):.2f}-{max(steps):.2f} s "
          f"(median {sorted(steps)[len(steps) // 2]:.2f} s)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--per-card", type=int, default=100)
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child:
        return run(arguments.cards, arguments.per_card)
    command = [sys.executable, __file__, "--child", "--cards", str(arguments.cards),
               "--per-card", str(arguments.per_card)]
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "studyapp.settings"}
    if arguments.database == "postgres":
        with postgres_database(PG, "bench_anki_history") as url:
            subprocess.run(command, env={**environment, "DATABASE_URL": url}, check=True)
        return None
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/bench.sqlite3"
        subprocess.run(command, env={**environment, "DATABASE_URL": url}, check=True)
    return None


if __name__ == "__main__":
    main()
