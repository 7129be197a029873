"""The Aiken format: multiple-choice questions, one right answer, nothing else.

    Which layer routes packets?
    A. Transport
    B) Network
    ANSWER: B

A question's text (one line or more), choices labelled `A.` or `A)` with consecutive
capital letters (a space after the label is optional), then `ANSWER: X`. Blank lines between questions are optional. Aiken has no
explanations and no topics: questions get an empty explanation, and their topics are left
as they are. The grammar follows Moodle's importer (question/format/aiken/format.php),
stricter where Moodle guesses: a choice out of order, a line between the choices and the
ANSWER line or a question without one is an error, not a new question. Pure: no database.
"""

import itertools
import re

from ..models import Markup, SourceDocument
from ..models.kinds import QuestionKind
from .documents import (
    ContentError,
    ExportError,
    ParsedDocument,
    ParsedQuestion,
    Problems,
    check_choices,
    check_text,
    one_line,
    plain_lines,
    shorten,
    source_file_name,
    title_from_file_name,
)

# The space after the label is optional, as in Moodle's importer ("A)Correct" is a choice).
CHOICE_LINE = re.compile(r"^([A-Z])[.)]([ \t]*)(.*)$")
ANSWER_LINE = re.compile(r"^ANSWER\s*:\s*(.*)$")


def looks_like_aiken(lines):
    """An `ANSWER: X` line right after a choice line."""
    stripped = [line.strip() for line in lines if line.strip()]
    return any(
        CHOICE_LINE.match(previous) and ANSWER_LINE.match(line)
        for previous, line in itertools.pairwise(stripped)
    )


class _Question:
    """A question being read: its first line, its text lines and its choices so far. A broken
    one (its problem recorded) only waits for its ANSWER line, where the next question starts."""

    def __init__(self, line, text):
        self.line, self.text, self.choices, self.broken = line, [text], [], False


def parse_aiken(text, file, checksum):
    """([ParsedDocument], []) for an Aiken file, or raise ContentError (ContentErrors with every
    broken question: each is skipped up to its ANSWER line and the next one read; SkippedItems
    when only questions are broken, each within its own lines, and others were read)."""
    questions, current, problems, skipped = [], None, Problems(), []
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.strip()
        if not line:
            continue
        try:
            current = _read_line(current, line, number, file, questions, skipped)
        except ContentError as error:
            # A question's own problem ends at its ANSWER line, where the next question starts
            # (SkippedItems may leave it out); a lost place (_PlaceLost) is the file's problem.
            problems.add(error, of_an_item=not isinstance(error, _PlaceLost))
            # One problem per question: what follows it up to the ANSWER line would only echo it.
            current = current or _Question(number, line)
            current.broken = not ANSWER_LINE.match(line)
            if not current.broken:
                skipped.append(len(questions) + len(skipped) + 1)
                current = None
    if current is not None:
        if not current.broken:
            problems.add(ContentError(file, current.line, "the question has no 'ANSWER: X' line"), of_an_item=True)
        skipped.append(len(questions) + len(skipped) + 1)
    if not questions and not problems.found:
        raise ContentError(file, None, "no questions: expected a question, choices 'A. ...' and 'ANSWER: X'")
    title, name = problems.collect(title_from_file_name, file), problems.collect(source_file_name, file)
    document = ParsedDocument(file, SourceDocument.Kind.QUIZ, title, name, checksum, questions, skipped=skipped)
    problems.raise_if_any([document])
    return [document], []


class _PlaceLost(ContentError):
    """A line that says the reader may have lost its place: a text line after the choices, or a
    choice with no question before it, is what a missing ANSWER line looks like, and then the
    next question was read as the end of this one. Its questions cannot be told apart, so the
    file is refused rather than a question silently dropped."""


