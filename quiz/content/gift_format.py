"""Moodle's GIFT format: every kind of question the app has, read and written as Moodle does.

    // a comment line
    $CATEGORY: Networking/Routing
    ::Q1:: Which layer routes packets? {
      =Network #Right: routers work there.
      ~Transport
      ~Link
      ####Routing is layer 3.
    }

Questions are separated by blank lines. `::name::` is optional (the app has no use for it),
`#...` after an answer is that answer's feedback, `####...` the question's general feedback,
`\\:`, `\\#`, `\\=`, `\\{`, `\\}`, `\\~`, `\\\\` and `\\n` are escapes, and a `[html]`,
`[markdown]`, `[plain]` or `[moodle]` prefix names a text's markup. The question text's prefix
is the whole question's (models.Markup: `[moodle]`, Moodle's auto-format, is plain text), as
Moodle's answers and feedback default to their question's format; every prefix is dropped and
the text kept as written (escapes undone), then rendered as its markup says when shown. The
grammar follows Moodle's own importer (question/format/gift/format.php).

What the app reads, as Moodle does where Moodle has the kind:
* one right answer (`=`) among at least two: a single-answer question;
* several `=` among `~` answers: a choose-N question ("Choose two."), all-or-nothing (Moodle
  would take any one of them as right; several `=` is how the app writes choose N);
* no `=` and `%` weights (`~%50%A ~%50%B ~%-100%C`): Moodle's multiple-answer question, here
  select all that apply with partial credit; an answer without a weight weighs 0;
* true/false (`{T}`, `{TRUE}`, `{F}`, `{FALSE}`): a true/false question;
* only `=` answers (`{=NVLink =%50%NV*}`): a short answer question;
* `{#3.14:0.01}`, `{#1..5}`, `{#=2000:0 =%50%1990:10}`: a numerical question;
* `{=TCP -> Transport = -> Physical}`: a matching question, partial credit per pair;
* an answer block inside the text: Moodle's "missing word", shown with a blank in its place.
Essays (`{}`), `%` weights beside a `=` and descriptions without braces are skipped with a
warning naming their line, never silently dropped. The explanation is the general feedback or,
without one, the right answers' feedback. A `$CATEGORY:` names the topic of the questions after
it. Pure: no database.
"""

import re
from decimal import Decimal

from ..models import Markup, SourceDocument
from ..models.kinds import TRUE_FALSE_TEXTS, QuestionKind, parse_number
from .answer_text import value_and_tolerance
from .documents import (
    ContentError,
    ExportError,
    ParsedDocument,
    ParsedQuestion,
    Problems,
    check_choices,
    check_question_kind,
    check_text,
    check_topic,
    one_line,
    parse_weight,
    percents,
    plain_lines,
    shorten,
    source_file_name,
    title_from_file_name,
)

# Escaped characters become private-use characters before parsing, as Moodle swaps them for
# placeholders, so `\{` never opens an answer block; `restore` turns them back into text.
ESCAPE = re.compile(r"\\[\\:#={}~n]")
PLACEHOLDER_OF = {
    escape: chr(0xE000 + index) for index, escape in enumerate(["\\\\", "\\:", "\\#", "\\=", "\\{", "\\}", "\\~", "\\n"])
}
TEXT_OF = {placeholder: escape[1] for escape, placeholder in PLACEHOLDER_OF.items()} | {PLACEHOLDER_OF[r"\n"]: "\n"}
PLACEHOLDERS = re.compile("[\ue000-\ue007]")
MARKUP_PREFIX = re.compile(r"^\s*\[(html|markdown|plain|moodle)\]", re.IGNORECASE)
MARKUP_OF_PREFIX = {"html": Markup.HTML, "markdown": Markup.MARKDOWN}  # plain and moodle: plain text
CATEGORY_LINE = re.compile(r"^\s*\$CATEGORY:(.*)$")
# Moodle's category paths start with the context and the top category: `$course$/top/...`.
CATEGORY_CONTEXT = re.compile(r"^(?:\$\w+\$/)?(?:top(?:/|$))?")
TRUE_FALSE = {"T": True, "TRUE": True, "F": False, "FALSE": False}
# An answer's weight: `%50%`, `%-33.33333%` right after its `~` (Moodle's grammar).
WEIGHT = re.compile(r"\s*%(-?[0-9]*\.?[0-9]+)%")


