"""Images of sets and decks, served only to those who may see them, and added in the editor.

Files are never served by a static handler: each request is checked here, then the file is
streamed from local storage, or (an S3-compatible store) redirected to a URL the store signs for
a minute, so several app servers share one store and nothing in it is public.
"""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.cache import patch_cache_control
from django.views.decorators.http import require_POST, require_safe
from django_ratelimit.decorators import ratelimit

from quiz.editor import images
from quiz.editor.forms import CardForm, QuestionForm
from quiz.models import Card, MediaFile, PendingImage

from .access import own_card_or_404, own_question_or_404
from .accounts import rate_limited

# How long a browser may keep a library image (everyone's, and its name never changes content).
LIBRARY_MAX_AGE = 24 * 60 * 60


@require_safe
def media_file(request, name):
    if staged := _own_staged_image(request, name):
        return _staged_image_response(staged)
    image = _visible_image_or_404(request, name)
    container = image.question_set or image.deck
    storage = image.file.storage
    # django-storages' S3Storage, told by its attributes so that boto3 is imported only where used.
    if getattr(storage, "querystring_auth", False) and hasattr(storage, "bucket_name"):
        response = HttpResponseRedirect(_signed_url(storage, image))
        patch_cache_control(response, private=True, no_store=True)  # the URL expires within a minute
        return response
    try:
        file = storage.open(image.file.name, "rb")
    except OSError:
        raise Http404("The image's file is missing.") from None  # removed from the store by hand
    # Inline (the default with a filename), under its random name.
    response = FileResponse(file, content_type=image.content_type, filename=image.name)
    response["X-Content-Type-Options"] = "nosniff"
    if container.owner_id is None:
        patch_cache_control(response, public=True, max_age=LIBRARY_MAX_AGE)
    else:
        patch_cache_control(response, private=True)
    return response


def _visible_image_or_404(request, name):
    """The image, if its set or deck is visible to the user, or a question of one of their
    attempts (or of an attempt in their class) shows it; else 404, as if it did not exist."""
    images = MediaFile.objects.select_related("question_set", "deck")
    if image := images.visible_to(request.user).filter(name=name).first():
        return image
    return get_object_or_404(images.shown_in_attempts_of(request.user), name=name)


def _own_staged_image(request, name):
    """An image of one of the user's imports still waiting to be applied (its preview shows it),
    or None."""
    if not request.user.is_authenticated:
        return None
    return PendingImage.objects.filter(name=name, pending__owner=request.user, pending__applied_at=None).first()


def _staged_image_response(staged):
    response = HttpResponse(bytes(staged.data), content_type=staged.content_type)
    response["X-Content-Type-Options"] = "nosniff"
    patch_cache_control(response, private=True)
    return response


def _signed_url(storage, image):
    """A URL of the S3-compatible store, signed for its `querystring_expire` seconds, that
    serves the file inline with its type (whatever the object's own headers say)."""
    return storage.url(image.file.name, parameters={
        "ResponseContentType": image.content_type,
        "ResponseContentDisposition": "inline",
        "ResponseCacheControl": "private, max-age=60",
    })


@require_POST
@login_required
@ratelimit(key="user", rate=lambda group, request: settings.RATELIMIT_IMAGE_UPLOAD, method="POST", block=False)
def add_image(request, kind, item_id):
    """An image for one of the user's own questions or cards, shown at the end of the text they
    chose; nothing is stored when the file or its alt text is refused (the editor again, 400)."""
    if kind not in ("questions", "cards"):
        raise Http404
    item = own_question_or_404(request, item_id) if kind == "questions" else own_card_or_404(request, item_id)
    if getattr(request, "limited", False):
        return rate_limited(request, "Adding images")
    form = images.ImageForm(request.POST, request.FILES, item=item)
    if not form.is_valid():
        return _editor_with(request, item, form)
    data = form.cleaned_data
    became_markdown = images.add_image(item=item, target=data["target"], image=data["image"], alt=data["alt"])
    noun = "card" if isinstance(item, Card) else "question"
    message = "Added the image."
    if became_markdown:
        message += (f" The {noun} is now written in Markdown, so that the image shows: check that the rest of its "
                    "text reads as you meant (a * or _ now marks emphasis).")
    messages.success(request, message)
    return redirect(reverse(f"edit_{noun}", args=[item.pk]))


def _editor_with(request, item, image_form):
    """The item's editor page with the refused image form and its errors."""
    if isinstance(item, Card):
        template, container, form = "library/card_edit.html", item.deck, CardForm.for_card(item)
    else:
        template, container, form = "library/question_edit.html", item.question_set, QuestionForm.for_question(item)
    editor_id = f"{type(item).__name__.lower()}-{item.pk}"
    form.auto_id = f"{editor_id}-%s"
    context = {"container": container, "item": item, "form": form, "editor_id": editor_id, "image_form": image_form}
    return render(request, template, context, status=400)
