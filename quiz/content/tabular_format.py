"""Spreadsheets saved as CSV or TSV: one question or one card per row, under a header row.

    stem,choices,answer,explanation,topics
    Which layer routes packets?,Transport|Network|Link,B,Routing is layer 3.,"OSI, Routing"

    front;back;misconception;correction
    What does TCP guarantee?;Ordered, reliable delivery.;That it is fast.;It trades speed for reliability.

The delimiter (comma, tab or semicolon) is the one that makes the header name the most known
columns; header names are read in any letter case, with a few synonyms. A table of questions
has choices: a `choices` column split at `|`, or columns `choice1`..`choiceN` (`option1`..)
or `a`, `b`, `c`, `d`; its `answer` is the right choice's letter, number or text, or several
of them separated by commas (`A,C`). An optional `kind` column says what kind each question
is: `single` (the default with one answer), `choose` (the default with several: "Choose
two."), `select_all`, `select_all_partial` (select all that apply with partial credit, +1/k
for each right pick and -1/k for each wrong one) or `true_false` (choices True and False).
The kinds without choices to pick, `short_answer`, `short_answer_case_sensitive`, `numerical`,
`matching` and `matching_partial`, hold their answers in the `answer` cell, separated by `|`
(`NVLink|NV* (50%)`, `3.14 ± 0.01`, `TCP -> Transport|IP -> Network|-> Physical`: see
answer_text.py), and their choice cells stay empty. A table of
cards has `front` and `back`, and optionally `misconception` and `correction` (both or
neither: a card without them is studied but never drilled as "Myth or fact?"). `topics`
(comma-separated) and `markup` (how the row's texts are written: `plain`, the default when
empty, `markdown` or `html`) are optional in both. Unknown columns are ignored with a warning.
Parsed with the csv module, quotes as a spreadsheet writes them. Pure: no database.
"""

import csv
import io
import re

from ..models import Markup, SourceDocument
from ..models.kinds import TYPED, QuestionKind
from .answer_text import accepted_answer, accepted_text, pair, pair_text, split_credit
from .cloze import cloze_notes, expand_cloze_items
from .documents import (
    ContentError,
    ExportError,
    ParsedCard,
    ParsedDocument,
    ParsedQuestion,
    Problems,
    check_choices,
    check_question_kind,
    check_text,
    one_line,
    plain_lines,
    shorten,
    source_file_name,
    title_from_file_name,
    topic_names,
    topics_text,
)

DELIMITERS = {",": "comma", "\t": "tab", ";": "semicolon"}
TOPICS = {"topics", "topic", "tags"}
QUESTION_COLUMNS = {
    "stem": {"stem", "question", "question text", "prompt"},
    "choices": {"choices", "options"},
    "answer": {"answer", "correct", "correct answer", "right answer"},
    "explanation": {"explanation", "feedback", "rationale"},
    "kind": {"kind", "type", "question type"},
    "topics": TOPICS,
    "markup": {"markup"},
}
# The `kind` column's words: (kind, partial credit, case sensitive).
KIND_WORDS = {
    "single": (QuestionKind.SINGLE, False, False),
    "choose": (QuestionKind.CHOOSE, False, False),
    "select_all": (QuestionKind.SELECT_ALL, False, False),
    "select_all_partial": (QuestionKind.SELECT_ALL, True, False),
    "true_false": (QuestionKind.TRUE_FALSE, False, False),
    "short_answer": (QuestionKind.SHORT_ANSWER, False, False),
    "short_answer_case_sensitive": (QuestionKind.SHORT_ANSWER, False, True),
    "numerical": (QuestionKind.NUMERICAL, False, False),
    "matching": (QuestionKind.MATCHING, False, False),
    "matching_partial": (QuestionKind.MATCHING, True, False),
}
KIND_SYNONYMS = {"number": "numerical"}
# Kinds whose answers are all in the answer cell, with no choices to pick from.
ANSWERED_IN_CELL = {*TYPED, QuestionKind.MATCHING}
CARD_COLUMNS = {
    "front": {"front", "question", "term", "prompt"},
    "back": {"back", "answer", "definition"},
    "misconception": {"misconception", "myth"},
    "correction": {"correction"},
    "topics": TOPICS,
    "markup": {"markup"},
}
REQUIRED = {SourceDocument.Kind.QUIZ: ("stem", "answer"), SourceDocument.Kind.DECK: ("front", "back")}
NUMBERED_CHOICE = re.compile(r"^(?:choice|option) ?(\d{1,2})$")
LETTER_CHOICE = re.compile(r"^(?:choice |option )?([a-j])$")
CHOICE_SEPARATOR = "|"


