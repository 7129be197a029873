"""How long personal FSRS parameters take to fit: one learner with 1k, 10k and 100k reviews
(reading the log, building the items, fitting, scoring both parameter sets), then the nightly
`optimise_schedules` over N learners. A benchmark, not a test: it prints.

Runs on a throwaway database it creates and migrates (SQLite in a temporary file unless
DATABASE_URL names another, which it then fills: never point it at real data).

    .venv/bin/python bench/fit.py [--learners 1000] [--sizes 1000 10000 100000]
"""

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studyapp.settings")
if "DATABASE_URL" not in os.environ:
    os.environ["DATABASE_URL"] = f"sqlite:///{tempfile.mkdtemp()}/fit-bench.sqlite3"

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from quiz.models import User  # noqa: E402
from quiz.study import personal  # noqa: E402
from tests.learner_simulation import simulate_histories, store_histories  # noqa: E402

REVIEWS_PER_ITEM = 8


def one_learner(size):
    learner = User.objects.create_user(f"bench{size}")
    store_histories(learner, simulate_histories(size // REVIEWS_PER_ITEM, seed=size))
    started = time.perf_counter()
    fit = personal.optimise(learner)
    seconds = time.perf_counter() - started
    metrics = fit.metrics or {}
    print(f"{size:>7} reviews: {seconds:6.2f} s  {fit.outcome}  "
          f"log loss {metrics.get('personal', {}).get('log_loss', 0):.3f} vs default "
          f"{metrics.get('default', {}).get('log_loss', 0):.3f}", flush=True)


def nightly(learners, reviews_each):
    histories = simulate_histories(reviews_each // REVIEWS_PER_ITEM, seed=7)  # the same log for each: fitting time is what counts
    for number in range(learners):
        store_histories(User.objects.create_user(f"nightly{number}"), histories)
    started = time.perf_counter()
    call_command("optimise_schedules")
    seconds = time.perf_counter() - started
    print(f"optimise_schedules over {learners} learners of {reviews_each} reviews: {seconds:.1f} s "
          f"({seconds / learners * 1000:.0f} ms each)", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[1000, 10_000, 100_000])
    parser.add_argument("--learners", type=int, default=1000)
    parser.add_argument("--reviews-each", type=int, default=800)
    options = parser.parse_args()
    call_command("migrate", verbosity=0)
    call_command("createcachetable")  # the content version lives there (quiz.lib.content_version)
    print(f"database: {django.db.connection.vendor}")
    for size in options.sizes:
        one_learner(size)
    if options.learners:
        nightly(options.learners, options.reviews_each)


if __name__ == "__main__":
    main()
