"""Adding an image in the editor: the form (a file, its alt text, the text to show it in) and the
verb that stores the image and shows it at the end of that text.

An image is shown by a reference in the item's text (quiz.content.markup renders it), so a plain
text item becomes Markdown to show one; an HTML item gets an <img>.
"""

from django import forms
from django.db import transaction
from django.urls import reverse
from django.utils.html import escape

from quiz.content.documents import MAX_TEXT, ContentError, shorten
from quiz.content.media import MAX_IMAGE_BYTES, check_image, store_image
from quiz.lib.content_version import content_changed
from quiz.models import Card, Choice, Markup, MediaFile
from quiz.models.kinds import TYPED

CARD_LABELS = {"front": "The front", "back": "The back", "misconception": "The misconception", "correction": "The correction"}


def image_targets(item):
    """[(field, label)]: the texts of `item` an image may be added to. A typed question's
    choices are accepted answers, and a card's misconception comes with its correction, so
    neither is offered empty."""
    if isinstance(item, Card):
        return [(name, label) for name, label in CARD_LABELS.items() if name in ("front", "back") or getattr(item, name)]
    targets = [("stem", "The question"), ("explanation", "The explanation")]
    if item.kind not in TYPED:
        choices = item.choices.order_by("position", "pk")
        targets += [
            (f"choice-{choice.pk}", f"Choice {number}: {shorten(choice.text)}")
            for number, choice in enumerate(choices, start=1) if choice.text
        ]
    return targets


class ImageForm(forms.Form):
    image = forms.FileField(
        label="Image",
        help_text=f"PNG, JPEG, GIF or WebP, up to {MAX_IMAGE_BYTES // 1_000_000} MB. Adding it reloads the editor: "
                  "save your other changes first.",
        widget=forms.ClearableFileInput(attrs={"accept": "image/png,image/jpeg,image/gif,image/webp"}),
        error_messages={"required": "Choose the image file to add.", "empty": "The file is empty: choose another."},
    )
    alt = forms.CharField(
        label="Alt text", max_length=MediaFile._meta.get_field("alt").max_length,
        help_text="What the image shows, for learners who cannot see it.",
        error_messages={"required": "Write what the image shows (its alt text), for learners who cannot see it."},
    )
    target = forms.ChoiceField(label="Show it in")

    def __init__(self, *args, item, **kwargs):
        super().__init__(*args, **kwargs)
        self.item = item
        self.fields["target"].choices = image_targets(item)

    @property
    def action(self):
        kind = "cards" if isinstance(self.item, Card) else "questions"
        return reverse("add_image", args=[kind, self.item.pk])

    def clean_image(self):
        upload = self.cleaned_data["image"]
        if upload.size > MAX_IMAGE_BYTES:  # told before reading it
            raise forms.ValidationError(f"The image is larger than {MAX_IMAGE_BYTES // 1_000_000} MB: choose a smaller one.")
        try:
            return check_image(upload.read(), file=upload.name, line=None, name=upload.name)
        except ContentError as error:
            raise forms.ValidationError(f"Not added: {error.message}.") from error

    def clean_alt(self):
        return " ".join(self.cleaned_data["alt"].split())

    def clean(self):
        cleaned = super().clean()
        if "target" in cleaned and "alt" in cleaned:
            text = _current_text(self.item, cleaned["target"])
            if len(_appended(text, _reference(self.item, "0" * 30, cleaned["alt"]), cleaned["target"])) > MAX_TEXT:
                self.add_error("target", f"This text would be longer than {MAX_TEXT} characters with the image.")
        return cleaned


@transaction.atomic
def add_image(*, item, target, image, alt):
    """Store the checked `image` with the item's set or deck and show it at the end of the item's
    `target` text. Returns True when the item became Markdown to show it."""
    content_changed()
    container = item.deck if isinstance(item, Card) else item.question_set
    media = store_image(container, image, alt)
    became_markdown = item.markup == Markup.PLAIN
    if became_markdown:
        item.markup = Markup.MARKDOWN
    reference = _reference(item, media.name, alt)
    if target.startswith("choice-"):
        choice = item.choices.get(pk=target.removeprefix("choice-"))
        choice.text = _appended(choice.text, reference, target)
        choice.save(update_fields=["text"])
        item.save(update_fields=["markup", "updated_at"])
    else:
        setattr(item, target, _appended(getattr(item, target), reference, target))
        item.save(update_fields=[target, "markup", "updated_at"])
    return became_markdown


def _current_text(item, target):
    if target.startswith("choice-"):
        return Choice.objects.filter(question=item, pk=target.removeprefix("choice-")).values_list("text", flat=True).first() or ""
    return getattr(item, target)


def _reference(item, name, alt):
    if item.markup == Markup.HTML:
        return f'<img src="media:{name}" alt="{escape(alt)}">'
    # Markdown's image syntax, with the characters that would end the alt text escaped.
    alt = "".join(f"\\{char}" if char in "\\[]" else char for char in alt)
    return f"![{alt}](media:{name})"


def _appended(text, reference, target):
    """A choice stays one line; a longer text gets the image as a paragraph of its own."""
    if not text.strip():
        return reference
    return f"{text.rstrip()} {reference}" if target.startswith("choice-") else f"{text.rstrip()}\n\n{reference}"
