"""Close timed attempts whose deadline has passed and release held-back answers into the
learners' memory queues, for everyone; finish writing the Anki histories learners imported
and left the progress page of; and send LMS gradebooks the scores that changed or failed to go.

Pages do this for the learner who opens them; a learner who never comes back needs a timer
(cron or a systemd timer, every few minutes) to run this instead. Safe to run at any time and
from several servers at once: every close and every release is a guarded UPDATE.
"""

from django.core.management.base import BaseCommand

from quiz.content.apkg_history import finish_history_imports
from quiz.lti.grades import catch_up_grades
from quiz.study.catch_up import catch_up


class Command(BaseCommand):
    help = "Close expired timed attempts and release answers whose feedback may now be shown, for every learner."

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="Count what would be done; write nothing.")

    def handle(self, *args, dry_run=False, **options):
        closed, released = catch_up(dry_run=dry_run)
        if dry_run:
            self.stdout.write(f"Would close {closed} expired attempt(s) and release {released} answer(s).")
        else:
            self.stdout.write(f"Closed {closed} expired attempt(s); released {released} answer(s) to the review queue.")
            if histories := finish_history_imports():
                self.stdout.write(f"Finished writing {histories} imported Anki review history(ies).")
            sent, failed = catch_up_grades()
            if sent or failed:
                self.stdout.write(f"Sent {sent} score(s) to LMS gradebooks; {failed} failed and will be tried again.")
