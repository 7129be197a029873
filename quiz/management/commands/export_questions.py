"""Write every question set and deck as JSON, in the format import_questions reads back.

The export is the committed seed (fixtures/seed.json) and a way to move content between
databases, so it is deterministic: the same content always gives the same bytes, and a diff
of two exports shows exactly what changed. A question or card carries a "topics" list only
when it has topics, so adding the feature left the untagged seed's bytes as they were.
"""

from pathlib import Path

from django.core.management.base import BaseCommand

from quiz.content import export_json


class Command(BaseCommand):
    help = "Export all question sets and flashcard decks as JSON (stdout unless -o FILE)."

    def add_arguments(self, parser):
        parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")

    def handle(self, *args, output, **options):
        content = export_json()
        if output:
            Path(output).write_text(content, encoding="utf-8")
        else:
            # ending="" because the JSON already ends with its own newline.
            self.stdout.write(content, ending="")
