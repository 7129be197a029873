"""`make explain` (bench/explain.py) keeps working as pages change: every visit is answered as
a learner or instructor would see it, the CSVs' server-side cursors are explained, and the
database is left as it was. Whether a plan scans is for a seeded million-answer database, not
for these few rows."""

import importlib.util
import io
from contextlib import redirect_stdout
from pathlib import Path

from django.core.management import call_command

from quiz.models import Attempt, AttemptSlot, ReviewLog

# EXPLAIN plans are PostgreSQL's: tests/conftest.py collects this module only there (never a skip).


def load_explain():
    path = Path(__file__).resolve().parent.parent / "bench" / "explain.py"
    spec = importlib.util.spec_from_file_location("explain", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def written():
    """What the visits write: attempts, answers, reviews."""
    answers = AttemptSlot.objects.filter(answered_at__isnull=False).count()
    return Attempt.objects.count(), answers, ReviewLog.objects.count()


def test_it_explains_every_visit_and_writes_nothing(db):
    # 400 reviews: the demo learner's log reaches its questions (after its 200 cards).
    call_command("seed_demo", "--answers", "1000", "--learners", "20", "--reviews", "400", stdout=io.StringIO())
    before = written()
    explain, out = load_explain(), io.StringIO()

    with redirect_stdout(out):
        explain.main()  # exits at once on a visit refused or failed

    lines = out.getvalue().splitlines()
    visits = [line for line in lines if line.endswith(" queries")]
    # 37 pages (the hourly class calibration among them), then the nightly fit's two parts
    # (choosing learners, one fit and its replay).
    assert len(visits) == 37 + 2
    assert any("37 visits explained" in line for line in lines[-3:])
    assert "statements of the nightly fit explained" in lines[-1]
    # The history CSV's rows come through a cursor (DECLARE ... FOR SELECT): explained too.
    declared = {"sql": 'DECLARE "c1" NO SCROLL CURSOR WITH HOLD FOR SELECT 1'}
    assert list(explain.statements([declared])) == ["SELECT 1"]
    assert written() == before
