"""The quiz document format: multiple-choice questions in plain text.

A title line, then blocks of `Question N: stem`, `- choice` lines (one ending in
`(Correct answer)`, in any letter case), a `Correct answer: ...` line, one explanation line
and, optionally, a `Topics: a, b` line. `Question 3` becomes the key `q3`, so re-importing
an edited document updates that question in place.

Several right answers: mark each `(Correct answer)` and name them all on one line,
`Correct answers: first | second`; such a question is "choose N" ("Choose two."). A `Kind:`
line right after the question line says otherwise: `Kind: select all` (select all that apply,
all-or-nothing), `Kind: select all, partial credit` (+1/k for each right pick, -1/k for each
wrong one), `Kind: true/false` (choices `True` and `False`), `Kind: choose` or `Kind: single`.

Typed questions (`Kind: short answer`, `Kind: short answer, case sensitive`, `Kind: number`)
list their accepted answers as choices: full credit ones marked `(Correct answer)` and named on
the answer line, others ending in their credit, `- NV* (50%)`; a number may carry its tolerance,
`- 3.14 ± 0.01`, or be a range, `- 1..5`. A matching question (`Kind: matching`, `Kind:
matching, partial credit`) lists its pairs, `- TCP -> Transport` (`- -> Physical` an extra
option), and has no answer line: the explanation follows the pairs. See answer_text.py.

A first line `Format: markdown` (or `Format: html`) says every text of the document is written
in it (documents.document_markup); without it, plain text. Pure: no database.
"""

import re

