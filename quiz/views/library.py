"""A user's own content: the library page (their sets and decks, and whom each is shared with),
and importing in the browser with a preview before anything is written.

Views only: staging, preview and apply are in `quiz.content.pending`.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from quiz.content.documents import ContentError
from quiz.content.export import DECK_FORMATS, SET_FORMATS
from quiz.content.pending import apply_pending, preview_pending, stage_import
from quiz.content.reading import decode_for_display
from quiz.forms import ImportForm, VisibilityForm
from quiz.models import Deck, PendingImport, QuestionSet

SHOWN_AROUND_ERROR = 6  # lines of the source shown on each side of the line with the problem


@require_safe
@login_required
def library(request):
    user = request.user
    context = {
        "question_sets": QuestionSet.objects.owned_by(user).with_progress_for(user),
        "decks": Deck.objects.owned_by(user).with_counts_for(user),
        "visibility_form": VisibilityForm(user=user),
        "set_formats": list(SET_FORMATS),
        "deck_formats": list(DECK_FORMATS),
    }
    return render(request, "library/library.html", context)


@require_POST
@login_required
def share(request, kind, pk):
    """Set who may see one of the user's sets or decks (404 for anything not theirs)."""
    model = QuestionSet if kind == "sets" else Deck
    item = get_object_or_404(model.objects.owned_by(request.user), pk=pk)
    form = VisibilityForm(request.POST, user=request.user)
    if form.is_valid():
        item.visibility = form.cleaned_data["visibility"]
        item.save(update_fields=["visibility"])
        messages.success(request, f"“{item.title}”: {item.get_visibility_display().lower()}.")
    else:
        messages.error(request, "Not changed: choose who may see it.")
    return redirect("library")


@require_http_methods(["GET", "POST"])
@login_required
def import_content(request):
    # An empty POST is still a submitted form, to answer with its errors.
    form = ImportForm(*(request.POST, request.FILES) if request.method == "POST" else ())
    context = {"form": form}
    if form.is_bound and form.is_valid():
        files = form.documents()
        try:
            pending = stage_import(owner=request.user, files=files, format=form.cleaned_data["format"])
        except ContentError as error:
            context.update(error=error, source=_source_around(files, error))
        else:
            return redirect("import_preview", pending_id=pending.pk)
    return render(request, "library/import.html", context, status=422 if "error" in context else 200)


@require_http_methods(["GET", "POST"])
@login_required
def import_preview(request, pending_id):
    pending = get_object_or_404(PendingImport.objects.filter(owner=request.user), pk=pending_id)
    if request.method == "POST":
        return _apply(request, pending)
    if pending.applied_at:
        messages.info(request, "This import was applied already.")
        return redirect("library")
    try:
        staged = preview_pending(pending)
    except ContentError as error:  # staged content no longer reads (e.g. a parser got stricter)
        messages.error(request, f"This import cannot be read any more: {error}")
        return redirect("import_content")
    return render(request, "library/import_preview.html", {"staged": staged})


def _apply(request, pending):
    try:
        report = apply_pending(pending, previewed=request.POST.get("previewed", ""))
    except ContentError as error:
        messages.error(request, f"Nothing was imported: {error.message}")
        return redirect("import_preview", pending_id=pending.pk)
    if report is None:
        messages.info(request, "This import was applied already; nothing was imported twice.")
    else:
        for outcome in report.outcomes:
            messages.success(request, outcome.summary())
    return redirect("library")


def _source_around(files, error):
    """The lines of the file the error names around its line, as [(number, text, is_the_line)]."""
    data = next((data for name, data in files if name == error.file), None)
    if data is None or error.line is None:
        return None
    lines = decode_for_display(data).splitlines()
    first = max(error.line - SHOWN_AROUND_ERROR, 1)
    last = min(error.line + SHOWN_AROUND_ERROR, len(lines))
    return [(number, lines[number - 1], number == error.line) for number in range(first, last + 1)]
