"""What the parsers produce and share: the parsed-document dataclasses, ContentError (and
ContentErrors with Problems, to report every problem of a document), the limits a document
must respect, and the checks that more than one format applies.

Nothing here touches the database: the models are imported only for their column sizes and
SourceDocument.Kind, so parsed documents can be built and tested without one.
"""

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path

from django.conf import settings

from ..models import Question, SourceDocument, Topic
from ..models.kinds import QuestionKind, kind_problem, weights_of

CARD_PARTS = ("front", "back", "misconception", "correction")
MAX_TITLE = SourceDocument._meta.get_field("title").max_length
MAX_FILE_NAME = SourceDocument._meta.get_field("file_name").max_length
MAX_KEY = Question._meta.get_field("key").max_length
MAX_TOPIC = Topic._meta.get_field("name").max_length
# The text columns are unbounded; a stem, choice or card side longer than this is a broken
# document (a missing blank line glued paragraphs together), not content.
MAX_TEXT = 10_000
# Whole documents: far beyond any course's content, small enough that one file cannot
# fill the server's memory or hold the import transaction for minutes.
MAX_FILE_BYTES = 5_000_000
# An Anki package carries its images and sounds: shared decks are often tens of megabytes. Its
# content is bounded again when unpacked (apkg_format), so only its size on upload is larger.
PACKAGE_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a zip file, which every Anki package is


def max_file_bytes(head, format=None):
    """The largest file accepted, told by its first bytes `head` and the format it is read in: an
    Anki package may be larger; a file read in a text format never is, whatever it begins with."""
    package = format == "apkg" or (not format and head[:4] in PACKAGE_MAGIC)
    return settings.MAX_PACKAGE_BYTES if package else MAX_FILE_BYTES


def file_too_large(file, size, head, format=None):
    """The ContentError for a file of `size` bytes beginning with `head`, or None."""
    limit = max_file_bytes(head, format)
    if size <= limit:
        return None
    kind = "an Anki package" if limit != MAX_FILE_BYTES else "a file"
    return ContentError(file, None, f"file is larger than {limit // 1_000_000} MB, the most {kind} may be")


MAX_ITEMS = 5_000
# Problems reported at once: enough to fix a file in one pass, few enough to read.
MAX_PROBLEMS = 100
# Characters no database column can hold: NUL (PostgreSQL refuses it) and lone surrogates
# (not encodable as UTF-8), which JSON can spell as "\u0000" and "\ud800".
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
# Both text formats tag an item with a `Topics: a, b` line.
TOPICS_LINE = re.compile(r"^topics\s*:(.*)$", re.IGNORECASE)
TOPICS_PREFIX = "Topics:"
# Both text formats say how all their texts are written with a `Format: markdown` (or `html`)
# line, and only as the document's first non-blank line (`document_markup`).
FORMAT_LINE = re.compile(r"^\s*format\s*:\s*(plain|markdown|html)\s*$", re.IGNORECASE)
FORMAT_PREFIX = "Format:"


class ContentError(Exception):
    """A document that cannot be imported; `str()` is the `FILE:LINE: message` to show."""

    def __init__(self, file, line, message):
        super().__init__(message)
        self.file, self.line, self.message = file, line, message

    def __str__(self):
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.message}"


class ContentErrors(ContentError):
    """Every problem found in the items of one or more documents, each a ContentError; `str()`
    is one `FILE:LINE: message` per line. As a ContentError it is the first problem, so callers
    that show one problem (`.file`, `.line`, `.message`) keep working."""

    def __init__(self, problems, more=0):
        first = problems[0]
        super().__init__(first.file, first.line, first.message)
        self.problems, self.more = list(problems), more

    def __str__(self):
        lines = [ContentError.__str__(problem) for problem in self.problems]
        return "\n".join(lines + ([f"… and {self.more} more"] if self.more else []))