def looks_like_table(lines):
    """A first line that, split at a comma, tab or semicolon, names known columns of one kind."""
    first = next((line for line in lines if line.strip()), "")
    return _best_delimiter(first) is not None


def parse_table(text, file, checksum):
    """([ParsedDocument], [warning, ...]) for a CSV or TSV file, or raise ContentError
    (ContentErrors with every broken row; SkippedItems when only rows are broken and others were read)."""
    lines = text.split("\n")
    header_line = next(number for number, line in enumerate(lines, start=1) if line.strip())
    first = lines[header_line - 1]
    # A header missing a required column still names its delimiter; _Table then says which column.
    delimiter = _best_delimiter(first) or max(DELIMITERS, key=first.count)
    if delimiter not in first:
        message = "the first line is not a header naming front,back (cards) or stem,choices,answer (questions)"
        raise ContentError(file, header_line, message)
    header = _row_cells(lines[header_line - 1], delimiter, file, header_line)
    table = _Table(header, file, header_line)
    # A broken row is skipped and the next one read: rows stand on their own. A row the csv
    # reader cannot read (broken quotes) is the file's problem: quotes decide where the next
    # rows start, so the rows after it may not be the rows the author wrote.
    problems = Problems()
    rows = list(read_rows(lines, header_line, delimiter, file, problems))
    items, skipped = problems.items(table.item, [(cells, line, number) for number, (line, cells) in enumerate(rows, start=1)])
    if not items and not problems.found:
        raise ContentError(file, header_line, "no rows after the header")
    if table.kind == SourceDocument.Kind.DECK:
        items, skipped = expand_cloze_items(items, file, skipped)
    title, name = problems.collect(title_from_file_name, file), problems.collect(source_file_name, file)
    document = ParsedDocument(file, table.kind, title, name, checksum, items, skipped=skipped)
    problems.raise_if_any([document], table.warnings)
    return [document], table.warnings


def _normal(name):
    return " ".join(name.strip().lower().replace("_", " ").split())


def _columns_of(header):
    """(kind, {field: column index}, [(choice position, column index)], [unknown column index])."""
    names = [_normal(name) for name in header]
    choices = []
    for index, name in enumerate(names):
        if match := NUMBERED_CHOICE.match(name):
            choices.append((int(match.group(1)), index))
        elif match := LETTER_CHOICE.match(name):
            choices.append((ord(match.group(1)) - ord("a") + 1, index))
    # Choices make a table of questions; so does a `stem` column (typed questions have no choices).
    # Not a kind column alone: card tables exported elsewhere may carry a "type" (Anki's note type).
    question_only = QUESTION_COLUMNS["choices"] | {"stem", "question text"}
    has_choices = choices or any(name in question_only for name in names)
    kind = SourceDocument.Kind.QUIZ if has_choices else SourceDocument.Kind.DECK
    synonyms = QUESTION_COLUMNS if has_choices else CARD_COLUMNS
    fields = {}
    for index, name in enumerate(names):
        field = next((field for field, known in synonyms.items() if name in known), None)
        if field is not None:
            fields.setdefault(field, []).append(index)
    choice_columns = {index for _, index in choices}
    unknown = [index for index, name in enumerate(names) if index not in choice_columns and not any(
        name in known for known in synonyms.values())]
    return kind, fields, sorted(choices), unknown


def _best_delimiter(line):
    """The delimiter under which the line names the most known columns, if it names two."""
    best, best_count = None, 1
    for delimiter in DELIMITERS:
        if delimiter not in line:
            continue
        try:
            header = next(csv.reader([line], delimiter=delimiter, strict=True))
        except csv.Error:
            continue
        kind, fields, choices, _ = _columns_of(header)
        if all(field in fields for field in REQUIRED[kind]) and len(fields) + len(choices) > best_count:
            best, best_count = delimiter, len(fields) + len(choices)
    return best


