"""Reading one document: its bytes, decoded, recognised by content and handed to its parser.

The format is told by content, never by file name (unless the caller names it): an export
file starts with `{` and a Moodle XML file with `<?xml` (or its `<quiz>` root); a quiz has
a `Question N:` line followed by a `- choice` line; an Anki
export starts with `#separator:`-style header lines; a GIFT file has `::name::`,
`$CATEGORY:` or a paragraph ending in an answer block `{...}`; an Aiken file has an
`ANSWER: X` line after `A. ...` choice lines; a CSV/TSV file's first line is a header naming
known columns; anything else is a flashcard deck. An Anki package (.apkg, .colpkg) is a zip file,
told by its bytes before any text is decoded. Apart from reading the file, nothing here
has side effects; there is no database access.
"""

import codecs
import hashlib
from pathlib import Path

from .aiken_format import looks_like_aiken, parse_aiken
from .anki_format import looks_like_anki, parse_anki
from .apkg_format import looks_like_package, parse_package
from .deck_format import parse_deck
from .documents import ContentError, Problems, SkippedItems, check_item_count, file_too_large
from .gift_format import looks_like_gift, parse_gift
from .json_format import parse_export
from .media import check_media
from .moodle_xml_format import looks_like_moodle_xml, parse_moodle_xml
from .quiz_format import CHOICE_LINE, KIND_LINE, QUESTION_LINE, parse_quiz
from .tabular_format import looks_like_table, parse_table


def read_document(path, format=None):
    """Return ([ParsedDocument, ...], [warning, ...]) for one file, or raise ContentError.

    `format` (one of FORMATS) skips recognising the format by content."""
    file = str(path)
    try:
        with open(path, "rb") as opened:
            if too_large := file_too_large(file, Path(path).stat().st_size, opened.read(4), format):
                raise too_large
        data = Path(path).read_bytes()
    except OSError as error:
        raise ContentError(file, None, f"cannot read file: {error.strerror or error}") from error
    return parse_document(data, file, format)


def parse_document(data, file, format=None):
    """As read_document, from a document's bytes; `file` names it in warnings and errors. Raises
    SkippedItems (a ContentError) when only items that stand on their own are wrong."""
    if too_large := file_too_large(file, len(data), data[:4], format):
        raise too_large
    if format is not None and format not in FORMATS:
        raise ContentError(file, None, f"unknown format {format!r}; expected one of {', '.join(FORMATS)}")
    if format == "apkg" or (format is None and looks_like_package(data)):
        format, text = "apkg", data  # a package is read from its bytes, never decoded as text
    elif not (text := decode(data, file)).strip():
        raise ContentError(file, 1, "file is empty")
    parse = FORMATS[format or recognise(text)]
    problems = Problems()
    try:
        documents, warnings = parse(text, file, hashlib.sha256(data).hexdigest())
    except SkippedItems as skipped:
        check_item_count(skipped.documents)  # too many items is the file's problem, skipped or not
        if not any(document.media for document in skipped.documents):
            raise
        problems.add(skipped, of_an_item=True)
        documents, warnings = skipped.documents, skipped.warnings
    # An item that shows a bad image is a bad item, skipped as the parsers skip theirs.
    warnings = [*warnings, *check_media(documents, problems)]
    problems.raise_if_any(documents, warnings)
    return check_item_count(documents), warnings


def recognise(text):
    """The name of the format of a decoded document, told by its content."""
    if text.lstrip().startswith("{"):
        return "json"
    if looks_like_moodle_xml(text):
        return "moodle"
    lines = text.split("\n")
    if looks_like_quiz(lines):
        return "quiz"
    if looks_like_anki(lines):
        return "anki"
    if looks_like_gift(text):
        return "gift"
    if looks_like_aiken(lines):
        return "aiken"
    if looks_like_table(lines):
        return "csv"
    return "deck"


def _quiz(text, file, checksum):
    lines = text.split("\n")
    refuse_if_cut_off(text, lines, file)
    return parse_quiz(lines, file, checksum)


def _deck(text, file, checksum):
    lines = text.split("\n")
    refuse_if_cut_off(text, lines, file)
    return [parse_deck(lines, file, checksum)], []


def _export(text, file, checksum):
    return parse_export(text, file), []


# Each parser takes (text, file, checksum of the bytes) and returns ([ParsedDocument], [warning]).
FORMATS = {
    "quiz": _quiz,
    "deck": _deck,
    "json": _export,
    "gift": parse_gift,
    "aiken": parse_aiken,
    "csv": parse_table,
    "anki": parse_anki,
    "apkg": parse_package,  # given the bytes, not text (parse_document)
    "moodle": parse_moodle_xml,
}


# How a complete text ends: a sentence, a quotation, a bracket or a list of items.
FINISHED_ENDINGS = tuple(".!?…:;)]}\"'”’»`*")


def refuse_if_cut_off(text, lines, file):
    """For the two prose formats (quiz and deck): a document that stops in mid-sentence with no final line break looks like a file cut
    off in a copy or a download: its last card or question would be saved half-written (a
    deck cut inside its last paragraph still has four paragraphs a card). An author whose
    document really ends that way ends it with a line break."""
    if text.endswith("\n") or text.rstrip().endswith(FINISHED_ENDINGS) or text.rstrip()[-1:].isdigit():
        return
    last = max(number for number, line in enumerate(lines, start=1) if line.strip())
    raise ContentError(
        file, last, "the document stops in mid-sentence with no final line break, as a file cut off in a copy "
        "does; if it is complete, end it with a line break"
    )


def looks_like_quiz(lines):
    """A `Question N:` line whose next non-blank line is a `- choice` line, or a `Kind:` line
    and then a `- choice` line.

    A `Question N:` line alone is not enough: a flashcard may well start with one, and its
    next paragraph is an answer, not a list of choices.
    """
    stripped = [line.strip() for line in lines if line.strip()]
    return any(
        QUESTION_LINE.match(line) and (CHOICE_LINE.match(following) or (KIND_LINE.match(following) and CHOICE_LINE.match(after)))
        for line, following, after in zip(stripped, stripped[1:], [*stripped[2:], ""])
    )


def decode(data, file):
    """UTF-8 text with the BOM removed and CRLF (or a lone CR) turned into LF."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ContentError(file, line, f"not UTF-8 text (byte 0x{data[error.start]:02x}); save it as UTF-8") from error
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise ContentError(file, line, "contains a NUL character (is it UTF-16 or binary?); save it as UTF-8 text")
    return text


def decode_for_display(data):
    """A file's text as decode() reads it, but never refused: for showing lines beside an error."""
    text = data.removeprefix(codecs.BOM_UTF8).decode("utf-8", "replace")
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")