def looks_like_gift(text):
    """A `::name::`, a `$CATEGORY:` line, or a paragraph that ends with an answer block."""
    for block in _blocks(text.split("\n")):
        content = "\n".join(line for _, line in block).strip()
        if content.startswith("::") and "::" in content[2:] or CATEGORY_LINE.match(content):
            return True
        if re.search(r"\{\s*(?:[=~]|(?:T|F|TRUE|FALSE)\s*[#}])[^{}]*\}\s*$", _escaped(content)):
            return True
    return False


def parse_gift(text, file, checksum):
    """([ParsedDocument], [warning, ...]) for a GIFT file, or raise ContentError (ContentErrors
    with every broken question; SkippedItems when only questions are broken and others were read)."""
    if PLACEHOLDERS.search(text):
        line = text.count("\n", 0, PLACEHOLDERS.search(text).start()) + 1
        raise ContentError(file, line, "contains a private-use character (U+E000-U+E007), which GIFT files cannot hold")
    warnings, problems = [], Problems()
    # A broken question is skipped and the next block read: blocks stand on their own.
    questions, skipped = problems.items(_parse_question, _questions(text, file, problems, warnings))
    for number, question in enumerate(questions, start=1):
        question.key = f"q{number}"
    if not questions and not problems.found:
        raise ContentError(file, None, f"no question to import ({len(warnings)} skipped)")
    title, name = problems.collect(title_from_file_name, file), problems.collect(source_file_name, file)
    document = ParsedDocument(file, SourceDocument.Kind.QUIZ, title, name, checksum, questions, skipped=skipped)
    problems.raise_if_any([document], warnings)
    return [document], warnings


def _questions(text, file, problems, warnings):
    """Yield (_Block, topics, warnings) for each question's block. A broken `$CATEGORY:` line is
    the file's problem, not a question's: the questions after it would get the wrong topics."""
    topics = None
    for block in _blocks(text.split("\n")):
        block, category = problems.collect(_category, block, file) or (block[1:], None)
        if category is not None:
            topics = category
        if block:
            yield _Block(block, file), topics, warnings


def _blocks(lines):
    """Blank-line separated runs of [(line number, line)], without `//` comment lines."""
    block = []
    for number, line in enumerate(lines + [""], start=1):
        if not line.strip():
            if block:
                yield block
            block = []
        elif not line.strip().startswith("//"):
            block.append((number, line))


def _category(block, file):
    """(the block without its `$CATEGORY:` line, [topic] or [] for an empty category, or None)."""
    match = CATEGORY_LINE.match(block[0][1])
    if not match:
        return block, None
    path = CATEGORY_CONTEXT.sub("", _restore(_escaped(match.group(1).strip()))).strip("/ ")
    return block[1:], [check_topic(path, file, block[0][0])] if path else []


def _escaped(text):
    return ESCAPE.sub(lambda match: PLACEHOLDER_OF[match.group()], text)


def _restore(text):
    return PLACEHOLDERS.sub(lambda match: TEXT_OF[match.group()], text)


def _plain(text):
    """A text as the learner should read it: no markup prefix, escapes undone, trimmed."""
    return _restore(MARKUP_PREFIX.sub("", text, count=1)).strip()


class _Block:
    """One question's lines as one escaped text, with the line number of any offset in it."""

    def __init__(self, block, file):
        self.file, self.first_line = file, block[0][0]
        self.numbers = [number for number, _ in block]
        self.text = _escaped("\n".join(line for _, line in block))

    def line_at(self, offset):
        return self.numbers[self.text.count("\n", 0, offset)]

    def error(self, offset, message):
        return ContentError(self.file, self.line_at(offset), message)


def _parse_question(block, topics, warnings):
    """The ParsedQuestion of one block, or None (with a warning) for a kind the app cannot hold."""
    text, start = block.text, _name_end(block)
    opening, closing = text.find("{", start), text.find("}", start)
    if opening < 0 and closing < 0:
        return _skip(block, warnings, "text without an answer block {...} (a description) is not a question")
    if closing < 0:
        raise block.error(opening, "'{' is not closed by '}' (write \\{ for a brace in the text)")
    if opening < 0 or closing < opening:
        raise block.error(closing, "'}' without an opening '{' (write \\} for a brace in the text)")
    if "{" in text[opening + 1 : closing]:
        raise block.error(opening, "'{' is not closed by '}' (write \\{ for a brace in the text)")
    if (stray := re.search("[{}]", text[closing + 1 :])) is not None:
        raise block.error(closing + 1 + stray.start(), "a second answer block: a question has one {...}")
    before, after = text[start:opening], text[closing + 1 :]
    # An answer block inside the text is Moodle's "missing word" question: a blank takes its place.
    stem = _plain(before + "_____" + after if after.strip() else before)
    if not stem:
        raise block.error(start, "the question has no text before its answer block")
    check_text(stem, block.file, block.first_line, "the question")
    answers, general_feedback = _split_general_feedback(text[opening + 1 : closing])
    question = _answered_question(block, opening, stem, answers, general_feedback, topics, warnings)
    if question is not None and (prefix := MARKUP_PREFIX.match(before)):
        question.markup = MARKUP_OF_PREFIX.get(prefix.group(1).lower(), Markup.PLAIN)
    return question


