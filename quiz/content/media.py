"""Images of sets and decks: checked, cleaned and stored (quiz.models.MediaFile).

An image is judged by its content, never its file name: Pillow must read it as a PNG, JPEG, GIF
or WebP within the limits below, and it is re-encoded from its pixels, so what is stored carries
no EXIF (camera, GPS position), no comment or text chunk, no XMP and no ICC profile (its colours
converted to sRGB instead); a photo's orientation is applied to its pixels first. The same
picture twice in one set or deck is stored once (by the digest of the cleaned bytes), under a
random name that says nothing about the answer.

Texts refer to an image as `media:<name>`. A document carries images under its own file names
(ParsedMedia): `check_media` refuses, item by item, the items that show a bad one (as parsing
refuses any bad item), and `with_stored_media` stores the images when the document is saved and
rewrites the items' `media:<file name>` to the stored names.
"""

import collections
import dataclasses
import functools
import hashlib
import html
import io
import re
import warnings
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import quote

from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver
from PIL import Image, ImageCms, ImageOps, ImageSequence, UnidentifiedImageError

from ..models import Choice, MediaFile, PendingImage, Question, QuestionSet
from ..models.media import new_media_name
from .documents import CARD_PARTS, ContentError, ParsedQuestion

# An image as a file: far beyond a diagram or a photo for a question, small enough to check,
# re-encode and store in a web request.
MAX_IMAGE_BYTES = 5_000_000
# Pixels, over all frames of an animation: decoding takes 3-4 bytes a pixel (160 MB at the limit),
# so a small file that claims more (a "decompression bomb") is refused before it is decoded.
MAX_PIXELS = 40_000_000
# Re-encoding may grow a file that its author compressed harder than Pillow does.
MAX_STORED_BYTES = 2 * MAX_IMAGE_BYTES
# What Pillow reads an image as: (its stored file's extension, Content-Type). MPO is a JPEG with
# more pictures after the first (some cameras write one): the first is kept, as a JPEG.
FORMATS = {
    "PNG": ("png", "image/png"),
    "JPEG": ("jpg", "image/jpeg"),
    "MPO": ("jpg", "image/jpeg"),
    "GIF": ("gif", "image/gif"),
    "WEBP": ("webp", "image/webp"),
}
FORMAT_NAMES = "a PNG, JPEG, GIF or WebP image"
# What a re-encoded image keeps of the original's `info`: what its pixels need to look the same
# (a transparent colour, an animation's timing and background). Everything else is metadata.
KEPT_INFO = ("transparency", "duration", "loop", "background")
# Markdown writes an image `![alt](media:name)`, HTML `<img src="media:name" alt="...">`.
MARKDOWN_IMAGE = re.compile(r"!\[(?P<alt>(?:\\.|[^\\\]])*)\]\(\s*<?(?=media:)")
HTML_IMAGE = re.compile(r"<img\b[^>]*>", re.IGNORECASE)
HTML_ALT = re.compile(r"""\balt\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.IGNORECASE)


@dataclass(frozen=True)
class ImageInfo:
    """A checked image, re-encoded without its metadata: what is stored."""

    data: bytes
    extension: str
    content_type: str
    width: int
    height: int

    @functools.cached_property
    def sha256(self):
        return hashlib.sha256(self.data).hexdigest()


# --- Checking --------------------------------------------------------------------------------------

def check_image(data, *, file, line, name):
    """The image in `data`, checked and cleaned (an ImageInfo), or a ContentError at `file:line`
    saying what is wrong with the image `name`."""

    def refused(reason):
        return ContentError(file, line, f"image {name!r}: {reason}")

    if not data:
        raise refused("the file is empty")
    if len(data) > MAX_IMAGE_BYTES:
        raise refused(f"the file is larger than {MAX_IMAGE_BYTES // 1_000_000} MB")
    try:
        with warnings.catch_warnings():
            # Pillow only warns about a picture just past its own bomb limit: refuse it as well.
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            return _cleaned(data, refused)
    except ContentError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        raise refused(f"it has more than {MAX_PIXELS // 1_000_000} million pixels") from error
    except UnidentifiedImageError as error:
        raise refused(f"it is not {FORMAT_NAMES} (told by its content, not its name)") from error
    except Exception as error:  # noqa: BLE001
        # Pillow reports a damaged file as any of a dozen exceptions (OSError, SyntaxError,
        # ValueError, struct.error, EOFError, IndexError...), and its own fuzzing treats each as
        # a file refused. A bad upload is the user's mistake to be told, never a server error.
        raise refused("the image is damaged or cut off and cannot be read") from error


def _cleaned(data, refused):
    image = Image.open(io.BytesIO(data), formats=[name for name in FORMATS if name != "MPO"])
    if image.format not in FORMATS:
        raise refused(f"it is not {FORMAT_NAMES}")
    frames = 1 if image.format in ("JPEG", "MPO") else getattr(image, "n_frames", 1)
    width, height = image.size
    if width * height * frames > MAX_PIXELS:  # read from the header: nothing decoded yet
        raise refused(f"it has more than {MAX_PIXELS // 1_000_000} million pixels")
    image.verify()  # checksums (a PNG's CRCs); a truncated file fails when decoded below
    image = Image.open(io.BytesIO(data), formats=[image.format if image.format != "MPO" else "JPEG"])
    extension, content_type = FORMATS[image.format]
    encoded = _encoded(image, "JPEG" if image.format == "MPO" else image.format, data)
    if len(encoded) > MAX_STORED_BYTES:
        raise refused(f"it is larger than {MAX_STORED_BYTES // 1_000_000} MB once cleaned")
    first = Image.open(io.BytesIO(encoded))
    return ImageInfo(encoded, extension, content_type, *first.size)


def _encoded(image, format, data):
    """The image re-encoded from its pixels, in its own format, with nothing but the pixels."""
    if format == "JPEG" or getattr(image, "n_frames", 1) == 1:
        frames = [_plain(ImageOps.exif_transpose(image), format)]
    else:
        frames = [_plain(frame.copy(), format) for frame in ImageSequence.Iterator(image)]
    options = {"exif": b""}
    if format == "JPEG":
        options["quality"] = 90
    elif format == "WEBP":
        # A lossless WebP (a diagram) stays lossless; a photo is re-encoded as one.
        options.update(lossless=_lossless_webp(data), quality=90)
    if len(frames) > 1:
        options.update(
            save_all=True, append_images=frames[1:], loop=image.info.get("loop", 0),
            duration=[frame.info.get("duration", 100) for frame in frames],
        )
    out = io.BytesIO()
    frames[0].save(out, format=format, **options)
    return out.getvalue()


def _plain(image, format):
    """One frame's pixels, in colours a browser shows the same without a profile, and without
    any of the original's metadata."""
    profile = image.info.get("icc_profile")
    if profile and image.mode in ("RGB", "RGBA", "CMYK"):
        try:
            image = ImageCms.profileToProfile(
                image, ImageCms.ImageCmsProfile(io.BytesIO(profile)), _srgb(),
                outputMode="RGBA" if image.mode == "RGBA" else "RGB",
            )
        except (OSError, ValueError, TypeError):
            pass  # a profile littlecms cannot read: the pixels as they are
    if format == "JPEG" and image.mode not in ("RGB", "L"):
        image = image.convert("RGB")
    kept = {key: image.info[key] for key in KEPT_INFO if key in image.info}
    image.info = kept
    return image


@functools.cache
def _srgb():
    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))


