"""Importing documents: every file is parsed first, then all are saved in one transaction.

This is the entry point of the import_questions command and scripts/build_fixture.py. It
neither prints nor exits: the management commands own the user interface.
"""

from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from .documents import ContentError
from .reading import read_document
from .sync import save_document


@dataclass
class Report:
    """What one import did: an Outcome per set or deck saved, and the lines the parsers ignored."""

    outcomes: list = field(default_factory=list)
    warnings: list = field(default_factory=list)


def import_documents(paths, *, format=None, owner=None, dry_run=False, now=None):
    """Parse every file, then save them all in one transaction: one bad file changes nothing.
    The content is `owner`'s (private to them until shared), or the shared library's when None.

    `format` (a name in reading.FORMATS) reads every file in that format instead of
    recognising each one by its content."""
    report = Report()
    documents = []
    for path in paths:
        parsed, warnings = read_document(path, format)
        documents.extend(parsed)
        report.warnings.extend(warnings)
    _refuse_duplicate_identities(documents)
    now = now or timezone.now()
    with transaction.atomic():
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
