"""Anki's plain-text export (File > Export > Notes in Plain Text): one note per row.

    #separator:tab
    #html:true
    #tags column:3
    What does TCP guarantee?<br>(one word)	<b>Reliability</b>	networking tcp

Header lines `#key:value` come first, as Anki writes and reads them
(rslib/src/import_export/text/csv/metadata.rs): `separator` (tab, pipe, semicolon, colon,
comma, space or the character itself; without one, guessed from the first row), `html`
(true: fields are HTML, kept as written and rendered as HTML when shown, sanitised: the cards'
markup is html; without the header, guessed from the fields),
`tags` (tags of every note), `columns` (labels; a `Front` and a `Back` label pick those
columns), and the 1-based `tags column`, `guid column`, `notetype column` and `deck column`.
Other headers are ignored. The first two other columns are the card's front and back; more
fields (a note type with more than two) are ignored with a warning. Tags, separated by
spaces, become topics. With a `guid column`, the guid is the card's identity, so a card whose
front was edited in Anki still updates its row. Anki cards have no misconception: they are
studied, never drilled as "Myth or fact?". Pure: no database.

A note whose first field has cloze deletions (`{{c1::...}}`, Anki's Cloze note: Text, then
Back Extra, which may be empty) is one card per number (cloze.py), keyed `KEY-cN`, as in deck
documents and CSV files. The deletions decide, not the note type's name: a collection names
its note types as it likes (and in its own language), and Anki's Basic shows no deletion.
"""

import csv
import html
import io
import re

from ..models import Markup, SourceDocument
from .cloze import cloze_notes, cloze_numbers, expand_cloze_items
from .documents import (
    MAX_KEY,
    ContentError,
    ExportError,
    ParsedCard,
    ParsedDocument,
    Problems,
    check_text,
    check_topic,
    one_line,
    plain_lines,
    shorten,
    source_file_name,
    title_from_file_name,
)
from .html_text import html_to_text, looks_like_html
from .tabular_format import read_rows

HEADER_LINE = re.compile(r"^#([^:]+):(.*)$")
KNOWN_HEADERS = {
    "separator", "html", "tags", "columns", "notetype", "deck", "notetype column", "deck column", "tags column",
    "guid column", "match scope", "if matches",
}
SEPARATORS = {"tab": "\t", "pipe": "|", "semicolon": ";", "colon": ":", "comma": ",", "space": " "}
COLUMN_HEADERS = ("tags column", "guid column", "notetype column", "deck column")


def looks_like_anki(lines):
    """A first line that is one of Anki's `#key:value` headers."""
    match = HEADER_LINE.match(lines[0].strip()) if lines else None
    return bool(match) and match.group(1).strip().lower() in KNOWN_HEADERS


def parse_anki(text, file, checksum):
    """([ParsedDocument], [warning, ...]) for an Anki text export, or raise ContentError
    (ContentErrors with every broken note; SkippedItems when only notes are broken and others
    were read). A row the csv reader cannot read or a repeated guid refuses the file."""
    lines = text.split("\n")
    headers = _headers(lines)
    header_count = len(headers)
    separator = _separator(headers, lines[header_count:], file)
    # A broken row is skipped and the next one read: notes stand on their own.
    problems = Problems()
    rows = list(read_rows(lines, header_count, separator, file, problems))
    if not rows:
        problems.raise_if_any()
        raise ContentError(file, header_count or 1, "no notes after the header lines")
    notes = _Notes(headers, separator, rows, file)
    cards, skipped = problems.items(notes.card, [(line, row, number) for number, (line, row) in enumerate(rows, start=1)])
    _refuse_repeated_guids(cards, file, problems)
    cards, skipped = expand_cloze_items(cards, file, skipped)
    title, name = problems.collect(title_from_file_name, file), problems.collect(source_file_name, file)
    document = ParsedDocument(
        file, SourceDocument.Kind.DECK, title, name, checksum, cards, keys_are_identities=notes.guid is not None,
        skipped=skipped,
    )
    problems.raise_if_any([document], notes.warnings)
    return [document], notes.warnings


def _headers(lines):
    """{key: (value, line number)} of the `#key:value` lines at the top of the file."""
    headers = {}
    for number, line in enumerate(lines, start=1):
        match = HEADER_LINE.match(line)
        if not match:
            break
        headers[match.group(1).strip().lower()] = (match.group(2).strip(), number)
    return headers


def _word(value):
    # Anki trims what follows the first word, for a header line exported as a row ("#html:true,,").
    return re.match(r"[^\W_]*", value).group().lower()


def _separator(headers, rows, file):
    if "separator" not in headers:
        first = next((line for line in rows if line.strip()), "")
        return next((char for char in ("\t", "|", ";", ",", ":") if char in first), "\t")
    value, line = headers["separator"]
    if len(value) >= 1 and not value[0].isalnum() and value[0] not in "\"'":
        return value[0]
    if _word(value) in SEPARATORS:
        return SEPARATORS[_word(value)]
    raise ContentError(file, line, f"unknown separator {value!r}; expected one of {', '.join(SEPARATORS)}")


def _column_number(headers, key, file):
    if key not in headers:
        return None
    value, line = headers[key]
    if not (value.strip().isascii() and value.strip().isdigit()) or int(value) < 1:
        raise ContentError(file, line, f"#{key} must be a column number from 1")
    return int(value)