class SkippedItems(ContentErrors):
    """Problems that are all of items standing on their own, in documents whose other items were
    read. As a ContentErrors it refuses the file, as every caller that imports all or nothing
    wants (the import_questions command); a caller that imports the good items (the browser's
    preview) takes `documents`, each without its skipped items and naming their places
    (`ParsedDocument.skipped`), and `warnings` instead. `importable` leaves out a document none
    of whose items could be read: nothing of it is imported, so nothing of it changes. `items` is
    how many items were skipped."""

    def __init__(self, problems, more, documents, warnings):
        super().__init__(problems, more)
        self.documents, self.warnings = list(documents), list(warnings)

    @property
    def items(self):
        return sum(len(document.skipped) for document in self.documents)

    @property
    def importable(self):
        return [document for document in self.documents if document.items or not document.skipped]


class Problems:
    """What is wrong with a document's items, collected so that one import reports them all.

    A parser runs each item that stands on its own through `items` (or `collect`/`each`, for
    parts that are not items), which records the item's ContentError and skips the item; once
    done, `raise_if_any` raises them all as one ContentErrors, or as SkippedItems when every
    problem is an item's and other items were read. Problems that make the rest meaningless (a
    file that is not UTF-8, a broken header) are still raised at once: a guess past them would
    bury the real problem in noise."""

    def __init__(self):
        self.found, self.more, self.seen = [], 0, set()
        self.of_the_file = False  # a problem that is not one item's: the file is refused whole

    def add(self, error, *, of_an_item=False):
        self.of_the_file = self.of_the_file or not of_an_item
        for problem in getattr(error, "problems", [error]):
            if str(problem) in self.seen:  # e.g. two bad strings in one JSON object
                continue
            self.seen.add(str(problem))
            if len(self.found) < MAX_PROBLEMS:
                self.found.append(problem)
            else:
                self.more += 1
        self.more += getattr(error, "more", 0)

    def collect(self, build, *args):
        """build(*args), or None when it raises ContentError, which is recorded."""
        try:
            return build(*args)
        except ContentError as error:
            self.add(error)
            return None

    def each(self, build, arguments):
        """[build(*args), ...] for the args of each item, leaving out the items with a problem."""
        return [built for args in arguments if (built := self.collect(build, *args)) is not None]

    def items(self, build, arguments):
        """([build(*args), ...], [place, ...]) for the args of each item of a document, in order:
        the items read, and the places (from 1, among the items read and skipped) of those left
        out for a problem of their own. Use it only where the items stand on their own, so that
        a broken one cannot change how the next ones read. A build that returns None (an item
        skipped with a warning) neither is an item nor takes a place."""
        read, skipped = [], []
        for args in arguments:
            try:
                item = build(*args)
            except ContentError as error:
                self.add(error, of_an_item=True)
                skipped.append(len(read) + len(skipped) + 1)
                continue
            if item is not None:
                read.append(item)
        return read, skipped

    def raise_if_any(self, documents=None, warnings=()):
        """Raise what was found, if anything: SkippedItems when every problem is an item's and
        `documents` (what was read) hold some items, else ContentErrors with every problem."""
        if not self.found:
            return
        # By file, in the order files were first named, then by line: as an editor lists them.
        files = list(dict.fromkeys(problem.file for problem in self.found))
        ordered = sorted(self.found, key=lambda problem: (files.index(problem.file), problem.line or 0))
        if documents is not None and not self.of_the_file and any(document.items for document in documents):
            raise SkippedItems(ordered, self.more, documents, warnings)
        raise ContentErrors(ordered, self.more)


@dataclass
class ParsedQuestion:
    key: str
    stem: str
    explanation: str
    choices: list  # of (text, is_correct) or (text, is_correct, weight: a Decimal, or None)
    line: int
    topics: list | None = None  # None: the source names no topics, so the row keeps its own
    kind: str = QuestionKind.SINGLE
    partial_credit: bool = False  # select all that apply: credit from the choices' weights
    case_sensitive: bool = False  # short answer: letter case matters
    markup: str = "plain"  # how its texts are written: plain, markdown or html (models.Markup)


def check_question_kind(question, file, what=None):
    """Refuse choices that do not fit the question's kind (one right answer for a single-answer
    question, N of them for choose N, ...): the rule every format and the editor share."""
    problem = kind_problem(question.kind, question.choices, partial_credit=question.partial_credit)
    if problem:
        raise ContentError(file, question.line, f"{what or 'the question'}: {problem}")
    return question