def _name_end(block):
    """Where the question's text starts: after its `::name::`, if it has one."""
    text = block.text
    start = len(text) - len(text.lstrip())
    if not text.startswith("::", start):
        return start
    end = text.find("::", start + 2)
    if end < 0:
        raise block.error(start, "the question name is not closed: write '::name::' (or \\: for a colon)")
    return end + 2


def _split_general_feedback(answers):
    at = answers.rfind("####")
    return (answers, "") if at < 0 else (answers[:at], _plain(answers[at + 4 :]))


def _answered_question(block, opening, stem, answers, general_feedback, topics, warnings):
    content = answers.strip()
    if not content:
        return _skip(block, warnings, "essay questions are not supported")
    kind, partial_credit = QuestionKind.SINGLE, False
    if content.startswith("#"):
        choices, feedback = _numerical(block, opening, answers.strip()[1:])
        kind = QuestionKind.NUMERICAL
    elif "~" in content:
        choices, feedback = _multiple_choice(block, opening, answers, warnings)
        if choices is not None:
            kind, partial_credit = _kind_of(choices)
    elif "=" in content and "->" in content:
        choices, feedback = _matching(block, opening, answers), ""
        kind, partial_credit = QuestionKind.MATCHING, True  # Moodle's matching credits each right pair
    elif (verdict := content.split("#", 1)[0].strip()) in TRUE_FALSE:
        choices, feedback = _true_false(TRUE_FALSE[verdict], content)
        kind = QuestionKind.TRUE_FALSE
    else:
        choices, feedback = _short_answer(block, opening, answers)
        kind = QuestionKind.SHORT_ANSWER
    if choices is None:
        return None
    if kind != QuestionKind.MATCHING:  # a matching question's extra options have no item text
        check_choices(choices, block.file, block.line_at(opening), "the question")
    explanation = check_text(general_feedback or feedback, block.file, block.first_line, "the explanation")
    question = ParsedQuestion(
        "", stem, explanation, choices, block.first_line, topics, kind=kind, partial_credit=partial_credit
    )
    return check_question_kind(question, block.file)


def _kind_of(choices):
    """(kind, partial credit) of a multiple-choice block's (text, right, weight) answers."""
    if any(len(choice) > 2 for choice in choices):
        return QuestionKind.SELECT_ALL, True
    rights = sum(choice[1] for choice in choices)
    return (QuestionKind.CHOOSE, False) if rights > 1 else (QuestionKind.SINGLE, False)


def _multiple_choice(block, opening, answers, warnings):
    """([(text, right, weight or None)], the right answers' feedback), or (None, None) when skipped.
    Weights (`~%50%`) make Moodle's multiple-answer question: right means a positive weight."""
    offset = opening + 1
    marked = list(re.finditer(r"[=~]", answers))
    if answers[: marked[0].start()].strip():
        raise block.error(offset, "expected '=' or '~' before each answer")
    parsed, weighted = [], False
    for match, following in zip(marked, marked[1:] + [None]):
        body = answers[match.end() : following.start() if following else len(answers)]
        weight = None
        if (percent := WEIGHT.match(body)) is not None:
            weighted = True
            weight = parse_weight(percent.group(1), block.file, block.line_at(offset + match.start()), "an answer")
            body = body[percent.end() :]
        elif body.lstrip().startswith("%"):
            raise block.error(offset + match.start(), "a weight is written %50% (a percentage between two %)")
        text, _, feedback = body.partition("#")
        parsed.append([_plain(text), match.group() == "=", weight, _plain(feedback)])
    if len(parsed) < 2:
        raise block.error(offset, "a multiple-choice question needs at least 2 answers")
    if weighted:
        if any(right for _, right, _, _ in parsed):
            return _skip(block, warnings, "% weights beside a '=' answer (partial credit on a one-answer question) are not supported"), None
        for answer in parsed:  # Moodle: an answer without a weight weighs nothing
            answer[2] = answer[2] if answer[2] is not None else Decimal(0)
            answer[1] = answer[2] > 0
    rights = [answer for answer in parsed if answer[1]]
    if not rights:
        raise block.error(offset, "no right answer: mark the right one with '=' (or a positive %weight%)")
    feedback = " ".join(dict.fromkeys(answer[3] for answer in rights if answer[3]))  # each said once
    return [(text, right) if weight is None else (text, right, weight) for text, right, weight, _ in parsed], feedback