def _lossless_webp(data):
    lossless, lossy = data.find(b"VP8L", 12), data.find(b"VP8 ", 12)
    return lossless != -1 and (lossy == -1 or lossless < lossy)


# --- Documents: the images their items show ----------------------------------------------------------

def check_media(documents, problems):
    """Check the images every document carries. An item that shows a bad one is a bad item,
    skipped as parsing skips one: its ContentError (at the item's line, naming the image and
    what is wrong) goes to `problems` as an item's, its place to its document's `skipped`.
    Returns warnings: the images shown without alt text."""
    found = []
    for document in documents:
        found.extend(_check_document_media(document, problems))
    return found


def _check_document_media(document, problems):
    if not document.media:
        return []
    carried = {media.file_name: media for media in document.media}
    pattern = _reference_pattern(tuple(carried))
    bad = {
        media.file_name: problem for media in document.media
        if (problem := image_problem(media.data, file=document.file, line=media.line, name=media.file_name))
    }
    kept, shown = [], {}
    for item, place in zip(document.items, document.positions()):
        names = _names_in(item, pattern)
        if refused := next((bad[name] for name in names if name in bad), None):
            problems.add(ContentError(document.file, item.line, refused.message), of_an_item=True)
            document.skipped.append(place)
            continue
        kept.append(item)
        shown.update(dict.fromkeys(names))
    document.items[:] = kept
    document.skipped.sort()
    alts = _alts_in(kept, pattern)
    return [
        f"{document.file}:{carried[name].line}: image {name!r} has no alt text (what it shows, for those who "
        "cannot see it); add one in the editor"
        for name in shown
        if not (carried[name].alt.strip() or alts.get(name))
    ]