class _Notes:
    """What the headers say about every row; builds each row's card."""

    def __init__(self, headers, separator, rows, file):
        self.file, self.warnings, self.warned_extra = file, [], False
        columns = {key: _column_number(headers, key, file) for key in COLUMN_HEADERS}
        self.tags, self.guid = columns["tags column"], columns["guid column"]
        self.meta = {number for number in columns.values() if number}
        self.front_back = self._front_back(headers, separator)
        self.global_tags = headers["tags"][0].split() if "tags" in headers else None
        if "html" in headers:
            self.is_html = _word(headers["html"][0]) == "true"
        else:
            self.is_html = any(looks_like_html(cell) for _, row in rows[:10] for cell in row)

    def _front_back(self, headers, separator):
        """The 1-based columns of the front and the back, if `#columns:` labels name them."""
        if "columns" not in headers:
            return None
        labels = [label.strip().lower() for label in headers["columns"][0].split(separator)]
        if "front" in labels and "back" in labels:
            return labels.index("front") + 1, labels.index("back") + 1
        return None

    def card(self, line, row, number):
        front_field, back_field = self._fields(row, line)[:2]
        front = self._text(front_field, line, "front")
        # A cloze note's Back Extra may be empty: its cards' answers are in the text.
        back = self._text(back_field, line, "back", required=not cloze_numbers(front))
        key = f"c{number}"
        if self.guid:
            key = _cell(row, self.guid).strip()
            if not key or len(key) > MAX_KEY:
                raise ContentError(self.file, line, f"the guid must have 1 to {MAX_KEY} characters")
        return ParsedCard(key, front, back, "", "", line, self._topics(row, line),
                          markup=Markup.HTML if self.is_html else Markup.PLAIN)

    def _fields(self, row, line):
        if self.front_back:
            return [_cell(row, number) for number in self.front_back]
        fields = [cell for number, cell in enumerate(row, start=1) if number not in self.meta]
        if len(fields) > 2 and not self.warned_extra:
            self.warned_extra = True
            self.warnings.append(f"{self.file}:{line}: notes have {len(fields)} fields; only the first two "
                                 "(front and back) are imported")
        return fields + [""] * (2 - len(fields))

    def _text(self, field, line, name, required=True):
        """The field as written (HTML stays HTML); empty when it shows no words (`<br>` alone)."""
        text = field.strip()
        if not (html_to_text(text) if self.is_html else text):
            if required:
                raise ContentError(self.file, line, f"the {name} is empty")
            return ""
        return check_text(text, self.file, line, f"the {name}")

    def _topics(self, row, line):
        if self.tags is None and self.global_tags is None:
            return None
        names = (self.global_tags or []) + (_cell(row, self.tags).split() if self.tags else [])
        return [check_topic(name, self.file, line) for name in dict.fromkeys(names)]


def _cell(row, number):
    return row[number - 1] if number <= len(row) else ""


def _refuse_repeated_guids(cards, file, problems):
    first_seen = {}
    for card in cards:
        if card.key in first_seen:
            problems.add(ContentError(file, card.line, f"the guid {card.key!r} is also on line {first_seen[card.key]}"))
        first_seen.setdefault(card.key, card.line)


def write_anki(deck):
    """An Anki plain-text file of a deck (export.py's plain data) that parse_anki reads back as
    it is, and Anki imports as Basic notes (and Cloze notes) into a deck of the same title.

    Fields are plain text (`#html:false`), or HTML (`#html:true`) when a card is written in
    HTML: then the plain cards are written as HTML too (escaped, line breaks as <br>), since
    the header is the whole file's, and read back as HTML cards showing the same words. Anki
    has no Markdown: a Markdown card raises ExportError. Fields are quoted where they hold a
    tab, a quote or a line break. Topics are tags, which cannot hold spaces: a space becomes
    `_`, Anki's habit. No guid column: the card keys (`c1`, `c2`) are unique in one deck but
    not in an Anki collection, where a guid names one note, so cards are matched by text as in
    CSV. Anki notes have no misconception or correction: they are left out.

    A deck with cloze cards is written as Anki writes notes of several types: a notetype
    column first (`#notetype column:1`), `Basic` (Front, Back) or `Cloze` (Text, Back Extra)
    on each row, and each cloze note once, its text with its markers, since reading it back
    (here or in Anki) makes its cards again, one per number. A deck without any keeps the one
    `#notetype:Basic` header."""
    cards = deck["cards"]
    if markdown := next((card for card in cards if card.get("markup") == Markup.MARKDOWN), None):
        raise ExportError(f"the card {shorten(one_line(markdown['front']))!r} is written in Markdown, which Anki does "
                          "not read; export as JSON, CSV or a deck document")
    is_html = any(card.get("markup") == Markup.HTML for card in cards)
    has_cloze = any(card.get("cloze") is not None for card in cards)
    notetype = ["notetype column:1"] if has_cloze else ["notetype:Basic"]
    headers = ["separator:tab", f"html:{str(is_html).lower()}", *notetype, f"deck:{one_line(deck['title'])}",
               f"tags column:{4 if has_cloze else 3}"]
    out = io.StringIO()
    out.writelines(f"#{header}\n" for header in headers)
    plain, quoted = (csv.writer(out, delimiter="\t", lineterminator="\n", quoting=how)
                     for how in (csv.QUOTE_MINIMAL, csv.QUOTE_ALL))
    for card in cloze_notes(cards):
        front, back = (_field(card, part, is_html) for part in ("front", "back"))
        tags = " ".join(dict.fromkeys("_".join(topic.split()) for topic in card.get("topics") or []))
        row = [front, back, tags]
        if has_cloze:
            row.insert(0, "Basic" if card.get("cloze") is None else "Cloze")
        # A first cell starting with `#` would read as one more `#key:value` header line.
        (quoted if row[0].startswith("#") else plain).writerow(row)
    return out.getvalue()


def _field(card, part, is_html):
    text = "\n".join(plain_lines(card[part])).strip()
    if is_html and card.get("markup", Markup.PLAIN) == Markup.PLAIN:
        return html.escape(text, quote=False).replace("\n", "<br>")
    return text
