"""Downloading one set or deck in any format the importer reads, to take it to Moodle, Anki or
a spreadsheet (the content part of "bring your own content": what comes in can go out).

A question set's file is its answer key, so only whoever may already read it whole downloads
it: its owner, or an instructor building quizzes (who sees the bank's answers anyway). A
learner never gets the answers of a set they could still be tested on (nor does an instructor
who is a learner in a colleague's class). A deck's backs are
what studying shows on every flip, so any deck a user may see can be downloaded; but another's
deck comes without the misconceptions its downloader has not met in study (they are the myth
drill's answers), as on the card page.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Exists, OuterRef
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_safe

from quiz.content.documents import ExportError
from quiz.content.export import export_one, formats_for
from quiz.models import Deck, MemoryState, Question, QuestionSet

CONTENT_TYPES = {"json": "application/json", "csv": "text/csv", "moodle": "application/xml"}


def downloadable_sets(user):
    """A user's own sets; for an instructor also the sets they may see, but for any whose
    questions an assignment holds back from them (an instructor may be a learner in a class)."""
    if not user.is_instructor:
        return QuestionSet.objects.owned_by(user)
    held = Question.objects.held_back_from(user, timezone.now()).filter(question_set=OuterRef("pk"))
    return QuestionSet.objects.visible_to(user).exclude(Exists(held))


def _myths_unseen(user, item):
    """The cards of another's deck whose misconception `user` has not met yet (never rated): the
    download leaves those out, as the card page does, since each tells a "Myth or fact?" answer."""
    if not isinstance(item, Deck) or item.owner_id == user.pk:
        return set()
    rated = MemoryState.objects.filter(user=user, card=OuterRef("pk"), last_review__isnull=False)
    return set(item.cards.exclude(misconception="").exclude(Exists(rated)).values_list("pk", flat=True))


@require_safe
@login_required
def download(request, kind, pk, format):
    items = downloadable_sets(request.user) if kind == "sets" else Deck.objects.visible_to(request.user)
    item = get_object_or_404(items, pk=pk)
    if format not in formats_for(item):
        raise Http404("No such format for this content.")
    try:
        exported = export_one(item, format, myths_left_out=_myths_unseen(request.user, item))
    except ExportError as error:
        messages.error(request, f"Not downloaded: {error}")
        return redirect("library" if item.owner_id == request.user.pk else "home")
    response = HttpResponse(exported.text, content_type=f"{CONTENT_TYPES.get(format, 'text/plain')}; charset=utf-8")
    response["Content-Disposition"] = content_disposition_header(True, exported.file_name)
    return response
