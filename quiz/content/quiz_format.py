"""The quiz document format: multiple-choice questions in plain text.

A title line, then blocks of `Question N: stem`, `- choice` lines (one ending in
`(Correct answer)`, in any letter case), a `Correct answer: ...` line, one explanation line
and, optionally, a `Topics: a, b` line. `Question 3` becomes the key `q3`, so re-importing
an edited document updates that question in place. Pure: no database.
"""

import re

from ..models import SourceDocument
from .documents import (
    TOPICS_LINE,
    TOPICS_PREFIX,
    ContentError,
    ExportError,
    ParsedDocument,
    ParsedQuestion,
    Problems,
    check_text,
    check_title,
    one_line,
    shorten,
    source_file_name,
    topic_names,
    topics_text,
)

# Digits are matched loosely so that an absurd number is reported, not misread as text.
QUESTION_LINE = re.compile(r"^Question\s+(\d+)\s*:(.*)$")
MAX_QUESTION_DIGITS = 9
CHOICE_LINE = re.compile(r"^-\s+(.*)$")  # "- text", "-\ttext", "-   text"
CORRECT_MARKER = "(Correct answer)"
MARKER_AT_END = re.compile(r"\s*\(\s*correct\s+answer\s*\)$", re.IGNORECASE)
ANSWER_LINE = re.compile(r"^Correct\s+answer\s*:(.*)$", re.IGNORECASE)
ANSWER_PREFIX = "Correct answer:"


def parse_quiz(lines, file, checksum):
    """([ParsedDocument], [warning, ...]) for the lines of a quiz document, or raise ContentError
    (ContentErrors with every broken question: each is skipped and the next one read)."""
    numbered = [(number, line.strip()) for number, line in enumerate(lines, start=1) if line.strip()]
    title_line, title = numbered[0]
    if QUESTION_LINE.match(title):
        raise ContentError(file, title_line, "expected the quiz title on the first line, found a question")
    warnings, problems = [], Problems()
    questions = []
    first_seen = {}
    for start, stem_match, body in _question_blocks(numbered[1:], file, warnings, problems):
        question = problems.collect(_numbered_question, file, start, stem_match, body, first_seen, warnings)
        if question is not None:
            questions.append(question)
    title = problems.collect(check_title, title, file, title_line)
    name = problems.collect(source_file_name, file)
    problems.raise_if_any()
    return [ParsedDocument(file, SourceDocument.Kind.QUIZ, title, name, checksum, questions)], warnings


def _numbered_question(file, start, stem_match, body, first_seen, warnings):
    digits = stem_match.group(1)
    if len(digits) > MAX_QUESTION_DIGITS:
        raise ContentError(file, start, f"question number is longer than {MAX_QUESTION_DIGITS} digits")
    key = f"q{int(digits)}"
    if key in first_seen:
        raise ContentError(file, start, f"Question {digits} appears twice (first on line {first_seen[key]})")
    first_seen[key] = start
    return _parse_question(file, start, key, stem_match.group(2).strip(), body, warnings)


def _question_blocks(numbered, file, warnings, problems):
    """Yield (line number, `Question N:` match, [(number, line), ...]) per question."""
    block = None
    for number, line in numbered:
        match = QUESTION_LINE.match(line)
        if match:
            if block:
                yield block
            block = (number, match, [])
        elif block:
            block[2].append((number, line))
        elif TOPICS_LINE.match(line):
            # Refused, not ignored: there are no document-wide topics, and a warning is easy to miss.
            message = f"a '{TOPICS_PREFIX}' line belongs right after a question's explanation, not before any question"
            problems.add(ContentError(file, number, message))
        else:
            warnings.append(_ignored(file, number, line, "before the first question"))
    if block:
        yield block