def _row_cells(line, delimiter, file, number):
    try:
        return next(csv.reader([line], delimiter=delimiter, strict=True))
    except csv.Error as error:
        raise ContentError(file, number, f"malformed header: {error}") from error


def read_rows(lines, header_line, delimiter, file, problems):
    """Yield (line number where the row starts, cells) for every non-blank row after line
    `header_line` (0: all of them); a quoted field may span lines. A malformed row is added
    to `problems` (Problems) and skipped: the csv reader starts afresh on the next line."""
    reader = csv.reader(io.StringIO("\n".join(lines[header_line:]), newline=""), delimiter=delimiter, strict=True)
    consumed = 0
    while True:
        start = header_line + consumed + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            problems.add(ContentError(file, start, f"malformed row: {error}"))
            consumed = reader.line_num
            continue
        consumed = reader.line_num
        if any(cell.strip() for cell in row):
            yield start, row


class _Table:
    """What the header says: the kind of items, which column holds what; builds each row's item."""

    def __init__(self, header, file, line):
        self.file, self.width, self.warnings = file, len(header), []
        self.kind, fields, self.choice_columns, unknown = _columns_of(header)
        for field, indexes in fields.items():
            if len(indexes) > 1:
                raise ContentError(file, line, f"two columns hold the {field}: {header[indexes[0]]!r} and "
                                   f"{header[indexes[1]]!r}")
        self.column = {field: indexes[0] for field, indexes in fields.items()}
        for field in REQUIRED[self.kind]:
            if field not in self.column:
                raise ContentError(file, line, f"the header has no {field!r} column")
        if self.kind == SourceDocument.Kind.QUIZ and "choices" in self.column and self.choice_columns:
            raise ContentError(file, line, "a 'choices' column and numbered choice columns: use one or the other")
        self.warnings += [f"{file}:{line}: ignored column {shorten(header[index])!r}" for index in unknown]

    def item(self, cells, line, number):
        if len(cells) > self.width:
            raise ContentError(self.file, line, f"{len(cells)} fields, but the header has {self.width} "
                               "(a field holding the delimiter must be in double quotes)")
        cells = cells + [""] * (self.width - len(cells))
        build = self._question if self.kind == SourceDocument.Kind.QUIZ else self._card
        return build(cells, line, number)

    def _cell(self, cells, field, line, required=False):
        text = cells[self.column[field]].strip() if field in self.column else ""
        if required and not text:
            raise ContentError(self.file, line, f"the {field} is empty")
        return check_text(text, self.file, line, f"the {field}")

    def _topics(self, cells, line):
        return topic_names(self._cell(cells, "topics", line), self.file, line) if "topics" in self.column else None

    def _markup(self, cells, line):
        """The markup column's `plain`, `markdown` or `html` (any letter case); empty is plain."""
        word = self._cell(cells, "markup", line).lower() or Markup.PLAIN
        if word not in Markup.values:
            raise ContentError(self.file, line, f"the markup {shorten(word)!r} is none of: {', '.join(Markup.values)}")
        return word

    def _question(self, cells, line, number):
        stem = self._cell(cells, "stem", line, required=True)
        answer = self._cell(cells, "answer", line, required=True)
        choices = self._choices(cells, line)
        said = self._kind(cells, line)
        if said and said[0] in ANSWERED_IN_CELL:
            parsed = self._answers_in_cell(answer, choices, said[0], line)
        else:
            if len(choices) < 2:
                raise ContentError(self.file, line, f"the question has {len(choices)} choice(s), needs at least 2")
            rights = self._right_choices(answer, choices, line)
            parsed = check_choices([(text, position in rights) for position, text in choices], self.file, line, "the question")
        several = sum(1 for choice in parsed if choice[1]) > 1
        kind, partial_credit, case_sensitive = said or ((QuestionKind.CHOOSE if several else QuestionKind.SINGLE), False, False)
        question = ParsedQuestion(
            f"q{number}", stem, self._cell(cells, "explanation", line), parsed, line, self._topics(cells, line),
            kind=kind, partial_credit=partial_credit, case_sensitive=case_sensitive, markup=self._markup(cells, line),
        )
        return check_question_kind(question, self.file)

    def _kind(self, cells, line):
        """The kind column's (kind, partial credit, case sensitive), or None where it is empty."""
        word = self._cell(cells, "kind", line).lower().replace(" ", "_").replace("-", "_")
        if not word:
            return None
        word = KIND_SYNONYMS.get(word, word)
        if word not in KIND_WORDS:
            raise ContentError(self.file, line, f"the kind {shorten(word)!r} is none of: {', '.join(KIND_WORDS)}")
        return KIND_WORDS[word]

    def _answers_in_cell(self, answer, choices, kind, line):
        """A typed question's accepted answers (`NVLink|NV* (50%)`) or a matching question's pairs
        (`TCP -> Transport|-> Physical`), from the answer cell."""
        label = QuestionKind(kind).label.lower()
        if choices:
            raise ContentError(self.file, line, f"a {label} question has no choices to pick: leave the choice cells "
                               f"empty and write its answers in the answer cell, separated by '{CHOICE_SEPARATOR}'")
        parts = [part.strip() for part in answer.split(CHOICE_SEPARATOR)]
        if kind == QuestionKind.MATCHING:
            return [pair(part, self.file, line, "the question") for part in parts]
        return [accepted_answer(*split_credit(part, self.file, line, "the question"), kind, self.file, line, "the question")
                for part in parts]

    def _right_choices(self, answer, choices, line):
        """The positions the answer names: one choice (`_right_choice`), or several separated by
        commas (`A,C`, `1,3`) when the whole answer is no choice's text."""
        if "," not in answer or any(text == answer for _, text in choices):
            return {self._right_choice(answer, choices, line)}
        return {self._right_choice(part.strip(), choices, line) for part in answer.split(",")}

    def _choices(self, cells, line):
        """[(position, text)] of the non-empty choices; positions count empty ones too, so a
        letter or number answer names the column (or `|` part) the author meant."""
        if "choices" in self.column:
            texts = enumerate(cells[self.column["choices"]].split(CHOICE_SEPARATOR), start=1)
        else:
            texts = ((position, cells[index]) for position, index in self.choice_columns)
        return [(position, text.strip()) for position, text in texts if text.strip()]

    def _right_choice(self, answer, choices, line):
        """The position the answer names: a choice's exact text first (the one way to name a
        choice that is itself a letter or a number), else its letter, else its number."""
        positions = [position for position, _ in choices]
        by_text = next((position for position, text in choices if text == answer), None)
        by_label = None
        if len(answer) == 1 and answer.isascii() and answer.isalpha():
            by_label = ord(answer.upper()) - ord("A") + 1
        elif answer.isascii() and answer.isdigit() and len(answer) <= 2:  # "²".isdigit() is true too
            by_label = int(answer)
        by_label = by_label if by_label in positions else None
        if by_text is None and by_label is None:
            raise ContentError(self.file, line, f"the answer {shorten(answer)!r} matches no choice "
                               "(give its letter, its number or its exact text)")
        if by_text is not None and by_label is not None and by_text != by_label:
            self.warnings.append(f"{self.file}:{line}: the answer {answer!r} is the text of choice {by_text} and "
                                 f"the label of choice {by_label}; took the choice whose text it is")
        return by_text if by_text is not None else by_label

    def _card(self, cells, line, number):
        front = self._cell(cells, "front", line, required=True)
        back = self._cell(cells, "back", line, required=True)
        misconception = self._cell(cells, "misconception", line)
        correction = self._cell(cells, "correction", line)
        if bool(misconception) != bool(correction):
            missing = "correction" if misconception else "misconception"
            raise ContentError(self.file, line, f"the {missing} is empty: a card has both a misconception and its "
                               "correction, or neither")
        return ParsedCard(f"c{number}", front, back, misconception, correction, line, self._topics(cells, line),
                          markup=self._markup(cells, line))


