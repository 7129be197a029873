"""Importing in the browser, in two steps: stage what was uploaded or pasted and preview it, then
apply it once.

Nothing is written to the content tables before the apply. The staged bytes are parsed again
at each step, so the preview and the apply read the same thing; the apply claims the staged
import in the transaction that saves it, so it happens at most once (see PendingImport).
"""

from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from ..models import PendingFile, PendingImport
from .documents import ContentError
from .importing import import_parsed, parse_files
from .preview import preview_documents

STALE_AFTER = timedelta(days=1)  # staged imports nobody applied are dropped after this


@dataclass
class Staged:
    pending: PendingImport
    previews: list
    warnings: list
    error: ContentError | None = None  # a refusal only saving finds (e.g. removing answered items)


def stage_import(*, owner, files, format="", now=None):
    """Keep [(name, bytes)] for `owner` and return the PendingImport; raises ContentError (and
    keeps nothing) when a file cannot be read as content."""
    parse_files(files, format=format or None)
    now = now or timezone.now()
    with transaction.atomic():
        PendingImport.objects.filter(owner=owner, applied_at=None, created_at__lt=now - STALE_AFTER).delete()
        pending = PendingImport.objects.create(owner=owner, format=format, created_at=now)
        PendingFile.objects.bulk_create(PendingFile(pending=pending, name=name, data=data) for name, data in files)
    return pending


def preview_pending(pending):
    """What applying `pending` would do, with the warnings of its files. The save is also tried
    and rolled back, so a refusal shows here rather than at the apply."""
    documents, warnings = _parse(pending)
    staged = Staged(pending, preview_documents(documents, owner=pending.owner), warnings)
    try:
        import_parsed(documents, owner=pending.owner, dry_run=True)
    except ContentError as error:
        staged.error = error
    return staged


def apply_pending(pending, *, now=None):
    """Save the staged content; the Report, or None when it was applied already."""
    now = now or timezone.now()
    with transaction.atomic():
        claimed = PendingImport.objects.filter(pk=pending.pk, applied_at=None).update(applied_at=now)
        if not claimed:
            return None
        documents, _ = _parse(pending)
        return import_parsed(documents, owner=pending.owner, now=now)


def _parse(pending):
    files = [(file.name, bytes(file.data)) for file in pending.files.all()]
    return parse_files(files, format=pending.format or None)
