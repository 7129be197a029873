"""Send the reminder emails learners asked for: the daily digest of due reviews at each
learner's own local hour, and assignment openings and deadlines.

Nothing in a request sends them, so a timer (cron or a systemd timer, every 15 minutes) runs
this. Safe to run at any time and from several servers at once: each email is claimed by
inserting its ReminderSent row first, which only one run can do, and a failed one is retried
by a later run (quiz.accounts.reminders). With DEBUG off it refuses to send while SITE_URL
(DJANGO_SITE_URL) is the development server's address: every link in the emails would be broken.
"""

from urllib.parse import urlsplit

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from quiz.accounts.reminders import send_reminders

# Hosts only the server itself reaches: every link in a reminder (its page, its unsubscribe
# link) would be broken for the learner. None: SITE_URL is not an absolute address at all.
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", None}

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
        # SITE_URL falls back to the development server's address; emails sent with it cannot be
        # taken back, so a production run without DJANGO_SITE_URL refuses rather than sends.
        if not dry_run and not settings.DEBUG and urlsplit(settings.SITE_URL).hostname in LOCAL_HOSTS:
            raise CommandError(
                f"Refusing to send: SITE_URL is {settings.SITE_URL!r}, which learners cannot reach, and every "
                "link in a reminder (its unsubscribe link too) would be broken. Set DJANGO_SITE_URL to the "
                "site's public address (e.g. https://certify.example.org), or use --dry-run to see what would go."
            )
        outcomes = send_reminders(dry_run=dry_run)
        for outcome in outcomes:
            self.stdout.write(f"{SAYS[outcome.status]}: {outcome.reminder.describe()}")
        counts = {status: sum(o.status == status for o in outcomes) for status in ("sent", "failed", "would send")}
        if dry_run:
            self.stdout.write(f"Would send {counts['would send']} reminder(s).")
        else:
            self.stdout.write(f"Sent {counts['sent']} reminder(s); {counts['failed']} failed.")