def parse_weight(text, file, line, what):
    """A choice's weight written as a percentage ("50", "-33.33333") as a Decimal share (0.5)."""
    try:
        percent = Decimal(text.strip())
    except InvalidOperation:
        raise ContentError(file, line, f"{what}: the weight {shorten(text)!r} is not a number") from None
    if not percent.is_finite() or not -100 <= percent <= 100:
        raise ContentError(file, line, f"{what}: a weight is a percentage from -100 to 100, not {shorten(text)!r}")
    return (percent / 100).quantize(Decimal("0.0000001"))


def percents(choices):
    """Each exported choice's weight as a percentage text: its own ("weight", a percentage in
    export.py's data), or the default +100/k for a right one and -100/k for a wrong one."""
    defaults = weights_of([{"correct": choice["correct"], "weight": None} for choice in choices])
    return [
        weight_text(Decimal(str(choice["weight"])) / 100) if choice.get("weight") is not None else weight_text(default)
        for choice, default in zip(choices, defaults)
    ]


def weight_text(weight):
    """A share (Decimal("0.5"), or a Fraction) as the percentage a file writes ("50", "-33.333")."""
    if isinstance(weight, Fraction):
        weight = Decimal(weight.numerator) / Decimal(weight.denominator)
    text = f"{Decimal(weight).quantize(Decimal('0.0000001')) * 100:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


@dataclass
class ParsedMedia:
    """A file a document carries (a Moodle XML <file>, an Anki package's media): items' texts refer
    to it as `media:<file_name>`, which saving rewrites to the stored image's own name."""

    file_name: str
    data: bytes
    line: int
    alt: str = ""


@dataclass
class ParsedCard:
    key: str
    front: str
    back: str
    misconception: str
    correction: str
    line: int
    topics: list | None = None  # as ParsedQuestion.topics
    markup: str = "plain"  # as ParsedQuestion.markup
    cloze: int | None = None  # a cloze card: the number it asks ({{cN::...}} in `front`)


@dataclass
class ParsedDocument:
    """One question set or deck, ready to save. `file` is the path as the user gave it."""

    file: str
    kind: str  # SourceDocument.Kind
    title: str
    file_name: str | None  # None: a set from an export file that had no source document
    checksum: str
    items: list
    # A text document's checksum is of its own bytes; a set from an export file only has a
    # checksum of its JSON entry, which must not overwrite the text checksum while unchanged.
    checksum_of_source: bool = True
    # An export file's keys are the rows' identities; a text document's (`q3`, `c2`) only
    # number its items, so its items are matched by text and position instead.
    keys_are_identities: bool = False
    # Images the document carries (ParsedMedia), saved with the set or deck (quiz.content.media).
    media: list = field(default_factory=list)
    # The places (from 1, among the source's items) of items left out for a problem of their own
    # (SkippedItems): the items read keep their own places, and saving removes no row, since
    # any row no item claims may be the one a skipped item would have updated.
    skipped: list = field(default_factory=list)

    def positions(self):
        """Each item's place in the set or deck: its place in the source, the skipped items counted."""
        skipped, positions, place = set(self.skipped), [], 0
        for _ in self.items:
            place += 1
            while place in skipped:
                place += 1
            positions.append(place)
        return positions


def check_title(title, file, line):
    if len(title) > MAX_TITLE:
        raise ContentError(file, line, f"title is longer than {MAX_TITLE} characters")
    return title


def check_item_count(documents):
    for document in documents:
        if len(document.items) > MAX_ITEMS:
            noun = "questions" if document.kind == SourceDocument.Kind.QUIZ else "cards"
            message = f"{len(document.items)} {noun} in one set or deck; at most {MAX_ITEMS} can be imported at once"
            raise ContentError(document.file, None, message)
    return documents


def check_choices(choices, file, line, what):
    """Refuse a choice without text or two with one text: re-imports match choices by their
    text, and a learner could not tell two identical choices apart. `choices` are (text, right)."""
    first_seen = set()
    for text, *_ in choices:
        if not text:
            raise ContentError(file, line, f"{what}: a choice has no text")
        check_text(text, file, line, f"a choice of {what}")
        if text in first_seen:
            raise ContentError(file, line, f"{what}: the choice {shorten(text)!r} appears twice")
        first_seen.add(text)
    return choices


