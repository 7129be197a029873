"""A user's own content: the library page (their sets and decks, and whom each is shared with),
and importing in the browser with a preview before anything is written.

Views only: staging, preview and apply are in `quiz.content.pending`.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from quiz.content.apkg_history import history_imports_of, next_history_step
from quiz.content.documents import ContentError
from quiz.content.export import DECK_FORMATS, SET_FORMATS, download_choices
from quiz.content.pending import apply_pending, open_imports, preview_pending, reviews_to_import, stage_import
from quiz.content.reading import decode_for_display
from quiz.editor.forms import ImportForm, VisibilityForm
from quiz.lib.content_version import content_changed
from quiz.models import Deck, HistoryImport, PendingImport, QuestionSet

# The source shown beside the problems: a short file whole, a longer one as a few lines around
# each problem, and never more lines in all than one page can sensibly hold.
SHOWN_WHOLE = 40
SHOWN_AROUND_PROBLEM = 3
MAX_SHOWN_LINES = 200


@require_safe
@login_required
def library(request):
    user = request.user
    context = {
        "question_sets": QuestionSet.objects.owned_by(user).with_progress_for(user),
        "decks": Deck.objects.owned_by(user).with_counts_for(user),
        "visibility_form": VisibilityForm(user=user),
        "set_formats": download_choices(SET_FORMATS),
        "deck_formats": download_choices(DECK_FORMATS),
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
        content_changed()
        messages.success(request, f"“{item.title}”: {item.get_visibility_display().lower()}.")
    else:
        messages.error(request, "Not changed: choose who may see it.")
    return redirect("library")


@require_http_methods(["GET", "POST"])
@login_required
def import_content(request):
    # An empty POST is still a submitted form, to answer with its errors.
    form = ImportForm(*(request.POST, request.FILES) if request.method == "POST" else ())
    context = {"form": form, "open_imports": open_imports(request.user),
               "history_writing": HistoryImport.objects.filter(owner=request.user, finished_at=None).exists()}
    if form.is_bound and form.is_valid():
        files = form.documents()
        try:
            pending = stage_import(owner=request.user, files=files, format=form.cleaned_data["format"])
        except ContentError as error:
            problems, more = getattr(error, "problems", [error]), getattr(error, "more", 0)
            context.update(error=error, problems=problems, more=more, sources=_sources(files, error))
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
    return render(request, "library/import_preview.html", {"staged": staged, "reviews": reviews_to_import(pending)})


def _apply(request, pending):
    skip_bad_items = request.POST.get("skip_bad_items") == "yes"  # the button that says so
    with_reviews = request.POST.get("with_reviews") == "yes"  # the learner's consent, a box left unticked by default
    try:
        report = apply_pending(pending, previewed=request.POST.get("previewed", ""), skip_bad_items=skip_bad_items,
                               with_reviews=with_reviews)
    except ContentError as error:
        messages.error(request, f"Nothing was imported: {error.message}")
        return redirect("import_preview", pending_id=pending.pk)
    if report is None:
        messages.info(request, "This import was applied already; nothing was imported twice.")
        return redirect("library")
    for outcome in report.outcomes:
        messages.success(request, outcome.summary())
    if report.skipped:
        messages.warning(request, f"Skipped {report.skipped} item{'s' if report.skipped != 1 else ''} with problems: "
                         "fix them in the file and import it again to add them.")
    if report.history_left:
        return redirect("import_history")  # the rest of a long history, in steps, with its progress
    if report.reviews is not None:
        messages.success(request, f"Imported {report.reviews.added} review{'s' if report.reviews.added != 1 else ''} "
                         f"from Anki into your history ({report.reviews.already} already there); "
                         "those cards keep their schedule.")
    return redirect("library")


@require_http_methods(["GET", "POST"])
@login_required
def import_history(request):
    """A long Anki history on its way into the learner's log: its progress, and (POST) its next
    step. With HTMX the page asks for each next step by itself; without, a button does."""
    if request.method == "POST":
        next_history_step(request.user)
        if not request.htmx:
            return redirect("import_history")
    context = {"jobs": history_imports_of(request.user)}
    context["writing"] = any(job.finished_at is None for job in context["jobs"])
    template = "library/history_import.html" + ("#progress" if request.htmx else "")
    return render(request, template, context)


def _sources(files, error):
    """[(file name, rows)] for each file with a problem on a line: rows are (number, text, [what
    is wrong there], is the first problem's line) for the lines shown, in order, and None where
    lines are left out."""
    shown_in_all, sources = 0, []
    for name, data in files:
        lines = decode_for_display(data).split("\n")  # as the parsers number them
        at = {}
        for problem in getattr(error, "problems", [error]):
            if problem.file == name and problem.line is not None and 1 <= problem.line <= len(lines):
                at.setdefault(problem.line, []).append(problem.message)
        if lines[-1] == "" and len(lines) not in at:  # the end of the last line, not a line
            lines.pop()
        if len(lines) <= SHOWN_WHOLE:
            numbers = range(1, len(lines) + 1)
        else:
            around = (range(max(line - SHOWN_AROUND_PROBLEM, 1), line + SHOWN_AROUND_PROBLEM + 1) for line in at)
            numbers = sorted({number for window in around for number in window if number <= len(lines)})
        numbers = list(numbers)[: MAX_SHOWN_LINES - shown_in_all] if at else []
        if numbers:
            shown_in_all += len(numbers)
            first = error.line if name == error.file else None  # the one line aria-current names
            sources.append((name, _rows(lines, numbers, at, first)))
    return sources


def _rows(lines, numbers, at, first):
    rows, previous = [], 0
    for number in numbers:
        if number > previous + 1:
            rows.append(None)
        rows.append((number, lines[number - 1], at.get(number, []), number == first))
        previous = number
    return rows + [None] if previous < len(lines) else rows