def write_questions_table(question_set):
    """A CSV of a set (export.py's plain data) that parse_table reads back as it is.

    One column per choice (`choice1`..), so a choice may hold the `|` a `choices` column
    splits at, and the answer is the right choice's text, which no letter or number
    overrides (several right choices: their numbers, `1,3`). A typed or matching question's
    answers are its answer cell, separated by `|`. A `kind` column only when a question is not
    single-answer, a `markup` column only when one is not plain text. The title is not written:
    the parser takes it from the file name."""
    questions = question_set["questions"]
    picked = [question for question in questions if question.get("kind") not in ANSWERED_IN_CELL]
    with_kind = any(question.get("kind", QuestionKind.SINGLE) != QuestionKind.SINGLE for question in questions)
    width = max((len(question["choices"]) for question in picked), default=0 if with_kind else 2)
    header = ["stem", *(f"choice{number}" for number in range(1, width + 1)), "answer", "explanation", "topics"]
    rows = [_question_row(question, width, with_kind) for question in questions]
    return _csv_text(_with_markup(questions, [header + (["kind"] if with_kind else []), *rows]))


def _with_markup(items, rows):
    """The rows with a `markup` column at the end when an item is not plain text (files of plain
    items keep the bytes they had before markup existed)."""
    markups = [item.get("markup", Markup.PLAIN) for item in items]
    if all(markup == Markup.PLAIN for markup in markups):
        return rows
    return [rows[0] + ["markup"], *(row + [markup] for row, markup in zip(rows[1:], markups))]