def title_from_file_name(file):
    """The title of a document whose format has no title of its own: its file name, without
    the extension and with underscores read as spaces ("networking_basics.csv")."""
    name = Path(file).stem.replace("_", " ").strip() or Path(file).name
    return check_title(name, file, None)


def check_text(text, file, line, what):
    if len(text) > MAX_TEXT:
        raise ContentError(file, line, f"{what} is longer than {MAX_TEXT} characters (a missing blank line?)")
    return text


def source_file_name(file):
    """The name a text document is recorded under: its base name, which must fit and be storable."""
    name = Path(file).name
    if len(name) > MAX_FILE_NAME:
        raise ContentError(file, None, f"file name is longer than {MAX_FILE_NAME} characters")
    if UNSTORABLE.search(name):
        raise ContentError(file, None, "file name is not valid UTF-8; rename the file")
    return name


def topic_names(text, file, line):
    """The names of a `Topics: a, b` line: trimmed, blanks dropped, repeats collapsed, in order."""
    names = []
    for name in (part.strip() for part in text.split(",")):
        check_topic(name, file, line)
        if name and name not in names:
            names.append(name)
    return names


def check_topic(name, file, line):
    if len(name) > MAX_TOPIC:
        raise ContentError(file, line, f"the topic {shorten(name)!r} is longer than {MAX_TOPIC} characters")
    return name


def shorten(text):
    """The text, cut to fit in a one-line message."""
    return text if len(text) <= 60 else text[:57] + "..."


# Writing ------------------------------------------------------------------------------------


class ExportError(Exception):
    """Content a format cannot write so that its parser reads it back as it is; `str()` says
    which item and why, and which format can hold it instead."""


def document_markup(lines):
    """(markup, lines) of a quiz or deck document: a first non-blank line `Format: markdown`,
    `Format: html` or `Format: plain` says how every text of it is written, and is blanked (so
    line numbers stay the file's); without one, plain text, as documents always were. Only the
    first line counts, and only those exact words: a line of a plain document that happens to
    read like it further down (a card about file formats) changes nothing."""
    first = next((index for index, line in enumerate(lines) if line.strip()), None)
    if first is None or not (match := FORMAT_LINE.match(lines[first])):
        return "plain", lines
    return match.group(1).lower(), [*lines[:first], "", *lines[first + 1 :]]


def format_line(items, where, noun):
    """The `Format:` line a quiz or deck document of `items` (export.py's plain data) starts
    with, or None for plain text; ExportError when the items' markups differ, since the
    document has one."""
    markups = {item.get("markup", "plain") for item in items}
    if len(markups) > 1:
        first = items[0].get("markup", "plain")
        other = next(number for number, item in enumerate(items, start=1) if item.get("markup", "plain") != first)
        raise ExportError(f"{noun} {other} of {where} is written in {items[other - 1].get('markup', 'plain')} and "
                          f"{noun} 1 in {first}, and a document has one format; export as JSON")
    markup = markups.pop() if markups else "plain"
    return None if markup == "plain" else f"{FORMAT_PREFIX} {markup}"


def plain_lines(text):
    """The text's lines, with CR or CRLF read as LF as every parser reads them (decode())."""
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def one_line(text):
    """The text on one line, for the formats whose fields are a line: line breaks become spaces."""
    return " ".join(line.strip() for line in plain_lines(text) if line.strip())


def topics_text(names, where):
    """`a, b` for a `Topics:` line or a topics cell, which are split at commas."""
    if with_comma := next((name for name in names if "," in name), None):
        raise ExportError(f"{where}: the topic {shorten(with_comma)!r} contains a comma, which this format "
                          "reads as two topics; export as JSON instead")
    return ", ".join(names)


def export_file_name(title, extension):
    """A file name that reads back as the title: the formats without a title of their own take it
    from the file name (title_from_file_name), spaces written as underscores."""
    name = re.sub(r"[\x00-\x1f\x7f/\\]", "-", "_".join(title.split(" ")))
    return f"{name[:MAX_FILE_NAME - len(extension) - 1]}.{extension}"
