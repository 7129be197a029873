"""Send the reminder emails learners asked for: the daily digest of due reviews at each
learner's own local hour, and assignment openings and deadlines.

Nothing in a request sends them, so a timer (cron or a systemd timer, every 15 minutes) runs
this. Safe to run at any time and from several servers at once: each email is claimed by
inserting its ReminderSent row first, which only one run can do, and a failed one is retried
by a later run (quiz.accounts.reminders).
"""

from django.core.management.base import BaseCommand

from quiz.accounts.reminders import send_reminders

SAYS = {
    "sent": "Sent",
    "failed": "Failed (a later run retries it while tries are left)",
    "would send": "Would send",
    "taken": "Skipped, another run is sending it",
}


class Command(BaseCommand):
    help = "Send the daily review digests and assignment reminders due now, and retry failed ones."

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="List what would be sent; send and record nothing.")

    def handle(self, *args, dry_run=False, **options):
        outcomes = send_reminders(dry_run=dry_run)
        for outcome in outcomes:
            self.stdout.write(f"{SAYS[outcome.status]}: {outcome.reminder.describe()}")
        counts = {status: sum(o.status == status for o in outcomes) for status in ("sent", "failed", "would send")}
        if dry_run:
            self.stdout.write(f"Would send {counts['would send']} reminder(s).")
        else:
            self.stdout.write(f"Sent {counts['sent']} reminder(s); {counts['failed']} failed.")