def _weighted_answers(block, offset, answers):
    """[(marker, credit or None, text, feedback)] of `=`/`~` answers with an optional `%50%`."""
    marked = list(re.finditer(r"[=~]", answers))
    if not marked or answers[: marked[0].start()].strip():
        raise block.error(offset, "expected '=' before each accepted answer")
    parsed = []
    for match, following in zip(marked, marked[1:] + [None]):
        body = answers[match.end() : following.start() if following else len(answers)]
        credit = None
        if (percent := WEIGHT.match(body)) is not None:
            credit = parse_weight(percent.group(1), block.file, block.line_at(offset + match.start()), "an answer")
            body = body[percent.end() :]
        text, _, feedback = body.partition("#")
        parsed.append((match.group(), credit, text, _plain(feedback)))
    return parsed


def _short_answer(block, opening, answers):
    """Accepted answers of a short-answer question `{=text =%50%other}`: (text, full?, credit)."""
    accepted = [
        (_plain(text), credit is None or credit >= 1, credit, feedback)
        for _, credit, text, feedback in _weighted_answers(block, opening + 1, answers)
    ]
    feedback = " ".join(dict.fromkeys(answer[3] for answer in accepted if answer[1] and answer[3]))
    return [(text, full, credit) if credit is not None else (text, full) for text, full, credit, _ in accepted], feedback


def _numerical(block, opening, spec):
    """Accepted values of a numerical question: `{#3.14:0.01}`, `{#1..5}`, `{#=2000:0 =%50%1990:10}`;
    `~` answers (Moodle's feedback for a wrong number) are dropped. Each is (value, full?, credit, tolerance)."""
    offset = opening + 2
    spec = spec if spec.lstrip().startswith(("=", "~")) else "=" + spec
    accepted = []
    for marker, credit, text, feedback in _weighted_answers(block, offset, spec):
        if marker == "~":
            continue
        value, tolerance = _number_and_tolerance(block, offset, text.strip())
        accepted.append((value, credit is None or credit >= 1, credit, tolerance, feedback))
    if not accepted:
        raise block.error(offset, "a numerical question needs at least one accepted value")
    feedback = " ".join(dict.fromkeys(answer[4] for answer in accepted if answer[1] and answer[4]))
    return [(value, full, credit, tolerance) for value, full, credit, tolerance, _ in accepted], feedback


def _number_and_tolerance(block, offset, text):
    """("3.14", Decimal tolerance) from `3.14:0.01`, `1..5` (the middle and half the width) or `3`."""
    low, dots, high = text.partition("..")
    value, colon, tolerance = text.partition(":")
    numbers = [parse_number(part) for part in ((low, high) if dots else (value, tolerance) if colon else (value,))]
    if any(number is None for number in numbers):
        raise block.error(offset, f"{shorten(text)!r} is not a number, a number:tolerance or a range min..max")
    return value_and_tolerance(numbers, is_range=bool(dots))


def _matching(block, opening, answers):
    """The pairs of `{=TCP -> transport =IP -> network = -> Chat}`: (item, True, None, None, option);
    `= -> Chat` is an extra option with no item (Moodle's)."""
    pairs = []
    for marker, credit, text, _ in _weighted_answers(block, opening + 1, answers):
        item, arrow, option = text.partition("->")
        if marker != "=" or not arrow or credit is not None:
            raise block.error(opening + 1, "a matching question's answers are '=item -> option'")
        item, option = _plain(item), _plain(option)
        if not option:
            raise block.error(opening + 1, f"the item {shorten(item)!r} has no option after '->'")
        pairs.append((item, bool(item), None, None, option))
    return pairs


def _true_false(is_true, content):
    """The True and False choices; Moodle writes `{T#feedback if wrong#feedback if right}`."""
    feedback_if_right = (content.split("#", 2) + ["", ""])[2]
    choices = [(TRUE_FALSE_TEXTS[0], is_true), (TRUE_FALSE_TEXTS[1], not is_true)]
    return choices, _plain(feedback_if_right)


def _skip(block, warnings, reason):
    """Record why a question is not imported; returns None, the question it stands for."""
    warnings.append(f"{block.file}:{block.first_line}: skipped: {reason}")


