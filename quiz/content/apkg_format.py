"""Anki packages: a deck as Anki exports it (.apkg) or a whole collection (.colpkg).

A package is a zip holding a collection (collection.anki2, .anki21, or the zstd-compressed
.anki21b of Anki 2.1.50 and later) and its media. It is read by Anki's own backend, the `anki`
package, in a child process (apkg_reader.py, with limits: the package is untrusted and its
collection is decompressed by native code), never by guessing at the format.

What it becomes:
* one deck per Anki deck that holds cards, titled with the deck's full name (`Networking::Ports`:
  a subdeck is a deck of its own, so a package of one subdeck updates that deck alone, as
  importing an export file does; decks are matched by title, as an export file's are);
* one card per Anki card, keyed `GUID:ORD` (the note's guid and the card's ordinal), which is the
  card's identity: re-importing an updated package updates each card in place and keeps its
  history. Fields are stored as Anki keeps them, HTML (markup "html", sanitised when shown);
* Basic notes (and any note type whose every card shows one field and answers with another:
  Basic (and reversed card), Basic (optional reversed card), Basic (type in the answer)) give
  each card its template's two fields as front and back, so a reversed card is the note swapped;
* Cloze notes: each card asks one cloze number (`cloze` N for card ordinal N-1), its front the
  whole text with its markers, its back the note's other field (Back Extra);
* other note types: one card per note (its first card), the first two fields as front and back,
  with a warning naming the note type; Image Occlusion notes are skipped with a warning (their
  first field is the masks' shapes, not a question);
* tags are the cards' topics (except Anki's own `leech` and `marked`);
* images: `<img src="x.png">` of a file in the package becomes `<img src="media:x.png">` and the
  file is carried with the deck (ParsedMedia, stored by quiz.content.media); sounds
  (`[sound:x.mp3]`) are removed with a warning;
* an empty card (its front field empty, or a cloze number its text no longer has, as Anki's
  Check Empty Cards lists) is skipped with a warning.

The review log comes out as plain data beside the documents (`parse_apkg`): for each card's key,
its reviews [(reviewed_at UTC datetime, rating 1-4, duration in ms or None)], in time order,
from the log entries of learning, review and relearning (and reviews in a filtered deck that
rescheduled); manual changes (Forget, Set Due Date), rescheduling and cramming that did not
reschedule carry no rating and are left out, as Anki's own FSRS leaves them out. Importing it
is `apkg_history.import_review_history`, with the learner's consent.

A problem is `FILE: note <id>: what is wrong` and the package is refused whole. Pure apart from
the child process and its temporary folder: no database.
"""

import functools
import hashlib
import html
import io
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote, unquote

from ..models import SourceDocument
from .cloze import cloze_numbers
from .documents import (
    MAX_KEY,
    MAX_TEXT,
    MAX_TITLE,
    MAX_TOPIC,
    PACKAGE_MAGIC,
    UNSTORABLE,
    ContentError,
    ParsedCard,
    ParsedDocument,
    ParsedMedia,
    Problems,
    shorten,
)

COLLECTIONS = ("collection.anki21b", "collection.anki21", "collection.anki2")
ZIP_MAGIC = PACKAGE_MAGIC
# What a package may unpack to, in all: far beyond a deck's text and images, small enough for a
# temporary folder. Checked on the zip's members, then on the folder Anki's backend fills.
MAX_UNPACKED_BYTES = 200_000_000
MAX_MEMBERS = 20_000
READ_SECONDS = 120
IGNORED_TAGS = {"leech", "marked"}
STOCK_IMAGE_OCCLUSION = 6  # notetypes.proto StockNotetype.Kind
CLOZE_LIMIT = 500  # the cloze column's range (json_format._cloze)
# Revlog kinds (rslib RevlogReviewKind): learning, review, relearning carry a rating; filtered
# (3) only counts when it rescheduled (a factor); manual (4) and rescheduled (5) never do.
RATED_KINDS = {0, 1, 2}
FILTERED = 3
MAX_DURATION_MS = 2**31 - 1
# Review times Anki could have written (milliseconds): after 2006, Anki's first year, before 2100.
REVIEW_TIMES = range(1_136_073_600_000, 4_102_444_800_000)
# Images read from the package: each beyond what quiz.content.media accepts is not read (a warning
# says so), nor more than this in all, so a package's media cannot fill the memory.
MAX_IMAGE_BYTES = 10_000_000
MAX_IMAGES_BYTES = 50_000_000

