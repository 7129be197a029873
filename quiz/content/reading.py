"""Reading one document: its bytes, decoded, recognised by content and handed to its parser.

The format is told by content, never by file name: an export file starts with `{`, a quiz
has a `Question N:` line followed by a `- choice` line, anything else is a flashcard deck.
Apart from reading the file, nothing here has side effects; there is no database access.
"""

import codecs
import hashlib
import itertools
from pathlib import Path

from .deck_format import parse_deck
from .documents import ContentError
from .json_format import parse_export
from .quiz_format import CHOICE_LINE, QUESTION_LINE, parse_quiz


def read_document(path):
    """Return ([ParsedDocument, ...], [warning, ...]) for one file, or raise ContentError."""
    file = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise ContentError(file, None, f"cannot read file: {error.strerror or error}") from error
    return parse_document(data, file)


def parse_document(data, file):
    """As read_document, from a document's bytes; `file` names it in warnings and errors."""
    text = decode(data, file)
    if not text.strip():
        raise ContentError(file, 1, "file is empty")
    if text.lstrip().startswith("{"):
        return parse_export(text, file), []
    lines = text.split("\n")
    refuse_if_cut_off(text, lines, file)
    checksum = hashlib.sha256(data).hexdigest()
    if looks_like_quiz(lines):
        return parse_quiz(lines, file, checksum)
    return [parse_deck(lines, file, checksum)], []


# How a complete text ends: a sentence, a quotation, a bracket or a list of items.
FINISHED_ENDINGS = tuple(".!?…:;)]}\"'”’»`*")


def refuse_if_cut_off(text, lines, file):
    """A document that stops in mid-sentence with no final line break looks like a file cut
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
    """A `Question N:` line whose next non-blank line is a `- choice` line.

    A `Question N:` line alone is not enough: a flashcard may well start with one, and its
    next paragraph is an answer, not a list of choices.
    """
    stripped = [line.strip() for line in lines if line.strip()]
    return any(
        QUESTION_LINE.match(line) and CHOICE_LINE.match(following) for line, following in itertools.pairwise(stripped)
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
