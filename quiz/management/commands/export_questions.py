"""Write every question set and deck as JSON, or one set or deck in any format import_questions reads.

The whole export is the committed seed (fixtures/seed.json) and a way to move content between
databases, so it is deterministic: the same content always gives the same bytes, and a diff
of two exports shows exactly what changed. A question or card carries a "topics" list only
when it has topics, so adding the feature left the untagged seed's bytes as they were.
One set or deck (--set, --deck) can be written in any format, to hand content to Moodle or
Anki or edit it in a spreadsheet; importing that file into an empty database and exporting
again gives the same bytes.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from quiz.content import ExportError, export_json, export_one, formats_for
from quiz.content.export import DECK_FORMATS, SET_FORMATS
from quiz.models import Deck, QuestionSet


class Command(BaseCommand):
    help = (
        "Export all question sets and flashcard decks as JSON, or one set or deck (--set, --deck) in any "
        "--format import_questions reads; to standard output, or to -o FILE (a folder: a file named after the "
        "title, which is where GIFT, Aiken, CSV and Anki files keep it)."
    )

    def add_arguments(self, parser):
        parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
        parser.add_argument(
            "--format",
            default="json",
            choices=sorted(SET_FORMATS.keys() | DECK_FORMATS.keys()),
            help="the format to write (default: json); every format but json needs --set or --deck",
        )
        which = parser.add_mutually_exclusive_group()
        which.add_argument("--set", metavar="ID_OR_TITLE", help="export only this question set")
        which.add_argument("--deck", metavar="ID_OR_TITLE", help="export only this deck")

    def handle(self, *args, output, format, **options):
        set_title, deck_title = options.get("set"), options.get("deck")
        if set_title is None and deck_title is None:
            if format != "json":
                raise CommandError(f"--format {format} writes one set or deck: name it with --set or --deck")
            self._write(export_json(), output, "export.json")
            return
        container = _find(QuestionSet, set_title) if set_title is not None else _find(Deck, deck_title)
        if format not in formats_for(container):
            kind = container._meta.verbose_name
            raise CommandError(f"a {kind} can be exported as {', '.join(formats_for(container))}, not {format}")
        try:
            exported = export_one(container, format)
        except ExportError as error:
            raise CommandError(str(error)) from error
        self._write(exported.text, output, exported.file_name)

    def _write(self, text, output, file_name):
        if not output:
            # ending="" because every export already ends with its own newline.
            self.stdout.write(text, ending="")
            return
        path = Path(output)
        if path.is_dir():
            path = path / file_name
            self.stdout.write(f"Wrote {path}")
        path.write_bytes(text.encode("utf-8"))


def _find(model, id_or_title):
    """The set or deck with this id, else with exactly this title; a title two share is refused."""
    found = model.objects.filter(pk=int(id_or_title)) if id_or_title.isascii() and id_or_title.isdigit() else model.objects.none()
    found = found or model.objects.filter(title=id_or_title).order_by("pk")
    noun = model._meta.verbose_name
    if not found:
        raise CommandError(f"no {noun} has the id or title {id_or_title!r}")
    if len(found) > 1:
        ids = ", ".join(str(item.pk) for item in found)
        raise CommandError(f"{len(found)} {noun}s are titled {id_or_title!r} (ids {ids}); give the id")
    return found[0]
