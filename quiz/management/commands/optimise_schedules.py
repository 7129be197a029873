"""Fit personal FSRS parameters for every learner whose review log has grown since their last
fit, keeping each learner's only where they predict that learner's later reviews better than
the defaults (see quiz.study.personal).

For a nightly timer (cron or systemd): a learner can also ask from Settings, but most never
will. Each learner's fit is its own short transaction, so the command can be stopped and run
again at any time; a learner whose log has not changed since is skipped.
"""

from django.core.management.base import BaseCommand
from django.utils import timezone

from quiz.study import personal


class Command(BaseCommand):
    help = (f"Fit FSRS parameters to each learner's own reviews (those with at least {personal.MIN_REVIEWS}, "
            "and new reviews since their last fit); adopt them where they predict better than the defaults.")

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="Say who would be fitted; write nothing.")

    def handle(self, *args, dry_run=False, **options):
        learners = personal.learners_to_fit()
        if dry_run:
            self.stdout.write(f"Would fit {learners.count()} learner(s).")
            return
        fitted = adopted = 0
        for learner in learners.iterator(chunk_size=100):
            fit = personal.optimise(learner, now=timezone.now())
            fitted += 1
            adopted += fit.outcome == fit.Outcome.ADOPTED
        self.stdout.write(f"{fitted} learner(s) fitted, {adopted} adopted their own parameters.")
