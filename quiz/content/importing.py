"""Importing documents: every file is parsed first, then all are saved in one transaction.

This is the entry point of the import_questions command and scripts/build_fixture.py. It
neither prints nor exits: the management commands own the user interface.
"""

from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from ..lib.content_version import content_changed
from .documents import ContentError, Problems, SkippedItems
from .reading import parse_document, read_document
from .sync import save_document


@dataclass
class Report:
    """What one import did: an Outcome per set or deck saved, and the lines the parsers ignored."""

    outcomes: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    skipped: int = 0  # items left out for their problems (see parse_files' `skipped`)
    reviews: object = None  # apkg_history.HistoryCounts when an Anki package's reviews were imported
    history: list = field(default_factory=list)  # their HistoryImports, some maybe still to finish

    @property
    def history_left(self):
        return sum(job.left for job in self.history)


@dataclass
class Skipped:
    """The items an import leaves out: every problem of theirs (`FILE:LINE: what is wrong`, as
    ContentErrors lists them, and how many more), and how many items they are."""

    problems: list = field(default_factory=list)
    more: int = 0
    items: int = 0

    def add(self, error):
        self.problems.extend(error.problems)
        self.more += error.more
        self.items += error.items


def import_documents(paths, *, format=None, owner=None, dry_run=False, now=None):
    """Parse every file, then save them all in one transaction: one bad file changes nothing.
    The content is `owner`'s (private to them until shared), or the shared library's when None.

    `format` (a name in reading.FORMATS) reads every file in that format instead of
    recognising each one by its content."""
    documents, warnings = _read_all(read_document, [(path,) for path in paths], format)
    report = import_parsed(documents, owner=owner, dry_run=dry_run, now=now)
    report.warnings[:0] = warnings
    return report


def parse_files(files, *, format=None, skipped=None):
    """([ParsedDocument], [warning]) for [(name, bytes)], as uploaded in the browser.

    With `skipped` (a Skipped), a file whose only problems are of items that stand on their own
    gives its other items, and the problems go into `skipped` (SkippedItems); a file with any
    other problem still refuses them all."""
    return _read_all(parse_document, [(data, name) for name, data in files], format, skipped)


def _read_all(read, sources, format, skipped=None):
    """([ParsedDocument], [warning]) of read(*source, format) for every source; raises the
    problems of every file at once (ContentErrors), so one run shows all there is to fix."""
    documents, warnings, errors = [], [], []
    for source in sources:
        try:
            parsed, said = read(*source, format)
        except SkippedItems as error:
            errors.append(error)
            parsed, said = error.importable, error.warnings
        except ContentError as error:
            errors.append(error)
            continue
        documents.extend(parsed)
        warnings.extend(said)
    if skipped is None or any(not isinstance(error, SkippedItems) for error in errors):
        # Refused: every problem of every file, the skippable ones too, is there to fix.
        problems = Problems()
        for error in errors:
            problems.add(error)
        problems.raise_if_any()
    for error in errors:
        skipped.add(error)
    return documents, warnings


def import_parsed(documents, *, owner=None, dry_run=False, now=None):
    """Save parsed documents in one transaction (rolled back with `dry_run`): a Report."""
    _refuse_duplicate_identities(documents)
    report = Report()
    now = now or timezone.now()
    with transaction.atomic():
        content_changed()
        report.outcomes = [save_document(document, now=now, owner=owner) for document in documents]
        report.warnings.extend(warning for outcome in report.outcomes for warning in outcome.warnings)
        if dry_run:
            transaction.set_rollback(True)
    return report


def _refuse_duplicate_identities(documents):
    # Two documents claiming the same source would silently overwrite each other in one run.
    seen = {}
    for document in documents:
        identity = document.file_name or (document.kind, document.title)
        if identity in seen:
            name = document.file_name or f'{document.kind} "{document.title}"'
            raise ContentError(document.file, None, f"{name} is also imported from {seen[identity]} in this run")
        seen[identity] = document.file
