"""The editor: a page per owned set or deck listing its items, each edited in place with HTMX
or on its own page without JavaScript; items added, moved, deleted (retired when learners
used them); sets and decks copied and deleted.

Only the user's own content: every fetch goes through an `own_*_or_404` helper. Destructive
actions are POST-only behind a confirmation page (or hx-confirm). The rules are in
`quiz.editor`; these views read the request and pick the response.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import (
    require_http_methods,
    require_POST,
    require_safe,
)
from django_htmx.http import reswap, retarget
from django_ratelimit.decorators import ratelimit

from quiz.content.cloze import cloze_front
from quiz.editor import changes
from quiz.editor.forms import CardForm, QuestionForm, RenameForm
from quiz.lib.http import navigate, render_page
from quiz.models import Choice, QuestionSet

from .access import (
    own_card_or_404,
    own_deck_or_404,
    own_question_or_404,
    own_set_or_404,
)
from .accounts import rate_limited

SET_PAGE, DECK_PAGE = "library/question_set.html", "library/deck.html"


# --- The set's and the deck's pages ----------------------------------------------------------------

@require_safe
@login_required
def edit_set(request, set_id):
    return _container_page(request, own_set_or_404(request, set_id))


@require_safe
@login_required
def edit_deck(request, deck_id):
    return _container_page(request, own_deck_or_404(request, deck_id))


def _container_page(request, container):
    """The page, or (HTMX) its list of items, after a move, a removal or an addition."""
    is_set = isinstance(container, QuestionSet)
    if is_set:
        ordered_choices = Prefetch("choices", Choice.objects.order_by("position", "pk"))
        items = container.questions.prefetch_related(ordered_choices, "topics")
    else:
        items = container.cards.prefetch_related("topics")
    items = list(items.order_by("position", "pk"))
    retired = [item for item in items if item.is_retired]
    learners = changes.learners_by_item(retired)
    for item in retired:
        item.learner_count = learners[item.pk]
    context = {"container": container, "items": [item for item in items if not item.is_retired], "retired": retired}
    return render_page(request, SET_PAGE if is_set else DECK_PAGE, "items", context)


def _container_url(container):
    if isinstance(container, QuestionSet):
        return reverse("edit_set", args=[container.pk])
    return reverse("edit_deck", args=[container.pk])


# --- One item: new, edited, moved, deleted ---------------------------------------------------------

@require_http_methods(["GET", "POST"])
@login_required
def new_question(request, set_id):
    return _question_editor(request, own_set_or_404(request, set_id), None)


@require_http_methods(["GET", "POST"])
@login_required
def edit_question(request, question_id):
    question = own_question_or_404(request, question_id)
    return _question_editor(request, question.question_set, question)


def _question_editor(request, question_set, question):
    """GET shows the form; POST either changes its choice rows (add, remove, move: the form
    comes back, nothing saved) or saves it (`op=save`, also what Enter sends)."""
    operation = request.POST.get("op", "save")
    if request.method == "GET":
        form = QuestionForm.for_question(question) if question else QuestionForm.blank()
    elif operation != "save":
        form = QuestionForm.rearranged(request.POST, operation)
    else:
        form = QuestionForm(request.POST)
        if form.is_valid():
            names = ("stem", "explanation", "kind", "partial_credit", "case_sensitive", "choices", "topics", "markup")
            fields = {name: form.cleaned_data[name] for name in names}
            saved = changes.save_question(question_set=question_set, question=question, **fields)
            return _saved(request, question_set, saved, created=question is None)
    return _editor_form(request, "library/question_edit.html", question_set, question, form, previewed=operation == "preview")


@require_http_methods(["GET", "POST"])
@login_required
def new_card(request, deck_id):
    return _card_editor(request, own_deck_or_404(request, deck_id), None)


@require_http_methods(["GET", "POST"])
@login_required
def edit_card(request, card_id):
    card = own_card_or_404(request, card_id)
    return _card_editor(request, card.deck, card)


def _card_editor(request, deck, card):
    previewed = request.POST.get("op") == "preview"
    if request.method == "GET":
        form = CardForm.for_card(card) if card else CardForm()
    elif previewed:
        form = CardForm.as_typed(request.POST)
    else:
        form = CardForm(request.POST)
        if form.is_valid():
            saved = changes.save_card(deck=deck, card=card, **form.cleaned_data)
            # A cloze note's cards all changed: the whole list, as after an addition.
            return _saved(request, deck, saved, created=card is None, relist=saved.cloze is not None)
    return _editor_form(request, "library/card_edit.html", deck, card, form, previewed=previewed)


@require_POST
@login_required
# Typing asks for one after each pause (well under one a second); a few thousand characters of
# pathological Markdown take markdown-it a second or more, so a script may not ask for more.
@ratelimit(key="user", rate="120/m", method="POST", block=False)
def preview_item(request):
    """The editor's preview as the author types (HTMX): the texts of the form posted, a
    question's or a card's, rendered as learners will read them. Reads nothing stored and saves
    nothing; shown only where it differs from what was typed: Markdown, HTML, a card's cloze
    deletions (`form.reads_as_typed`)."""
    if getattr(request, "limited", False):
        return rate_limited(request, "Previewing")
    form = QuestionForm(request.POST) if "stem" in request.POST else CardForm(request.POST)
    preview = None if form.reads_as_typed else form.preview()
    return render(request, "library/_preview.html", {"preview": preview})


def _editor_form(request, template, container, item, form, *, previewed=False):
    """The form's page, or (HTMX) the form alone to put in the item's place; 400 with the
    errors when a save was refused. The preview shows for Markdown, HTML and cloze deletions,
    and for plain text when asked for (the Preview button, the way to it without JavaScript)."""
    editor_id = f"{type(item).__name__.lower()}-{item.pk}" if item else "new-item-form"
    form.auto_id = f"{editor_id}-%s"  # two editors open on one page must not share ids
    if request.method == "GET":  # just opened ("Edit", "Add"): focus its first field (app.js), not the page
        form.fields[next(iter(form.fields))].widget.attrs["data-autofocus"] = ""
    preview = form.preview() if previewed or not form.reads_as_typed else None
    context = {"container": container, "item": item, "form": form, "editor_id": editor_id, "preview": preview}
    return render_page(request, template, "editor", context, status=400 if form.errors else 200)


def _saved(request, container, item, *, created, relist=False):
    """After a save: the page (no JavaScript), the item in place of its form (an edit), or the
    whole list with the new item (an addition, whose form sat below the list)."""
    if not request.htmx:
        messages.success(request, "Added." if created else "Saved.")
        return redirect(f"{_container_url(container)}#{type(item).__name__.lower()}-{item.pk}")
    if created or relist:
        return reswap(retarget(_container_page(request, container), "#items"), "outerHTML")
    template = SET_PAGE if isinstance(container, QuestionSet) else DECK_PAGE
    item = type(item).objects.prefetch_related(*(["choices"] if template == SET_PAGE else []), "topics").get(pk=item.pk)
    return render_page(request, template, "item", {"container": container, "item": item})


@require_POST
@login_required
def move_question(request, question_id):
    question = own_question_or_404(request, question_id)
    return _moved(request, question.question_set, question)


@require_POST
@login_required
def move_card(request, card_id):
    card = own_card_or_404(request, card_id)
    return _moved(request, card.deck, card)


def _moved(request, container, item):
    changes.move_item(item, request.POST.get("direction"))
    if request.htmx:
        return _container_page(request, container)
    return redirect(f"{_container_url(container)}#{type(item).__name__.lower()}-{item.pk}")


@require_http_methods(["GET", "POST"])
@login_required
def delete_question(request, question_id):
    question = own_question_or_404(request, question_id)
    return _delete_item(request, question.question_set, question, question.stem)


@require_http_methods(["GET", "POST"])
@login_required
def delete_card(request, card_id):
    card = own_card_or_404(request, card_id)
    # A cloze card is one number of its note: shown as that card's question, not the note's markers.
    text = card.front if card.cloze is None else cloze_front(card.front, card.cloze)
    return _delete_item(request, card.deck, card, text)


def _delete_item(request, container, item, text):
    """GET asks first (the page without JavaScript); POST deletes the item, or retires it
    when learners answered or studied it."""
    noun = type(item).__name__.lower()
    if request.method == "GET":
        in_use = type(item).objects.filter(pk=item.pk).in_use().exists()
        context = {"noun": noun, "text": text, "back": _container_url(container), "retires": in_use}
        return render(request, "library/confirm_delete.html", context)
    retired = changes.remove_item(item, now=timezone.now())
    if request.htmx:
        return _container_page(request, container)
    if retired:
        messages.success(request, f"Retired the {noun}: learners have used it, so it is kept for their history.")
    else:
        messages.success(request, f"Deleted the {noun}.")
    return redirect(_container_url(container))


# --- Whole sets and decks -------------------------------------------------------------------------

@require_POST
@login_required
def duplicate_set(request, set_id):
    copy = changes.duplicate_set(own_set_or_404(request, set_id), owner=request.user, now=timezone.now())
    messages.success(request, f"Made “{copy.title}”, a private copy.")
    return navigate(request, _container_url(copy))


@require_POST
@login_required
def duplicate_deck(request, deck_id):
    copy = changes.duplicate_deck(own_deck_or_404(request, deck_id), owner=request.user, now=timezone.now())
    messages.success(request, f"Made “{copy.title}”, a private copy.")
    return navigate(request, _container_url(copy))


@require_POST
@login_required
def rename_set(request, set_id):
    return _rename(request, own_set_or_404(request, set_id))


@require_POST
@login_required
def rename_deck(request, deck_id):
    return _rename(request, own_deck_or_404(request, deck_id))


def _rename(request, container):
    form = RenameForm(request.POST)
    if form.is_valid():
        changes.rename_container(container, form.cleaned_data["title"])
        messages.success(request, f"Renamed to “{container.title}”.")
    else:
        messages.error(request, f"Not renamed. {' '.join(form.errors['title'])}")
    return navigate(request, _container_url(container))


@require_http_methods(["GET", "POST"])
@login_required
def delete_set(request, set_id):
    return _delete_container(request, own_set_or_404(request, set_id), "questions", "answered")


@require_http_methods(["GET", "POST"])
@login_required
def delete_deck(request, deck_id):
    return _delete_container(request, own_deck_or_404(request, deck_id), "cards", "studied")


def _delete_container(request, container, nouns, used):
    """Deleted when nothing refers to it; else refused, saying by what and what to do instead
    (retiring its items one by one keeps the history and stops offering them)."""
    if request.method == "GET":
        context = {"noun": "set" if nouns == "questions" else "deck", "text": container.title,
                   "back": _container_url(container), "container": container,
                   "held_by": _pools_holding(request, container)}
        return render(request, "library/confirm_delete.html", context)
    if changes.delete_container(container):
        messages.success(request, f"Deleted “{container.title}”.")
        return navigate(request, reverse("library"))
    held_by = _pools_holding(request, container)
    reasons = [f"learners have {used} its {nouns}"] if changes.has_learners_history(container) else []
    if held_by:
        reasons.append(f"its questions are in {'; '.join(held_by)}")
    advice = (f"Delete its {nouns} instead: each is retired, kept for that history and offered to nobody; "
              "or make it private.")
    if held_by:
        advice = "Take its questions out of those pools (an assignment keeps its pool) first. " + advice
    because = " and ".join(reasons) or "something uses it"
    messages.error(request, f"“{container.title}” was not deleted: {because}; nothing was deleted. {advice}")
    return navigate(request, _container_url(container))


def _pools_holding(request, container):
    """What holds a set's questions, in words: the user's own pools by name with their
    assignments, and other instructors' pools only counted (their titles are theirs)."""
    if not isinstance(container, QuestionSet):
        return []
    described, others = [], 0
    for pool in changes.pools_holding(container):
        if pool.owner_id != request.user.pk:
            others += 1
            continue
        assigned = [f"assigned as “{a.title}” in {a.classroom.name}" for a in pool.assignments.all()]
        described.append(f"the question pool “{pool.title}”" + (f" ({', '.join(assigned)})" if assigned else ""))
    if others:
        described.append(f"{others} question pool{'s' if others > 1 else ''} of other instructors")
    return described
