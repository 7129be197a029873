"""Load quiz and flashcard documents (or an export file) into the database.

Content is written by people in plain text and changes over time; this command is how those
edits reach the site without breaking learners' history: rows are updated in place by their
stable keys, and a run is all or nothing, so a typo in one file never leaves half an import.
Topics follow the same rule of least surprise: an item's topics are replaced only when its
source names them (a `Topics:` line, a "topics" list), so tags added in the admin survive.
"""

import logging

from django.core.management.base import BaseCommand, CommandError

from quiz.content import ContentError, import_documents
from quiz.content.reading import FORMATS

security_log = logging.getLogger("quiz.security")


class Command(BaseCommand):
    help = (
        "Import quiz documents, flashcard documents, export_questions JSON files, Moodle GIFT or XML files, Aiken files, "
        "CSV/TSV tables with a header row, or Anki plain-text exports. "
        "Re-importing updates questions and cards in place; one run is one transaction. "
        "A 'Topics: a, b' line sets an item's topics; items without one keep theirs."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "files", nargs="+", metavar="FILE", help="documents to import (format detected from content)"
        )
        parser.add_argument(
            "--format",
            choices=sorted(FORMATS),
            help="read every file in this format (default: recognised from each file's content)",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="parse, validate and save, then roll everything back"
        )

    def handle(self, *args, files, dry_run, format=None, **options):
        try:
            report = import_documents(files, format=format, dry_run=dry_run)
        except ContentError as error:
            security_log.warning("import refused", extra={"event": "import_refused", "error": str(error)})
            raise CommandError(str(error)) from error
        for warning in report.warnings:
            self.stderr.write(f"warning: {warning}")
        for outcome in report.outcomes:
            self.stdout.write(outcome.summary())
        if dry_run:
            self.stdout.write("Dry run: nothing was saved.")