IMG_TAG = re.compile(r"<img\b[^>]*>", re.IGNORECASE)
IMG_SRC = re.compile(r"""(\bsrc\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.IGNORECASE)
SOUND = re.compile(r"\[sound:[^\]]*\]")
FIELD_REFERENCE = re.compile(r"\{\{([^{}]+)\}\}")


class Unreadable(Exception):
    """A package that cannot be read: str() says why, for `FILE: ...`."""


def looks_like_package(data):
    """A zip file: what an Anki package is (a zip without a collection is refused as one, with a
    clearer message than any text format's)."""
    return data[:4] in ZIP_MAGIC


def parse_package(data, file, checksum=None):
    """([ParsedDocument], [warning]): reading.FORMATS' parser of a package, given its bytes."""
    warnings = []
    documents, _ = parse_apkg(file, data, warnings=warnings)
    return documents, warnings


def parse_apkg(file, data, *, warnings=None):
    """(documents, review_history) of a package's bytes; warnings go to `warnings` (a list).

    review_history is {card key: [(reviewed_at, rating, duration_ms)]} for the cards read."""
    try:
        package = read_package(bytes(data))
    except Unreadable as error:
        raise ContentError(file, None, str(error)) from None
    reader = _Reader(file, package)
    documents = reader.documents()
    if warnings is not None:
        warnings.extend(reader.warnings)
    return documents, reader.history


def review_history(file, data):
    """Only the review history of a package (for the apply step, after its documents were saved)."""
    return parse_apkg(file, data)[1]


# --- Reading the package (a child process) ----------------------------------------------------------

@dataclass
class Package:
    content: dict  # what apkg_reader.read wrote
    media: dict = field(default_factory=dict)  # {file name: bytes} of the images the notes show


@functools.lru_cache(maxsize=4)
def read_package(data):
    """The package's Package, or raise Unreadable. Kept for the last few packages: an import
    reads its files at each step (staged, previewed, applied)."""
    _check_zip(data)
    with tempfile.TemporaryDirectory(prefix="apkg-") as folder:
        package = Path(folder, "package.zip")
        package.write_bytes(data)
        work = Path(folder, "collection")
        work.mkdir()
        _run_reader(package, work)
        try:
            content = json.loads(Path(work, "package.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise Unreadable("Anki could not read this package") from None
        media_folder = Path(work, "collection.media")
        shown = _images_shown(content)
        media, total = {}, 0
        for name in content.get("media", []):
            path = media_folder / name
            if name in shown and Path(name).name == name and path.is_file():
                size = path.stat().st_size
                if size <= MAX_IMAGE_BYTES and total + size <= MAX_IMAGES_BYTES:
                    media[name] = path.read_bytes()
                    total += size
        return Package(content, media)


def _check_zip(data):
    """Refuse what is not a zip with a collection, and a zip that unpacks to too much (a "zip
    bomb"), before Anki's backend sees it. Reading every member checks it is what its header says
    (its size and CRC), so a member cannot claim a small size and unpack to more."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            names = {member.filename for member in members}
            if not names & set(COLLECTIONS):
                raise Unreadable("a zip file, but not an Anki package: it has no collection.anki2, "
                                 "collection.anki21 or collection.anki21b")
            if len(members) > MAX_MEMBERS:
                raise Unreadable(f"the package has more than {MAX_MEMBERS} files")
            if sum(member.file_size for member in members) > MAX_UNPACKED_BYTES:
                raise Unreadable(f"the package unpacks to more than {MAX_UNPACKED_BYTES // 1_000_000} MB")
            for member in members:
                with archive.open(member) as unpacked:
                    while unpacked.read(1 << 20):
                        pass
    except Unreadable:
        raise
    except Exception as error:  # BadZipFile, zlib.error, EOFError, an encrypted member: a damaged zip
        raise Unreadable(f"the package is not a readable zip file ({shorten(str(error))})") from None


def _run_reader(package, work):
    """Run apkg_reader.py on the package; raise Unreadable when it fails, runs too long or
    fills its folder past MAX_UNPACKED_BYTES."""
    script = Path(__file__).with_name("apkg_reader.py")
    command = [sys.executable, "-I", str(script), str(package), str(work), str(MAX_UNPACKED_BYTES)]
    started = time.monotonic()
    with open(Path(work, "errors.txt"), "wb") as errors, subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors, cwd=work
    ) as child:
        while not _finished(child):
            if _folder_bytes(work) > MAX_UNPACKED_BYTES:
                child.kill()
                raise Unreadable(f"the package unpacks to more than {MAX_UNPACKED_BYTES // 1_000_000} MB")
            if time.monotonic() - started > READ_SECONDS:
                child.kill()
                raise Unreadable(f"reading the package took more than {READ_SECONDS} seconds")
    if child.returncode == -signal.SIGXFSZ:  # a file past the limit (apkg_reader restores the signal)
        raise Unreadable(f"the package unpacks to more than {MAX_UNPACKED_BYTES // 1_000_000} MB")
    if child.returncode != 0:
        said = Path(work, "errors.txt").read_text("utf-8", "replace").strip().splitlines()[-1:] or ["it stopped"]
        raise Unreadable(f"Anki could not read this package: {shorten(said[0].replace(str(work), '…'))}")


def _finished(child):
    try:
        child.wait(timeout=0.05)
    except subprocess.TimeoutExpired:
        return False
    return True


def _folder_bytes(folder):
    total = 0
    for directory, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.stat(os.path.join(directory, name)).st_size
            except OSError:
                pass  # a temporary file gone meanwhile
    return total


def _images_shown(content):
    names = set()
    for _, _, _, fields, _ in content.get("notes", []):
        for text in fields:
            for tag in IMG_TAG.findall(text):
                if source := _src(tag):
                    names.update((source, unquote(source)))
    return names


def _src(tag):
    match = IMG_SRC.search(tag)
    if not match:
        return None
    return html.unescape(next(value for value in match.groups()[1:] if value is not None))


# --- Building the documents --------------------------------------------------------------------------

@dataclass
class _NoteType:
    name: str
    kind: str  # "pairs" (each template one field to another), "cloze", "occlusion" or "other"
    fields: list
    pairs: dict = field(default_factory=dict)  # {ord: (front field index, back field index)}
    cloze_field: int = 0
    extra_field: int | None = None


class _Reader:
    def __init__(self, file, package):
        self.file, self.package = file, package
        content = package.content
        self.notetypes = {mid: _note_type(notetype) for mid, notetype in content["notetypes"].items()}
        self.decks = content["decks"]
        self.notes = {nid: (guid, mid, fields, tags) for nid, guid, mid, fields, tags in content["notes"]}
        self.ords = defaultdict(list)  # {note id: its cards' ordinals}
        for _, nid, _, ord in content["cards"]:
            self.ords[nid].append(ord)
        self.problems = Problems()
        self.warnings = []
        self.skipped = defaultdict(list)  # {what was skipped: [note id]}
        self.history = {}

    def documents(self):
        by_deck, card_keys = defaultdict(list), {}
        for card_id, nid, deck_id, ord in self.package.content["cards"]:
            if nid not in self.notes:
                continue  # a card without its note: nothing to show
            built = self.problems.collect(self._card, nid, ord)
            if built is not None:
                deck = self.decks.get(str(deck_id)) or "Default"
                by_deck[deck].append(built)
                card_keys[card_id] = built.key
        documents = [self._document(deck, cards) for deck, cards in sorted(by_deck.items())]
        self.problems.raise_if_any()
        if not documents:
            raise ContentError(self.file, None, "the package has no cards to import")
        self._warn_skipped()
        self.history = self._history(card_keys)
        return documents

    def _card(self, nid, ord):
        """The ParsedCard of one Anki card, or None for one left out (a warning says why)."""
        guid, mid, fields, tags = self.notes[nid]
        notetype = self.notetypes.get(mid)
        if notetype is None or notetype.kind == "occlusion":
            self.skipped[("occlusion", notetype.name) if notetype else ("no note type", "")].append(nid)
            return None
        cloze = None
        if notetype.kind == "pairs":
            front, back = (_field(fields, index) for index in notetype.pairs.get(ord, (None, None)))
        elif notetype.kind == "cloze":
            front, back = _field(fields, notetype.cloze_field), _field(fields, notetype.extra_field)
            cloze = ord + 1
            if cloze > CLOZE_LIMIT:
                raise self._problem(nid, f"cloze number {cloze} is above {CLOZE_LIMIT}")
        else:
            if ord != min(self.ords[nid]):
                return None  # one card per note of another type: its first
            self.skipped[("other", notetype.name)].append(nid)
            front, back = _field(fields, 0), _field(fields, 1)
        if not _has_text(front) or (cloze is not None and cloze not in cloze_numbers(front)):
            self.skipped[("empty", "")].append(nid)
            return None
        key = f"{guid}:{ord}"
        if len(key) > MAX_KEY:
            raise self._problem(nid, f"its guid is longer than {MAX_KEY - len(str(ord)) - 1} characters")
        if UNSTORABLE.search(key):
            raise self._problem(nid, "its guid holds a character no database can store (NUL)")
        front, back = self._text(nid, front, "front"), self._text(nid, back, "back")
        return ParsedCard(key, front, back, "", "", 0, topics=self._topics(nid, tags), markup="html", cloze=cloze)

    def _text(self, nid, text, side):
        if UNSTORABLE.search(text):
            raise self._problem(nid, f"the {side} holds a character no database can store (NUL)")
        if SOUND.search(text):
            self.skipped[("sound", "")].append(nid)
            text = SOUND.sub("", text)
        text = IMG_TAG.sub(lambda match: self._image(nid, match.group(0)), text)
        if len(text) > MAX_TEXT:
            raise self._problem(nid, f"the {side} is longer than {MAX_TEXT} characters")
        return text

    def _image(self, nid, tag):
        source = _src(tag)
        if source is None or re.match(r"[a-z][a-z0-9+.-]*:", source, re.IGNORECASE):
            return tag  # a web address or data: the page's sanitiser decides
        media = self.package.media
        name = source if source in media else unquote(source) if unquote(source) in media else None
        if name is None:
            self.skipped[("missing image", source)].append(nid)
            return tag
        return IMG_SRC.sub(lambda match: f'{match.group(1)}"media:{quote(name, safe="")}"', tag, count=1)

    def _topics(self, nid, tags):
        names = [tag for tag in dict.fromkeys(tags) if tag.lower() not in IGNORED_TAGS]
        if too_long := next((name for name in names if len(name) > MAX_TOPIC), None):
            raise self._problem(nid, f"the tag {shorten(too_long)!r} is longer than {MAX_TOPIC} characters")
        if any(UNSTORABLE.search(name) for name in names):
            raise self._problem(nid, "a tag holds a character no database can store (NUL)")
        return names

    def _problem(self, nid, message):
        return ContentError(self.file, None, f"note {nid}: {message}")

    def _document(self, deck, cards):
        if len(deck) > MAX_TITLE:
            self.problems.add(ContentError(self.file, None, f"the deck name {shorten(deck)!r} is longer than "
                                                            f"{MAX_TITLE} characters; rename the deck in Anki"))
        if UNSTORABLE.search(deck):
            self.problems.add(ContentError(self.file, None, f"the deck name {shorten(deck)!r} holds a character no "
                                                            "database can store (NUL); rename the deck in Anki"))
        for line, card in enumerate(cards, start=1):
            card.line = line
        media = []
        for name, data in self.package.media.items():
            reference = f"media:{quote(name, safe='')}"
            first = next((card.line for card in cards if reference in card.front or reference in card.back), None)
            if first is not None:
                media.append(ParsedMedia(name, data, first))
        checksum = hashlib.sha256(
            json.dumps([deck, [vars(card) for card in cards], sorted(m.file_name for m in media)], default=str).encode()
        ).hexdigest()
        return ParsedDocument(self.file, SourceDocument.Kind.DECK, deck, None, checksum, cards,
                              checksum_of_source=False, keys_are_identities=True, media=media)

    def _warn_skipped(self):
        said = {
            "occlusion": "Image Occlusion notes (note type {detail!r}) were skipped: their cards cannot be studied here",
            "other": "note type {detail!r} is not a Basic or Cloze type: each note's first two fields were imported "
                     "as front and back (one card per note)",
            "no note type": "notes of a note type the package does not have were skipped",
            "empty": "empty cards (an empty front, or a cloze number the text no longer has) were skipped",
            "sound": "sounds ([sound:...]) were removed: only images are imported",
            "missing image": "the image {detail!r} is not in the package (or is over 10 MB); it is left as written",
        }
        for (what, detail), notes in self.skipped.items():
            notes = list(dict.fromkeys(notes))  # a note's cards each count once
            listed = ", ".join(str(nid) for nid in notes[:3]) + (f" and {len(notes) - 3} more" if len(notes) > 3 else "")
            noun = "note" if len(notes) == 1 else "notes"
            self.warnings.append(f"{self.file}: {noun} {listed}: " + said[what].format(detail=detail))

    def _history(self, card_keys):
        history = {}
        for card_id, moment, ease, duration, kind, factor in self.package.content["revlog"]:
            key = card_keys.get(card_id)
            rated = kind in RATED_KINDS or (kind == FILTERED and factor)
            if key is None or not rated or ease not in (1, 2, 3, 4) or moment not in REVIEW_TIMES:
                continue
            milliseconds = min(max(int(duration or 0), 0), MAX_DURATION_MS) or None
            history.setdefault(key, []).append((datetime.fromtimestamp(moment / 1000, UTC), ease, milliseconds))
        for reviews in history.values():
            reviews.sort(key=lambda review: review[0])
        return history


def _note_type(notetype):
    # The reader's empty collection has Anki's stock note types, and Anki's importer names a
    # package's note type of the same name "Basic+": the name the learner knows is without it.
    name = notetype["name"].removesuffix("+")
    fields = notetype["fields"]
    templates = {int(ord): texts for ord, texts in notetype["templates"].items()}
    if notetype["stock_kind"] == STOCK_IMAGE_OCCLUSION or any(
        "image-occlusion" in question for question, _ in templates.values()
    ):
        return _NoteType(name, "occlusion", fields)
    if notetype["cloze"]:
        asked = next((name for question, _ in templates.values() for name in _references(question, cloze=True)), None)
        cloze_field = fields.index(asked) if asked in fields else 0
        extra = next((index for index in range(len(fields)) if index != cloze_field), None)
        return _NoteType(name, "cloze", fields, cloze_field=cloze_field, extra_field=extra)
    pairs = {}
    for ord, (question, answer) in templates.items():
        asked = {name for name in _references(question) if name in fields}
        answered = {name for name in _references(answer, typed=True) if name in fields} - asked
        if len(asked) != 1 or len(answered) != 1:
            return _NoteType(name, "other", fields)
        pairs[ord] = (fields.index(asked.pop()), fields.index(answered.pop()))
    return _NoteType(name, "pairs" if pairs else "other", fields, pairs=pairs)


def _references(template, *, cloze=False, typed=False):
    """The field names a card template shows: `{{Front}}`, `{{text:Front}}`; `{{type:Back}}` only
    when `typed` (the answer side: the question side shows a box, not the field); with `cloze`,
    only `{{cloze:Text}}`. Conditionals (`{{#Field}}`) and FrontSide show nothing of their own."""
    for reference in FIELD_REFERENCE.findall(template):
        reference = reference.strip()
        if reference[:1] in "#^/!":
            continue
        *filters, name = reference.split(":")
        filters = [name.strip().lower() for name in filters]
        if cloze and "cloze" not in filters:
            continue
        if "type" in filters and not typed:
            continue
        yield name.strip()


def _field(fields, index):
    return fields[index] if index is not None and index < len(fields) else ""


def _has_text(html_text):
    return bool(re.sub(r"<(?!img\b)[^>]*>|&nbsp;|\s", "", html_text, flags=re.IGNORECASE))