def _question_row(question, width, with_kind):
    where = f"the question {shorten(one_line(question['stem']))!r}"
    if question.get("kind") in ANSWERED_IN_CELL:
        texts, right = [], _answer_cell(question, where)
    else:
        texts = [_cell(choice["text"]) for choice in question["choices"]]
        right = _right_cell(question, texts, where)
    topics = topics_text(question.get("topics") or [], where)
    padding = [""] * (width - len(texts))
    row = [_cell(question["stem"]), *texts, *padding, right, _cell(question["explanation"]), topics]
    return row + [_kind_word(question, where)] if with_kind else row


def _right_cell(question, texts, where):
    rights = [number for number, choice in enumerate(question["choices"], start=1) if choice["correct"]]
    if len(rights) == 1:
        return texts[rights[0] - 1]
    if any(text.isascii() and text.isdigit() for text in texts):
        raise ExportError(f"{where}: a choice is a bare number, which its answer's numbers would name; export as JSON")
    return ",".join(str(number) for number in rights)


def _answer_cell(question, where):
    """`NVLink|NV* (50%)` or `TCP -> Transport|-> Physical`: each answer one line, none holding `|`."""
    kind, parts = question["kind"], []
    for choice in question["choices"]:
        choice = {**choice, "text": one_line(choice["text"]), "match": one_line(choice.get("match") or "")}
        part = pair_text(choice, where) if kind == QuestionKind.MATCHING else accepted_text(choice, kind, where)
        if CHOICE_SEPARATOR in part:
            raise ExportError(f"{where}: the answer {shorten(part)!r} holds '{CHOICE_SEPARATOR}', which separates "
                              "the answers in CSV; export as JSON or GIFT")
        parts.append(part)
    return CHOICE_SEPARATOR.join(parts)


def _kind_word(question, where):
    kind, partial = question.get("kind", QuestionKind.SINGLE), bool(question.get("partial_credit"))
    if kind == QuestionKind.SELECT_ALL and partial and any(choice.get("weight") is not None for choice in question["choices"]):
        raise ExportError(f"{where} gives its choices their own weights, which CSV cannot hold; export as JSON or GIFT")
    # Letter case is a short answer's only: a flag on another kind (an old row) means nothing.
    meaning = (kind, partial, kind == QuestionKind.SHORT_ANSWER and bool(question.get("case_sensitive")))
    return next(word for word, said in KIND_WORDS.items() if said == meaning)


def write_cards_table(deck):
    """A CSV of a deck (export.py's plain data) that parse_table reads back as it is; a card
    with a misconception but no correction (or the other way round) raises ExportError."""
    header = ["front", "back", "misconception", "correction", "topics"]
    cards = cloze_notes(deck["cards"])
    return _csv_text(_with_markup(cards, [header, *(_card_row(card) for card in cards)]))


def _card_row(card):
    where = f"the card {shorten(one_line(card['front']))!r}"
    if bool(card["misconception"].strip()) != bool(card["correction"].strip()):
        raise ExportError(f"{where} has a misconception or a correction without the other; export as JSON")
    topics = topics_text(card.get("topics") or [], where)
    return [_cell(card[part]) for part in ("front", "back", "misconception", "correction")] + [topics]


def _cell(text):
    return "\n".join(plain_lines(text)).strip()


def _csv_text(rows):
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()