# {digest of an image's bytes: (what is wrong with it or "", the digest of its cleaned bytes)}: an
# import's file is parsed again at each step (staged, previewed, applied), and each image needs
# checking and cleaning only once per process for that.
_VERDICTS = collections.OrderedDict()
MAX_VERDICTS = 4096


def _verdict(data, file, line, name):
    digest = hashlib.sha256(data).hexdigest()
    if (verdict := _VERDICTS.get(digest)) is None:
        try:
            verdict = ("", check_image(data, file=file, line=line, name=name).sha256)
        except ContentError as error:
            verdict = (error.message.removeprefix(f"image {name!r}: "), "")
        _VERDICTS[digest] = verdict
        while len(_VERDICTS) > MAX_VERDICTS:
            _VERDICTS.popitem(last=False)
    return verdict


def image_problem(data, *, file, line, name):
    """check_image's ContentError for `data`, or None when it is a good image."""
    reason, _ = _verdict(data, file, line, name)
    return ContentError(file, line, f"image {name!r}: {reason}") if reason else None


def texts_of(item):
    """Every text of a parsed item that may show an image."""
    if isinstance(item, ParsedQuestion):
        choices = [part for choice in item.choices for part in (choice[0], *choice[4:5]) if isinstance(part, str)]
        return [item.stem, item.explanation, *choices]
    return [getattr(item, part) for part in CARD_PARTS]


def _names_in(item, pattern):
    """The file names of the images an item shows, in order, once each."""
    names = {}
    for text in texts_of(item):
        for match in pattern.finditer(text or ""):
            names[pattern.names[match["name"]]] = True
    return list(names)


def _alts_in(items, pattern):
    """{file name: the first alt text an item gives it} (Markdown's `![alt](...)`, HTML's alt=)."""
    alts = {}
    for item in items:
        for text in filter(None, texts_of(item)):
            for found in MARKDOWN_IMAGE.finditer(text):
                if match := pattern.match(text, found.end()):
                    _note_alt(alts, pattern.names[match["name"]], re.sub(r"\\(.)", r"\1", found["alt"]))
            for tag in HTML_IMAGE.findall(text):
                if (match := pattern.search(tag)) and (alt := HTML_ALT.search(tag)):
                    _note_alt(alts, pattern.names[match["name"]], html.unescape(next(filter(None, alt.groups()), "")))
    return alts