from ..models import SourceDocument
from ..models.kinds import TYPED, QuestionKind
from .answer_text import accepted_answer, accepted_text, pair, pair_text, split_credit
from .documents import (
    FORMAT_LINE,
    FORMAT_PREFIX,
    TOPICS_LINE,
    TOPICS_PREFIX,
    ContentError,
    ExportError,
    ParsedDocument,
    ParsedQuestion,
    Problems,
    check_question_kind,
    check_text,
    check_title,
    document_markup,
    format_line,
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
ANSWER_LINE = re.compile(r"^Correct\s+answers?\s*:(.*)$", re.IGNORECASE)
ANSWER_PREFIX = "Correct answer:"
ANSWERS_PREFIX = "Correct answers:"
ANSWER_SEPARATOR = " | "
KIND_LINE = re.compile(r"^Kind\s*:(.*)$", re.IGNORECASE)
KIND_PREFIX = "Kind:"
# What a `Kind:` line may say (letter case, spaces and hyphens aside): (kind, partial credit, case sensitive).
KIND_WORDS = {
    "single": (QuestionKind.SINGLE, False, False),
    "choose": (QuestionKind.CHOOSE, False, False),
    "select all": (QuestionKind.SELECT_ALL, False, False),
    "select all, partial credit": (QuestionKind.SELECT_ALL, True, False),
    "true/false": (QuestionKind.TRUE_FALSE, False, False),
    "short answer": (QuestionKind.SHORT_ANSWER, False, False),
    "short answer, case sensitive": (QuestionKind.SHORT_ANSWER, False, True),
    "number": (QuestionKind.NUMERICAL, False, False),
    "matching": (QuestionKind.MATCHING, False, False),
    "matching, partial credit": (QuestionKind.MATCHING, True, False),
}
KIND_SYNONYMS = {"numerical": "number", "select all that apply": "select all"}


def parse_quiz(lines, file, checksum):
    """([ParsedDocument], [warning, ...]) for the lines of a quiz document, or raise ContentError
    (ContentErrors with every broken question: each is skipped and the next one read;
    SkippedItems when only questions are broken and others were read)."""
    markup, lines = document_markup(lines)
    numbered = [(number, line.strip()) for number, line in enumerate(lines, start=1) if line.strip()]
    if not numbered:
        raise ContentError(file, 1, f"nothing after the '{FORMAT_PREFIX}' line: expected the quiz title")
    title_line, title = numbered[0]
    if QUESTION_LINE.match(title):
        raise ContentError(file, title_line, "expected the quiz title on the first line, found a question")
    warnings, problems = [], Problems()
    first_seen = {}
    # Every `Question N:` line starts a question, whatever the one before it holds: a broken
    # question is an item of its own, skipped (SkippedItems) while the others are read.
    blocks = _question_blocks(numbered[1:], file, warnings, problems)
    questions, skipped = problems.items(
        _numbered_question, ((file, start, stem_match, body, first_seen, warnings) for start, stem_match, body in blocks)
    )
    for question in questions:
        question.markup = markup
    title = problems.collect(check_title, title, file, title_line)
    name = problems.collect(source_file_name, file)
    document = ParsedDocument(file, SourceDocument.Kind.QUIZ, title, name, checksum, questions, skipped=skipped)
    problems.raise_if_any([document], warnings)
    return [document], warnings


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
    said = _kind_line(file, key, body[0]) if body and KIND_LINE.match(body[0][1]) else None
    body = body[1:] if said else body
    choices = list(_leading_choices(body))
    rest = body[len(choices) :]
    if said and said[0] == QuestionKind.MATCHING:
        parsed_choices = _pairs(file, start, key, choices, rest)
        after, after_what = (choices[-1][0] if choices else start), "the pairs"
    else:
        typed = said is not None and said[0] in TYPED
        parsed_choices, after = _answered_choices(file, start, key, choices, rest, typed and said[0])
        rest, after_what = rest[1:], f"'{ANSWER_PREFIX}'"
    explanation, topics = _explanation_and_topics(file, key, rest, after, after_what, warnings)
    marked = sum(1 for choice in parsed_choices if choice[1])
    kind, partial_credit, case_sensitive = said or (
        (QuestionKind.CHOOSE, False, False) if marked > 1 else (QuestionKind.SINGLE, False, False)
    )
    question = ParsedQuestion(key, stem, explanation, parsed_choices, start, topics, kind=kind,
                              partial_credit=partial_credit, case_sensitive=case_sensitive)
    return check_question_kind(question, file, f"question {key}")


def _answered_choices(file, start, key, choices, rest, typed_kind):
    """The choices (or a typed question's accepted answers) checked against the `Correct
    answer:` line that follows them: ([parsed choice], the answer line's number)."""
    if len(choices) < (1 if typed_kind else 2):
        what = "accepted answer(s)" if typed_kind else "choice(s)"
        raise ContentError(
            file, start, f"question {key} has {len(choices)} {what} ('- ...' lines), needs at least {1 if typed_kind else 2}"
        )
    # A typed question's lines are checked one by one first: each says what is wrong with it.
    accepted = [_accepted(file, key, typed_kind, *choice) for choice in choices] if typed_kind else None
    marked = _marked_choices(file, start, key, choices)
    _refuse_duplicate_choices(file, key, choices)
    expected_at = choices[-1][0] + 1
    answer_match = ANSWER_LINE.match(rest[0][1]) if rest else None
    if not answer_match:
        raise ContentError(
            file, expected_at, f"question {key}: expected a '{ANSWER_PREFIX} ...' line after the choices"
        )
    answer_line, answer = rest[0][0], answer_match.group(1).strip()
    named = [answer] if len(marked) == 1 else [part.strip() for part in answer.split(ANSWER_SEPARATOR.strip())]
    if len(marked) > 1 and len(named) == 1:
        lines = ", ".join(str(choices[index][0]) for index in marked)
        raise ContentError(file, answer_line, f"question {key}: {len(marked)} choices are marked {CORRECT_MARKER} "
                           f"(lines {lines}) but '{ANSWER_PREFIX}' names one: mark only the right one, or name each "
                           f"right one on a '{ANSWERS_PREFIX}' line, separated by '{ANSWER_SEPARATOR.strip()}'")
    if sorted(named) != sorted(choices[index][1] for index in marked):
        what = f"the choice marked {CORRECT_MARKER}" if len(marked) == 1 else (
            f"the choices marked {CORRECT_MARKER} (name each, separated by '{ANSWER_SEPARATOR.strip()}')"
        )
        raise ContentError(file, answer_line, f"question {key}: '{ANSWER_PREFIX}' does not match {what}")
    if typed_kind:
        return accepted, answer_line
    return [(text, index in marked) for index, (_, text, _) in enumerate(choices)], answer_line


def _accepted(file, key, kind, number, text, marked):
    """An accepted answer's line: marked `(Correct answer)` (full credit) or ending in its credit `(50%)`."""
    what = f"question {key}"
    text, credit = split_credit(text, file, number, what)
    if marked == (credit is not None):
        raise ContentError(file, number, f"{what}: an accepted answer ends with {CORRECT_MARKER} (full credit) "
                           "or with its credit, e.g. (50%), not both nor neither")
    return accepted_answer(text, credit, kind, file, number, what)


def _pairs(file, start, key, choices, rest):
    """A matching question's `- item -> option` lines; its pairs are the answer, so no answer line follows."""
    if rest and ANSWER_LINE.match(rest[0][1]):
        raise ContentError(file, rest[0][0], f"question {key}: a matching question's pairs are its answer; "
                           f"leave out the '{ANSWER_PREFIX}' line")
    if any(marked for _, _, marked in choices):
        number = next(number for number, _, marked in choices if marked)
        raise ContentError(file, number, f"question {key}: a matching pair has no {CORRECT_MARKER} mark")
    for number, text, _ in choices:
        check_text(text, file, number, f"a pair of {key}")
    return [pair(text, file, number, f"question {key}") for number, text, _ in choices]


def _explanation_and_topics(file, key, rest, after, after_what, warnings):
    """The one explanation line and the optional `Topics:` line after it; what follows is ignored with a warning."""
    if not rest:
        raise ContentError(file, after + 1, f"question {key}: expected one explanation line after {after_what}")
    explanation_line, explanation = rest[0]
    if TOPICS_LINE.match(explanation):
        raise ContentError(
            file,
            explanation_line,
            f"question {key}: expected one explanation line after {after_what}, found a '{TOPICS_PREFIX}' line "
            "(it goes after the explanation)",
        )
    check_text(explanation, file, explanation_line, f"the explanation of {key}")
    trailing, topics = rest[1:], None
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
    return explanation, topics


def _kind_line(file, key, numbered_line):
    number, line = numbered_line
    said = " ".join(KIND_LINE.match(line).group(1).lower().replace("-", " ").split())
    said = said.replace("true / false", "true/false").replace("true false", "true/false")
    said = re.sub(r"\s*,\s*", ", ", said)  # "select all , partial credit"
    said = KIND_SYNONYMS.get(said, said).replace("select all that apply", "select all")
    if said not in KIND_WORDS:
        # Joined with " | ": some kinds hold a comma ("select all, partial credit").
        raise ContentError(file, number, f"question {key}: '{KIND_PREFIX} {said}' is none of: {' | '.join(KIND_WORDS)}")
    return KIND_WORDS[said]


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


def _marked_choices(file, start, key, choices):
    """The indexes of the choices marked (Correct answer): one or several (the kind says how many may be)."""
    marked = [index for index, (_, _, is_marked) in enumerate(choices) if is_marked]
    if not marked:
        raise ContentError(file, start, f"question {key}: no choice ends with {CORRECT_MARKER}")
    for index in marked:
        if not choices[index][1]:
            raise ContentError(file, choices[index][0], f"question {key}: the correct choice has no text")
    return marked


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


def _kind_said(question, where):
    """The `Kind:` line's words, or None where the marks say it (one right answer: single;
    several: choose N)."""
    kind, partial = question.get("kind", QuestionKind.SINGLE), bool(question.get("partial_credit"))
    if kind in (QuestionKind.SINGLE, QuestionKind.CHOOSE):
        return None
    if kind == QuestionKind.SELECT_ALL and partial and any(choice.get("weight") is not None for choice in question["choices"]):
        raise ExportError(f"{where} gives its choices their own weights, which a quiz document cannot hold; export as JSON or GIFT")
    # Letter case is a short answer's only: a flag on another kind (an old row) means nothing.
    meaning = (kind, partial, kind == QuestionKind.SHORT_ANSWER and bool(question.get("case_sensitive")))
    return next(word for word, said in KIND_WORDS.items() if said == meaning)


def write_quiz(question_set):
    """A quiz document of a set (export.py's plain data) that parse_quiz reads back as it is.

    Every text is one line of the document, so line breaks inside a text become spaces. What
    the format cannot hold at all (an empty explanation, a topic with a comma, a wrong choice
    ending in the correct-answer marker, questions in different markups) raises ExportError
    rather than be misread. Markdown or HTML questions start the document with a `Format:` line."""
    title = one_line(question_set["title"])
    if QUESTION_LINE.match(title):
        raise ExportError(f"the title {shorten(title)!r} would read as a question")
    header = format_line(question_set["questions"], repr(shorten(title)), "question")
    # A plain set whose title reads like the header says so first, or the title would be taken for it.
    header = header or (f"{FORMAT_PREFIX} plain" if FORMAT_LINE.match(title) else None)
    blocks = [header, title] if header else [title]
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
    if (said := _kind_said(question, where)) is not None:
        lines.append(f"{KIND_PREFIX} {said}")
    kind = question.get("kind", QuestionKind.SINGLE)
    if kind == QuestionKind.MATCHING:
        if CHOICE_LINE.match(explanation) or ANSWER_LINE.match(explanation):  # it follows the pairs directly
            raise ExportError(f"{where}: its explanation would read as a pair or an answer line; export as JSON or GIFT")
        lines += [f"- {pair_text({**choice, 'text': one_line(choice['text']), 'match': one_line(choice['match'])}, where)}" for choice in question["choices"]]
        return _with_explanation_and_topics(lines, explanation, question, where)
    texts = [
        accepted_text({**choice, "text": one_line(choice["text"])}, kind, where) if kind in TYPED else one_line(choice["text"])
        for choice in question["choices"]
    ]
    for choice, text in zip(question["choices"], texts):
        if MARKER_AT_END.search(text) and not (choice["correct"] and kind not in TYPED):
            raise ExportError(f"{where}: {'an answer' if kind in TYPED else 'a wrong choice'} ends with {CORRECT_MARKER}")
        lines.append(f"- {text} {CORRECT_MARKER}" if choice["correct"] else f"- {text}")
    rights = [text for choice, text in zip(question["choices"], texts) if choice["correct"]]
    if len(rights) > 1 and any(ANSWER_SEPARATOR.strip() in text for text in rights):
        raise ExportError(f"{where}: a right choice holds '{ANSWER_SEPARATOR.strip()}', which separates the right answers")
    prefix = ANSWER_PREFIX if len(rights) == 1 else ANSWERS_PREFIX
    lines.append(f"{prefix} {ANSWER_SEPARATOR.join(rights)}")
    return _with_explanation_and_topics(lines, explanation, question, where)


def _with_explanation_and_topics(lines, explanation, question, where):
    lines.append(explanation)
    if question.get("topics"):
        lines.append(f"{TOPICS_PREFIX} {topics_text(question['topics'], where)}")
    return "\n".join(lines)