def _read_line(current, line, number, file, questions, skipped):
    """The question being read after this line (None after its ANSWER line)."""
    if answer := ANSWER_LINE.match(line):
        if current and current.broken:
            skipped.append(len(questions) + len(skipped) + 1)
        else:
            questions.append(_finished(current, answer.group(1).strip(), number, file, len(questions) + 1))
        return None
    if current is not None and current.broken:
        return current
    if (choice := CHOICE_LINE.match(line)) and _is_choice(current, choice):
        _add_choice(current, choice, number, file)
    elif current is None:
        return _Question(number, line)
    elif current.choices:
        message = f"expected the next choice or 'ANSWER: X' for the question on line {current.line}"
        raise _PlaceLost(file, number, message)
    else:
        current.text.append(line)
    return current


def _is_choice(current, choice):
    """A labelled line is a choice; one with no space after its label ("A)Correct", but also
    "I.e. ..." or "A.B. testing" in a question's text) only where it is the next choice due."""
    letter, space, _ = choice.groups()
    return bool(space) or (current is not None and letter == chr(ord("A") + len(current.choices)))


def _add_choice(current, choice, number, file):
    if current is None:
        raise _PlaceLost(file, number, "a choice before any question text")
    letter, _, text = choice.groups()
    expected = chr(ord("A") + len(current.choices))
    if letter != expected:
        raise ContentError(file, number, f"expected choice {expected}, found {letter}")
    current.choices.append(check_text(text.strip(), file, number, f"choice {letter}"))


def _finished(current, answer, number, file, position):
    if current is None or not current.choices:
        raise ContentError(file, number, "'ANSWER:' without a question and its choices before it")
    if len(current.choices) < 2:
        raise ContentError(file, number, "a question needs at least 2 choices")
    letters = [chr(ord("A") + index) for index in range(len(current.choices))]
    if answer not in letters:
        raise ContentError(file, number, f"ANSWER must be one of {', '.join(letters)}, found {answer!r}")
    choices = [(text, letter == answer) for letter, text in zip(letters, current.choices)]
    check_choices(choices, file, current.line, "the question")
    stem = check_text("\n".join(current.text), file, current.line, "the question")
    return ParsedQuestion(f"q{position}", stem, "", choices, current.line)


def write_aiken(question_set):
    """An Aiken file of a set (export.py's plain data) that parse_aiken reads back as it is.

    Aiken has no title (the parser takes it from the file name), no explanation and no
    topics: they are left out. A choice is one line (line breaks become spaces); a stem keeps
    its lines but not blank ones. A stem line that reads as a choice or an ANSWER line, or more
    than 26 choices, raises ExportError, as does any question that is not single-answer (Aiken has
    one ANSWER letter per question) or not plain text (Aiken has no way to say Markdown or HTML)."""
    return "\n".join(_aiken_question(question) for question in question_set["questions"])


def _reads_as_choice(stem_line):
    """Would parse_aiken read this line of a stem as a choice (the first, A, is the one due)?"""
    choice = CHOICE_LINE.match(stem_line)
    return bool(choice) and _is_choice(_Question(0, ""), choice)


def _aiken_question(question):
    where = f"the question {shorten(one_line(question['stem']))!r}"
    if (kind := question.get("kind", QuestionKind.SINGLE)) != QuestionKind.SINGLE:
        raise ExportError(f"{where} is “{QuestionKind(kind).label}”, and Aiken holds single-answer questions "
                          "only; export as GIFT or JSON")
    if (markup := question.get("markup", Markup.PLAIN)) != Markup.PLAIN:
        raise ExportError(f"{where} is written in {Markup(markup).label}, and Aiken holds plain text only; "
                          "export as GIFT or JSON")
    stem = [line.strip() for line in plain_lines(question["stem"]) if line.strip()]
    if any(_reads_as_choice(line) or ANSWER_LINE.match(line) for line in stem):
        raise ExportError(f"{where} has a line that Aiken reads as a choice or an answer; export as GIFT or JSON")
    if len(question["choices"]) > 26:
        raise ExportError(f"{where} has more than 26 choices, one per letter A-Z; export as GIFT or JSON")
    letters = [chr(ord("A") + index) for index in range(len(question["choices"]))]
    choices = [f"{letter}. {one_line(choice['text'])}" for letter, choice in zip(letters, question["choices"])]
    right = next(letter for letter, choice in zip(letters, question["choices"]) if choice["correct"])
    return "\n".join([*stem, *choices, f"ANSWER: {right}", ""])