def _note_alt(alts, name, alt):
    if alt.strip():
        alts.setdefault(name, " ".join(alt.split()))


class _ReferencePattern:
    """`media:<file name>` for the given file names, as a text may spell them (as named, URL- or
    HTML-escaped), ending where a URL ends; `names` maps each spelling to its file name."""

    def __init__(self, file_names):
        self.names = {}
        for name in file_names:
            for spelling in (name, quote(name, safe="/"), quote(name, safe=""), html.escape(name)):
                self.names.setdefault(spelling, name)
        spellings = sorted(self.names, key=len, reverse=True)  # "a.png.png" before "a.png"
        alternatives = "|".join(map(re.escape, spellings)) or "(?!)"
        self.regex = re.compile(rf"media:(?P<name>{alternatives})(?=$|[\s\"'()<>\[\]?#])")

    def finditer(self, text):
        return self.regex.finditer(text)

    def search(self, text):
        return self.regex.search(text)

    def match(self, text, position):
        return self.regex.match(text, position)

    def sub(self, replace, text):
        return self.regex.sub(replace, text)


@functools.lru_cache(maxsize=64)
def _reference_pattern(file_names):
    return _ReferencePattern(file_names)


def rewrite_media_references(text, mapping):
    """`text` with each `media:<file name>` of `mapping` ({file name: stored name}) made
    `media:<stored name>`; other text, and other images, as they were."""
    if not text or not mapping:
        return text
    pattern = _reference_pattern(tuple(mapping))
    return pattern.sub(lambda match: f"media:{mapping[pattern.names[match['name']]]}", text)


def rewrite_item_media(item, mapping):
    def rewrite(text):
        return rewrite_media_references(text, mapping) if isinstance(text, str) else text

    if isinstance(item, ParsedQuestion):
        choices = [
            (rewrite(choice[0]), *choice[1:4], *(rewrite(part) for part in choice[4:5]), *choice[5:])
            for choice in item.choices
        ]
        return dataclasses.replace(item, stem=rewrite(item.stem), explanation=rewrite(item.explanation), choices=choices)
    return dataclasses.replace(item, **{part: rewrite(getattr(item, part)) for part in CARD_PARTS})


# --- Storing ----------------------------------------------------------------------------------------

def save_image(container, data, alt, *, name="image"):
    """Check `data` and store it as an image of `container` (a QuestionSet or a Deck): the
    MediaFile, which is the one stored already when the set or deck has the same picture."""
    return store_image(container, check_image(data, file=name, line=None, name=name), alt)


def store_image(container, image, alt, *, carried_sha256=None):
    """Store a checked ImageInfo as an image of `container`, once per set or deck.

    `carried_sha256`: the digest of the bytes the image came as. Bytes that are exactly a stored
    image's (an exported file imported again) are that image: cleaning them again would give
    other bytes for a JPEG or a lossy WebP (each encoding loses a little), so the cleaned digest
    alone would store the picture again under a new name."""
    owner = {"question_set" if isinstance(container, QuestionSet) else "deck": container}
    alt = " ".join(alt.split())[: MediaFile._meta.get_field("alt").max_length]
    if existing := _stored_as(owner, carried_sha256, image.sha256):
        if alt and not existing.alt:
            existing.alt = alt
            existing.save(update_fields=["alt"])
        return existing
    media = MediaFile(
        **owner, name=new_media_name(image.extension), alt=alt, content_type=image.content_type,
        width=image.width, height=image.height, size=len(image.data), sha256=image.sha256,
    )
    content = ContentFile(image.data)
    content.content_type = image.content_type  # what an object store serves it as
    media.file.save(media.name, content, save=False)
    try:
        media.save()
    except BaseException:
        media.file.delete(save=False)
        raise
    return media


