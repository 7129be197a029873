"""Importing in the browser, in two steps: stage what was uploaded or pasted and preview it, then
apply it once.

Nothing is written to the content tables before the apply. The staged bytes are parsed again
at each step, so the preview and the apply read the same thing. The apply claims the staged
import in the transaction that saves it, so it happens at most once (see PendingImport), and
it saves only if the content it updates is still as the preview showed it: the preview page
sends back the preview's fingerprint, and another import or an edit in between refuses the
apply with a message instead of writing what nobody saw.

A file whose only problems are items that stand on their own (a question with no right answer,
a row of a table that does not read) is staged all the same: the preview lists those items,
and the learner either applies the others, saying so (`skip_bad_items`), or fixes the file and
uploads it again. A file with any other problem is refused at staging, as before.
"""

from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from ..models import PendingFile, PendingImport, User
from .apkg_history import first_steps, history_counts, reviews_in, start_history_imports
from .documents import ContentError
from .importing import Skipped, import_parsed, parse_files
from .media import rewrite_item_media, stage_images, staged_names
from .preview import fingerprint, preview_documents, shown_choices

STALE_AFTER = timedelta(days=1)  # staged imports nobody applied are dropped after this
OPEN_PER_USER = 5  # staged imports kept per user; staging another drops the oldest


@dataclass
class Staged:
    pending: PendingImport
    documents: list
    previews: list
    warnings: list
    fingerprint: str = ""
    refusals: list = field(default_factory=list)  # why applying would stop
    skipped: Skipped = field(default_factory=Skipped)  # items left out for their problems

    @property
    def item_count(self):
        """The items applying saves (the valid ones)."""
        return sum(len(document.items) for document in self.documents)

    @property
    def updates_existing(self):
        return any(preview.existing for preview in self.previews)


def stage_import(*, owner, files, format="", now=None):
    """Keep [(name, bytes)] for `owner` and return the PendingImport; raises ContentError (and
    keeps nothing) when a file cannot be read as content. Items with problems of their own do
    not refuse it: the preview lists them."""
    documents, _ = parse_files(files, format=format or None, skipped=Skipped())
    now = now or timezone.now()
    with transaction.atomic():
        _drop_old_staged_imports(owner, now)
        pending = PendingImport.objects.create(owner=owner, format=format, created_at=now)
        PendingFile.objects.bulk_create(PendingFile(pending=pending, name=name, data=data) for name, data in files)
        stage_images(pending, documents)
    return pending


def open_imports(owner, now=None):
    """The owner's staged imports still waiting to be applied, newest first, each with its files'
    `names`: a preview left to fix a file stays one click away. Two queries; no file's bytes."""
    now = now or timezone.now()
    pending = list(
        PendingImport.objects.filter(owner=owner, applied_at=None, created_at__gte=now - STALE_AFTER)
        .order_by("-created_at", "-pk")[:OPEN_PER_USER]
    )
    names = {}
    for pending_id, name in PendingFile.objects.filter(pending__in=pending).values_list("pending_id", "name"):
        names.setdefault(pending_id, []).append(name)
    for staged in pending:
        staged.names = names.get(staged.pk, [])
    return pending


def _drop_old_staged_imports(owner, now):
    PendingImport.objects.filter(applied_at=None, created_at__lt=now - STALE_AFTER).delete()
    kept = PendingImport.objects.filter(owner=owner, applied_at=None).order_by("-created_at", "-pk")
    PendingImport.objects.filter(pk__in=kept.values("pk")[OPEN_PER_USER - 1:]).delete()


def preview_pending(pending):
    """What applying `pending` would do, with the warnings of its files and the items it would
    skip. Reads only."""
    skipped = Skipped()
    documents, warnings = _parse(pending, skipped)
    previews = preview_documents(documents, owner=pending.owner)
    _show_staged_images(pending, previews)
    refusals = [f"{preview.document.file}: {reason}" for preview in previews for reason in preview.refusals]
    # The skipped items are part of what was previewed: were they to differ at the apply (a
    # parser changed in between), the apply would write what nobody saw.
    seen = fingerprint(previews, [str(problem) for problem in skipped.problems])
    return Staged(pending, documents, previews, warnings, seen, refusals, skipped)


def apply_pending(pending, *, previewed, skip_bad_items=False, with_reviews=False, now=None):
    """Save the staged content if it still compares as `previewed` (the preview's fingerprint):
    the Report, or None when it was applied already. Raises ContentError, writing nothing,
    when the content changed since the preview or saving would refuse, or when items would be
    skipped and the learner did not choose to skip them (`skip_bad_items`). `with_reviews`: the
    learner agreed to bring an Anki package's review history into their own log (apkg_history):
    its first step is written before this returns, the rest of `report.history` (HistoryImports)
    by the progress page or the catch-up timer."""
    now = now or timezone.now()
    with transaction.atomic():
        # One apply at a time per owner: a second one waits, then compares with what the first saved.
        User.objects.select_for_update().filter(pk=pending.owner_id).first()
        claimed = PendingImport.objects.filter(pk=pending.pk, applied_at=None).update(applied_at=now)
        if not claimed:
            return None
        staged = preview_pending(pending)
        if staged.fingerprint != previewed:
            raise ContentError("import", None, "your content changed since this preview: look at the preview again")
        if staged.refusals:
            raise ContentError("import", None, staged.refusals[0])
        if staged.skipped.items and not skip_bad_items:
            raise ContentError("import", None, "some items have problems: apply the others and skip those, "
                               "or fix the file and upload it again")
        report = import_parsed(staged.documents, owner=pending.owner, now=now)
        report.skipped = staged.skipped.items
        if with_reviews:
            files = [(file.name, bytes(file.data)) for file in pending.files.all()]
            report.history = start_history_imports(pending.owner, files, staged.documents, format=pending.format,
                                                   now=now)
        pending.files.all().delete()  # applied: the bytes are in the content now
        pending.images.all().delete()
    if with_reviews:
        # A step's worth now, after the content's transaction: a short history is written whole
        # before the page answers; a long one goes on in steps, whatever the number of decks.
        report.history = first_steps(report.history, now=now)
        report.reviews = history_counts(report.history)
    return report


def _show_staged_images(pending, previews):
    """Show the images the files carry in the preview's items, from the staged copies: what is
    saved (the preview's documents) keeps naming them by their file names."""
    if not any(preview.document.media for preview in previews):
        return
    staged = dict(pending.images.values_list("source_sha256", "name"))
    for preview in previews:
        if names := staged_names(preview.document, staged):
            for shown in preview.items:
                shown.item = rewrite_item_media(shown.item, names)
                if shown.choices:
                    shown.choices = shown_choices(shown.item)


def _parse(pending, skipped):
    files = [(file.name, bytes(file.data)) for file in pending.files.all()]
    return parse_files(files, format=pending.format or None, skipped=skipped)


def reviews_to_import(pending):
    """{file name: reviews} of the staged Anki packages that carry a review history: what the
    preview asks the learner's consent for. Empty for every other format."""
    return reviews_in([(file.name, bytes(file.data)) for file in pending.files.all()], pending.format)
