"""The flashcard deck format: blank-line separated paragraphs in plain text.

A title paragraph, then paragraphs in groups of four (question, answer, misconception,
correction); a question paragraph may start with a `Topics: a, b` line. The n-th card gets
the key `cn`, so re-importing an edited deck updates its cards in place. A first line
`Format: markdown` (or `Format: html`) says every text of the deck is written in it
(documents.document_markup); without it, plain text. Pure: no database.
"""

from ..models import SourceDocument
from .cloze import cloze_notes, expand_cloze_items
from .documents import (
    CARD_PARTS,
    FORMAT_LINE,
    FORMAT_PREFIX,
    TOPICS_LINE,
    TOPICS_PREFIX,
    ContentError,
    ExportError,
    ParsedCard,
    ParsedDocument,
    Problems,
    check_text,
    check_title,
    document_markup,
    format_line,
    one_line,
    plain_lines,
    shorten,
    source_file_name,
    topic_names,
    topics_text,
)


def parse_deck(lines, file, checksum):
    """The ParsedDocument for the lines of a deck document, or raise ContentError (ContentErrors
    with every broken card: each is skipped and the next one read)."""
    markup, lines = document_markup(lines)
    paragraphs = _paragraphs(lines)
    if not paragraphs:
        raise ContentError(file, 1, f"nothing after the '{FORMAT_PREFIX}' line: expected the deck's title")
    title_line, title = paragraphs[0]
    title = " ".join(title.split("\n"))
    rest = paragraphs[1:]
    if not rest:
        raise ContentError(file, title_line, "no cards: expected paragraphs in groups of four after the title")
    # Checked before the count of paragraphs: a Topics line set apart by a blank line shifts
    # every later card by one paragraph, and this is the message that says where. Every such
    # line is reported, but no card after one: they would all be read a paragraph off.
    problems = Problems()
    for number, text in rest:
        if "\n" not in text and TOPICS_LINE.match(text):
            problems.add(ContentError(
                file,
                number,
                f"a '{TOPICS_PREFIX}' line must be the first line of a card's question paragraph, "
                "with the question on the next line (no blank line between them)",
            ))
    problems.raise_if_any()
    complete = len(rest) - len(rest) % len(CARD_PARTS)
    if complete < len(rest):
        raise ContentError(
            file,
            rest[complete][0],
            f"card {complete // 4 + 1} is incomplete: {len(rest) - complete} paragraph(s) left, each card needs 4 "
            "(question, answer, misconception, correction)",
        )
    groups = [rest[start : start + len(CARD_PARTS)] for start in range(0, complete, len(CARD_PARTS))]
    cards = problems.each(_parse_card, [(file, number, group) for number, group in enumerate(groups, start=1)])
    for card in cards:
        card.markup = markup
    cards, _ = expand_cloze_items(cards, file)
    title = problems.collect(check_title, title, file, title_line)
    name = problems.collect(source_file_name, file)
    problems.raise_if_any()
    return ParsedDocument(file, SourceDocument.Kind.DECK, title, name, checksum, cards)


def _parse_card(file, number, paragraphs):
    for line, text in paragraphs:
        check_text(text, file, line, "a paragraph")
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


def write_deck(deck):
    """A deck document of a deck (export.py's plain data) that parse_deck reads back as it is.

    A text is a paragraph: its line breaks are kept, but a blank line inside it would end it,
    so blank lines become single line breaks. What the format cannot hold at all (an empty
    part, a topic with a comma, a text that reads as a `Topics:` line, cards in different
    markups) raises ExportError. Markdown or HTML cards start the document with a `Format:` line."""
    title = one_line(deck["title"])
    header = format_line(deck["cards"], repr(shorten(title)), "card")
    # A plain deck whose title reads like the header says so first, or the title would be taken for it.
    header = header or (f"{FORMAT_PREFIX} plain" if FORMAT_LINE.match(title) else None)
    paragraphs = [header, title] if header else [title]
    for number, card in enumerate(cloze_notes(deck["cards"]), start=1):
        paragraphs += _card_paragraphs(number, card)
    return "\n\n".join(paragraphs) + "\n"


def _card_paragraphs(number, card):
    where = f"card {number} ({shorten(one_line(card['front']))!r})"
    texts = [_paragraph(card[part]) for part in CARD_PARTS]
    for part, text in zip(CARD_PARTS, texts):
        if not text:
            raise ExportError(f"{where} has no {part}, and a deck document needs all four paragraphs; "
                              "export as JSON or CSV")
        # The parser takes a front's first `Topics:` line as its topics, and refuses another
        # paragraph that is a `Topics:` line alone.
        if TOPICS_LINE.match(text.partition("\n")[0]) and (part == "front" or "\n" not in text):
            raise ExportError(f"{where}: its {part} starts like a '{TOPICS_PREFIX}' line")
    if card.get("topics"):
        texts[0] = f"{TOPICS_PREFIX} {topics_text(card['topics'], where)}\n{texts[0]}"
    return texts


def _paragraph(text):
    """The text as _paragraphs() reads it back: lines without trailing spaces, no blank line."""
    return "\n".join(line.rstrip() for line in plain_lines(text) if line.strip()).strip()