def _stored_as(owner, carried_sha256, cleaned_sha256):
    """The stored image with exactly the carried bytes, else the first with the cleaned ones."""
    digests = [digest for digest in (carried_sha256, cleaned_sha256) if digest]
    found = {}
    for media in MediaFile.objects.filter(**owner, sha256__in=digests).order_by("-pk"):
        found[media.sha256] = media  # the first stored of each digest
    return next((found[digest] for digest in digests if digest in found), None)


def save_document_media(container, document):
    """Store the images `document`'s items show as images of `container`: {the document's file
    name: the stored name}. An image no item shows is not stored."""
    carried = {media.file_name: media for media in document.media}
    if not carried:
        return {}
    pattern = _reference_pattern(tuple(carried))
    shown = dict.fromkeys(name for item in document.items for name in _names_in(item, pattern))
    alts = _alts_in(document.items, pattern)
    mapping = {}
    for name in shown:
        media = carried[name]
        image = check_image(media.data, file=document.file, line=media.line, name=name)
        as_carried = hashlib.sha256(media.data).hexdigest()
        alt = media.alt or alts.get(name, "")
        mapping[name] = store_image(container, image, alt, carried_sha256=as_carried).name
    return mapping


def with_stored_media(container, document):
    """The document with its images stored in `container` and its items showing them by their
    stored names, as saving writes them (quiz.content.sync)."""
    mapping = save_document_media(container, document)
    if not mapping:
        return document
    return dataclasses.replace(document, items=[rewrite_item_media(item, mapping) for item in document.items])


def with_known_media(container, document):
    """The document with the images `container` already has shown by their stored names, for a
    preview that compares the items with what saving will write. Stores nothing."""
    if container is None or not document.media:
        return document
    owner = {"question_set" if isinstance(container, QuestionSet) else "deck": container}
    # As saving finds them (_stored_as): by the bytes as carried, else by the cleaned bytes.
    digests = {
        media.file_name: (hashlib.sha256(media.data).hexdigest(), cleaned) for media in document.media
        if (cleaned := _verdict(media.data, document.file, media.line, media.file_name)[1])
    }
    wanted = {digest for pair in digests.values() for digest in pair}
    stored = dict(MediaFile.objects.filter(**owner, sha256__in=wanted).order_by("-pk").values_list("sha256", "name"))
    mapping = {
        name: stored[carried] if carried in stored else stored[cleaned]
        for name, (carried, cleaned) in digests.items() if carried in stored or cleaned in stored
    }
    if not mapping:
        return document
    return dataclasses.replace(document, items=[rewrite_item_media(item, mapping) for item in document.items])


# --- Before saving: the images of a pending import ------------------------------------------------

def stage_images(pending, documents):
    """Keep the good images `documents` carry as PendingImages of `pending`, cleaned as saving
    will store them, so that its preview shows them before anything is saved."""
    staged = {}
    for document in documents:
        for media in document.media:
            digest = hashlib.sha256(media.data).hexdigest()
            if digest in staged or image_problem(media.data, file=document.file, line=media.line, name=media.file_name):
                continue
            image = check_image(media.data, file=document.file, line=media.line, name=media.file_name)
            staged[digest] = PendingImage(
                pending=pending, name=new_media_name(image.extension), source_sha256=digest,
                content_type=image.content_type, data=image.data,
            )
    PendingImage.objects.bulk_create(staged.values())


def staged_names(document, staged):
    """{file name: staged image's name} of the images `document` carries that are `staged`
    ({source digest: name} of PendingImages): the preview shows `media:<file name>` as that
    image, which quiz.views.media serves to the import's owner only."""
    by_digest = {media.file_name: hashlib.sha256(media.data).hexdigest() for media in document.media}
    return {file_name: staged[digest] for file_name, digest in by_digest.items() if digest in staged}


# --- Copying ---------------------------------------------------------------------------------------

# A stored image's name in a text (new_media_name): 24 hex digits and the extension.
STORED_NAME = re.compile(r"media:([0-9a-f]{24}\.(?:png|jpg|gif|webp))")


