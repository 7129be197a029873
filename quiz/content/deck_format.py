"""The flashcard deck format: blank-line separated paragraphs in plain text.

A title paragraph, then paragraphs in groups of four (question, answer, misconception,
correction); a question paragraph may start with a `Topics: a, b` line. The n-th card gets
the key `cn`, so re-importing an edited deck updates its cards in place. Pure: no database.
"""

from ..models import SourceDocument
from .documents import (
    CARD_PARTS,
    TOPICS_LINE,
    TOPICS_PREFIX,
    ContentError,
    ParsedCard,
    ParsedDocument,
    check_text,
    check_title,
    source_file_name,
    topic_names,
)


def parse_deck(lines, file, checksum):
    """The ParsedDocument for the lines of a deck document, or raise ContentError."""
    paragraphs = _paragraphs(lines)
    title_line, title = paragraphs[0]
    title = " ".join(title.split("\n"))
    rest = paragraphs[1:]
    if not rest:
        raise ContentError(file, title_line, "no cards: expected paragraphs in groups of four after the title")
    # Checked before the count of paragraphs: a Topics line set apart by a blank line shifts
    # every later card by one paragraph, and this is the message that says where.
    for number, text in rest:
        if "\n" not in text and TOPICS_LINE.match(text):
            raise ContentError(
                file,
                number,
                f"a '{TOPICS_PREFIX}' line must be the first line of a card's question paragraph, "
                "with the question on the next line (no blank line between them)",
            )
    complete = len(rest) - len(rest) % len(CARD_PARTS)
    if complete < len(rest):
        raise ContentError(
            file,
            rest[complete][0],
            f"card {complete // 4 + 1} is incomplete: {len(rest) - complete} paragraph(s) left, each card needs 4 "
            "(question, answer, misconception, correction)",
        )
    for number, text in rest:
        check_text(text, file, number, "a paragraph")
    cards = [
        _parse_card(file, number, rest[start : start + 4])
        for number, start in enumerate(range(0, complete, len(CARD_PARTS)), start=1)
    ]
    return ParsedDocument(
        file, SourceDocument.Kind.DECK, check_title(title, file, title_line), source_file_name(file), checksum, cards
    )


def _parse_card(file, number, paragraphs):
    (line, front), *others = paragraphs
    topics = None
    first, _, question = front.partition("\n")
    if match := TOPICS_LINE.match(first):
        topics = topic_names(match.group(1), file, line)
        front = question.strip()
        if TOPICS_LINE.match(front.partition("\n")[0]):
            raise ContentError(file, line + 1, f"card {number} has a second '{TOPICS_PREFIX}' line")
    return ParsedCard(f"c{number}", front, *(text for _, text in others), line=line, topics=topics)


def _paragraphs(lines):
    """[(first line number, text), ...]: runs of non-blank lines, lines joined with LF."""
    paragraphs, current, start = [], [], None
    for number, line in enumerate(lines + [""], start=1):
        if line.strip():
            start = start or number
            current.append(line.rstrip())
        elif current:
            paragraphs.append((start, "\n".join(current).strip()))
            current, start = [], None
    return paragraphs