def _parse_question(file, start, key, stem, body, warnings):
    if not stem:
        raise ContentError(file, start, f"question {key} has no text after the colon")
    check_text(stem, file, start, f"question {key}")
    choices = list(_leading_choices(body))
    rest = body[len(choices) :]
    if len(choices) < 2:
        raise ContentError(
            file, start, f"question {key} has {len(choices)} choice(s) ('- ...' lines), needs at least 2"
        )
    marked = _marked_choice(file, start, key, choices)
    _refuse_duplicate_choices(file, key, choices)
    expected_at = choices[-1][0] + 1
    answer_match = ANSWER_LINE.match(rest[0][1]) if rest else None
    if not answer_match:
        raise ContentError(
            file, expected_at, f"question {key}: expected a '{ANSWER_PREFIX} ...' line after the choices"
        )
    answer_line, answer = rest[0][0], answer_match.group(1).strip()
    if answer != choices[marked][1]:
        raise ContentError(
            file, answer_line, f"question {key}: '{ANSWER_PREFIX}' does not match the choice marked {CORRECT_MARKER}"
        )
    if len(rest) < 2:
        raise ContentError(
            file, answer_line + 1, f"question {key}: expected one explanation line after '{ANSWER_PREFIX}'"
        )
    explanation_line, explanation = rest[1]
    if TOPICS_LINE.match(explanation):
        raise ContentError(
            file,
            explanation_line,
            f"question {key}: expected one explanation line after '{ANSWER_PREFIX}', found a '{TOPICS_PREFIX}' line "
            "(it goes after the explanation)",
        )
    check_text(explanation, file, explanation_line, f"the explanation of {key}")
    trailing, topics = rest[2:], None
    if trailing and (match := TOPICS_LINE.match(trailing[0][1])):
        topics = topic_names(match.group(1), file, trailing[0][0])
        trailing = trailing[1:]
    # One explanation line by definition: anything after it (the seed documents end with a
    # stray repeat of the title and the first stem) is reported, never glued onto the text.
    # A misplaced Topics line is refused rather than ignored: its topics would silently not be set.
    for number, line in trailing:
        if TOPICS_LINE.match(line):
            message = f"question {key}: a '{TOPICS_PREFIX}' line must be the one line right after the explanation"
            raise ContentError(file, number, message)
    warnings.extend(_ignored(file, number, line, f"after the explanation of {key}") for number, line in trailing)
    parsed_choices = [(text, index == marked) for index, (_, text, _) in enumerate(choices)]
    return ParsedQuestion(key, stem, explanation, parsed_choices, start, topics)


def _leading_choices(body):
    """Yield (line number, text without the marker, marked?) for the `- ...` lines at the top."""
    for number, line in body:
        match = CHOICE_LINE.match(line)
        if not match:
            return
        text = match.group(1).strip()
        marker = MARKER_AT_END.search(text)
        text = text[: marker.start()] if marker else text
        yield number, text, bool(marker)


def _marked_choice(file, start, key, choices):
    marked = [index for index, (_, _, is_marked) in enumerate(choices) if is_marked]
    if not marked:
        raise ContentError(file, start, f"question {key}: no choice ends with {CORRECT_MARKER}")
    if len(marked) > 1:
        first, second = choices[marked[0]][0], choices[marked[1]][0]
        raise ContentError(
            file, second, f"question {key}: a second choice is marked {CORRECT_MARKER} (first on line {first})"
        )
    if not choices[marked[0]][1]:
        raise ContentError(file, choices[marked[0]][0], f"question {key}: the correct choice has no text")
    return marked[0]


def _refuse_duplicate_choices(file, key, choices):
    # Two choices with one text make "Correct answer:" ambiguous, and re-imports match
    # choices by their text, so the texts of one question must differ.
    first_seen = {}
    for number, text, _ in choices:
        check_text(text, file, number, f"a choice of {key}")
        if not text:
            raise ContentError(file, number, f"question {key}: a choice has no text")
        if text in first_seen:
            first = first_seen[text]
            message = f"question {key}: the choice {shorten(text)!r} appears twice (first on line {first})"
            raise ContentError(file, number, message)
        first_seen[text] = number


def _ignored(file, number, line, where):
    return f"{file}:{number}: ignored line {where}: {shorten(line)!r}"


def write_quiz(question_set):
    """A quiz document of a set (export.py's plain data) that parse_quiz reads back as it is.

    Every text is one line of the document, so line breaks inside a text become spaces. What
    the format cannot hold at all (an empty explanation, a topic with a comma, a wrong choice
    ending in the correct-answer marker) raises ExportError rather than be misread."""
    title = one_line(question_set["title"])
    if QUESTION_LINE.match(title):
        raise ExportError(f"the title {shorten(title)!r} would read as a question")
    blocks = [title]
    for number, question in enumerate(question_set["questions"], start=1):
        blocks.append(_question_text(number, question))
    return "\n\n".join(blocks) + "\n"


def _question_text(number, question):
    where = f"question {number} ({shorten(one_line(question['stem']))!r})"
    explanation = one_line(question["explanation"])
    if not explanation:
        raise ExportError(f"{where} has no explanation, and a quiz document needs one; export as JSON, GIFT or CSV")
    if QUESTION_LINE.match(explanation) or TOPICS_LINE.match(explanation):
        raise ExportError(f"{where}: its explanation would read as a new question or a topics line")
    lines = [f"Question {number}: {one_line(question['stem'])}"]
    for choice in question["choices"]:
        text = one_line(choice["text"])
        if not choice["correct"] and MARKER_AT_END.search(text):
            raise ExportError(f"{where}: a wrong choice ends with {CORRECT_MARKER}")
        lines.append(f"- {text} {CORRECT_MARKER}" if choice["correct"] else f"- {text}")
    right = next(one_line(choice["text"]) for choice in question["choices"] if choice["correct"])
    lines += [f"{ANSWER_PREFIX} {right}", explanation]
    if question.get("topics"):
        lines.append(f"{TOPICS_PREFIX} {topics_text(question['topics'], where)}")
    return "\n".join(lines)
