"""Delete stored image files that no image of a set or deck names any more.

Images are written to the store inside the import's transaction (their rows need their names),
and a store has no rollback: an import that is rolled back (a `--dry-run`, a refusal at its last
step) leaves its images behind, as does a deletion whose file could not be deleted. A daily timer
running this keeps them from piling up; files younger than an hour are kept, since an import
still running has not committed the rows that name them.
"""

from django.core.management.base import BaseCommand
from django.utils import timezone

from quiz.content.media import prune_files


class Command(BaseCommand):
    help = "Delete stored image files no set or deck uses (left by rolled-back imports), older than an hour."

    def add_arguments(self, parser):
        parser.add_argument("--dry-run", action="store_true", help="List the files that would go; delete nothing.")

    def handle(self, *args, dry_run=False, **options):
        orphans = prune_files(now=timezone.now(), dry_run=dry_run)
        for path in orphans:
            self.stdout.write(f"  {path}")
        self.stdout.write(f"{'Would delete' if dry_run else 'Deleted'} {len(orphans)} unused image file(s).")