# Writing: every character the grammar gives a meaning is escaped, so a question is one line.
WRITTEN_ESCAPES = {"\\": "\\\\", ":": "\\:", "#": "\\#", "=": "\\=", "{": "\\{", "}": "\\}", "~": "\\~", "\n": "\\n"}
# Written before a text the parser would otherwise read as markup, a comment or a % weight;
# the parser drops the one prefix and keeps the text as written.
PLAIN_PREFIX = "[plain]"
TOP_CATEGORY = "$course$/top"


def write_gift(question_set):
    """A GIFT file of a set (export.py's plain data) that parse_gift reads back as it is.

    A question's one topic is its `$CATEGORY`; a question with several topics is written under
    none (GIFT has one category per question). The title is a comment: the parser takes the
    title from the file name. A text with U+E000-U+E007 (the parser's placeholders) raises
    ExportError."""
    blocks, category = [f"// {one_line(question_set['title'])}"], ""
    for question in question_set["questions"]:
        topics = question.get("topics") or []
        wanted = topics[0] if len(topics) == 1 else ""
        if wanted != category:
            blocks.append(f"$CATEGORY: {TOP_CATEGORY}/{_escape(wanted)}" if wanted else f"$CATEGORY: {TOP_CATEGORY}")
            category = wanted
        blocks.append(_gift_question(question))
    text = "\n\n".join(blocks) + "\n"
    if found := PLACEHOLDERS.search(text):
        raise ExportError(f"{shorten(one_line(text[text.rfind(chr(10), 0, found.start()) + 1 :]))!r} contains a "
                          "private-use character (U+E000-U+E007), which GIFT files cannot hold; export as JSON")
    return text


def _gift_question(question):
    choices, explanation = question["choices"], question["explanation"]
    kind = question.get("kind", QuestionKind.SINGLE)
    if kind == QuestionKind.SHORT_ANSWER:
        if question.get("case_sensitive"):
            raise ExportError(f"{shorten(one_line(question['stem']))!r} compares letter case, which GIFT cannot say; export as JSON")
        answers = " ".join(f"={_credit_prefix(choice)}{_gift_text(choice['text'])}" for choice in choices)
    elif kind == QuestionKind.NUMERICAL:
        values = [f"{_credit_prefix(choice)}{choice['text']}:{choice.get('tolerance') or 0}" for choice in choices]
        answers = f"#{values[0]}" if len(values) == 1 and not _credit_prefix(choices[0]) else "#" + " ".join(f"={value}" for value in values)
    elif kind == QuestionKind.MATCHING:
        for choice in choices:
            if "->" in choice["text"]:
                raise ExportError(f"{shorten(one_line(question['stem']))!r}: the item {shorten(choice['text'])!r} holds '->', "
                                  "which GIFT reads as the pair's arrow; export as JSON")
        answers = " ".join(f"={_gift_text(choice['text']) if choice['text'] else ''} -> {_gift_text(choice['match'])}" for choice in choices)
    elif kind == QuestionKind.TRUE_FALSE:
        answers = "TRUE" if choices[0]["correct"] else "FALSE"
    elif kind == QuestionKind.SELECT_ALL:
        if not question.get("partial_credit"):
            raise ExportError(f"{shorten(one_line(question['stem']))!r} is select all that apply without partial "
                              "credit, which GIFT cannot say (its weights always give partial credit); export as JSON")
        answers = " ".join(f"~%{percent}%" + _gift_text(choice["text"]) for choice, percent in zip(choices, percents(choices)))
    else:  # single answer, and choose N as several "="
        answers = " ".join(("=" if choice["correct"] else "~") + _gift_text(choice["text"]) for choice in choices)
    if explanation:
        answers += f" ####{_gift_text(explanation)}"
    # Markdown and HTML say so before the question text; its answers and feedback follow it.
    # The prefix also keeps a stem's own leading `[html]` as text, as [plain] does.
    markup = question.get("markup", Markup.PLAIN)
    stem = f"[{markup}]{_escape(question['stem'])}" if markup != Markup.PLAIN else _gift_text(question["stem"])
    return f"{stem} {{{answers}}}"


def _credit_prefix(choice):
    """`%50%` before an accepted answer worth less than full credit; nothing for full credit."""
    weight = choice.get("weight")
    return "" if weight is None or Decimal(str(weight)) >= 100 else f"%{weight}%"


def _gift_text(text):
    text = "\n".join(plain_lines(text))
    if MARKUP_PREFIX.match(text) or text.lstrip().startswith(("%", "//")):
        return PLAIN_PREFIX + _escape(text)
    return _escape(text)


def _escape(text):
    return "".join(WRITTEN_ESCAPES.get(char, char) for char in "\n".join(plain_lines(text)))