def copy_images(original, copy):
    """Give `copy` (a duplicate of the set or deck `original`, its items already made) its own
    copies of the images its texts show, and show them by their new names: deleting the original
    then leaves the copy whole. Returns how many images were copied."""
    is_set = isinstance(copy, QuestionSet)
    items = list(copy.questions.prefetch_related("choices") if is_set else copy.cards.all())
    choices = [choice for item in items for choice in item.choices.all()] if is_set else []
    texts = [text for item in items for text in _stored_texts(item)] + [c.text + "\n" + c.match for c in choices]
    shown = {name for text in texts for name in STORED_NAME.findall(text)}
    owner = {"question_set" if is_set else "deck": original}
    mapping = {}
    for image in MediaFile.objects.filter(**owner, name__in=shown).order_by("pk"):
        try:
            with image.file.storage.open(image.file.name, "rb") as file:
                data = file.read()
        except OSError:
            continue  # gone from the store: the copy shows what the original shows, nothing
        fields = {name: getattr(image, name) for name in ("alt", "content_type", "width", "height", "size", "sha256")}
        image_copy = MediaFile(**{"question_set" if is_set else "deck": copy}, name=new_media_name(image.name.rsplit(".", 1)[1]), **fields)
        image_copy.file.save(image_copy.name, ContentFile(data), save=False)
        image_copy.save()
        mapping[image.name] = image_copy.name
    if mapping:
        for item in items:
            for name in (("stem", "explanation") if is_set else CARD_PARTS):
                setattr(item, name, rewrite_media_references(getattr(item, name), mapping))
        type(items[0]).objects.bulk_update(items, ["stem", "explanation"] if is_set else list(CARD_PARTS))
        for choice in choices:
            choice.text, choice.match = (rewrite_media_references(text, mapping) for text in (choice.text, choice.match))
        if choices:
            Choice.objects.bulk_update(choices, ["text", "match"])
    return len(mapping)


def _stored_texts(item):
    return [item.stem, item.explanation] if isinstance(item, Question) else [getattr(item, name) for name in CARD_PARTS]


# --- Deleting ---------------------------------------------------------------------------------------

# Files younger than this are kept by `prune_files`: an import still running has written its
# images but not yet committed the rows that name them.
ORPHAN_MIN_AGE = timedelta(hours=1)


def orphan_files(*, now, min_age=ORPHAN_MIN_AGE):
    """The stored files under content/ that no MediaFile names and that are older than `min_age`:
    an image written by an import that was then rolled back (a dry run, a refusal at the last
    step; a store has no rollback), or one whose deletion failed."""
    storage = MediaFile._meta.get_field("file").storage
    folder = MediaFile._meta.get_field("file").upload_to.rstrip("/")
    try:
        _, names = storage.listdir(folder)
    except FileNotFoundError:
        return []  # nothing stored yet
    known = set(MediaFile.objects.values_list("file", flat=True))
    return [
        path for path in (f"{folder}/{name}" for name in sorted(names))
        if path not in known and storage.get_modified_time(path) <= now - min_age
    ]


def prune_files(*, now, min_age=ORPHAN_MIN_AGE, dry_run=False):
    """Delete the orphan files (orphan_files); return their names."""
    orphans = orphan_files(now=now, min_age=min_age)
    if not dry_run:
        storage = MediaFile._meta.get_field("file").storage
        for path in orphans:
            storage.delete(path)
    return orphans


@receiver(post_delete, sender=MediaFile, dispatch_uid="media_file_deleted")
def _delete_stored_file(sender, instance, **kwargs):
    """A deleted image's file goes too (its set or deck deleted), once the deletion commits: a
    rolled-back deletion keeps both. `robust`: a store that fails to delete is logged, and the
    deletion the user asked for still succeeded."""
    file = instance.file
    if file.name:
        transaction.on_commit(lambda: file.storage.delete(file.name), robust=True)
