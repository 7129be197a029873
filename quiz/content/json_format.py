"""Reading an export file (the JSON that export.py writes) into parsed documents.

One file may hold many sets and decks. JSON is parsed with a decoder that remembers the line
each object starts on, so every problem is still reported as `FILE:LINE`. Pure: no database.
"""

import bisect
import hashlib
import json
import json.decoder
import json.scanner
import re

from ..models import Markup, SourceDocument
from ..models.kinds import TYPED, QuestionKind, parse_number
from .documents import (
    CARD_PARTS,
    MAX_FILE_NAME,
    MAX_KEY,
    UNSTORABLE,
    ContentError,
    ParsedCard,
    ParsedDocument,
    ParsedQuestion,
    Problems,
    check_question_kind,
    check_text,
    check_title,
    check_topic,
    parse_weight,
    shorten,
)

# An export file nests six levels deep; far deeper is not an export and would exhaust the stack.
MAX_JSON_DEPTH = 32


class _Located(dict):
    """A JSON object that remembers the line it started on, for error messages."""

    line = 1


class _LocatingDecoder(json.JSONDecoder):
    # The pure-Python scanner lets us wrap object parsing; export files are small enough.
    def __init__(self, text):
        # No number is part of the format; a huge one must not hit int()'s digit limit.
        super().__init__(parse_int=lambda digits: int(digits) if len(digits) <= 1000 else float(digits))
        self.newlines = [match.start() for match in re.finditer("\n", text)]
        self.parse_object = self._parse_object
        self.scan_once = json.scanner.py_make_scanner(self)

    def _parse_object(self, s_and_end, *args, **kwargs):
        _, start = s_and_end
        value, end = json.decoder.JSONObject(s_and_end, *args, **kwargs)
        located = _Located(value)
        located.line = bisect.bisect_left(self.newlines, start) + 1
        return located, end


def parse_export(text, file):
    """[ParsedDocument, ...], one per set and deck of an export file, or raise ContentError
    (ContentErrors with every broken question, card, set or deck; SkippedItems when only
    questions and cards are broken and others were read)."""
    try:
        data = _LocatingDecoder(text).decode(text)
    except json.JSONDecodeError as error:
        raise ContentError(file, error.lineno, f"invalid JSON: {error.msg} (column {error.colno})") from error
    except RecursionError as error:
        message = f"JSON is nested more than {MAX_JSON_DEPTH} levels deep"
        raise ContentError(file, _too_deep_at(text), message) from error
    problems = Problems()
    _check_json_values(file, data, problems)
    if not isinstance(data, dict) or not ({"question_sets", "decks"} & data.keys()):
        problems.raise_if_any()
        raise ContentError(file, 1, "expected an object with 'question_sets' and/or 'decks'")
    # A broken question, card, set or deck is skipped and the next one read.
    entries = {name: _list(file, data, name, required=False) for name in ("question_sets", "decks")}
    sets = problems.each(_parse_set, [(file, entry, problems) for entry in entries["question_sets"]])
    decks = problems.each(_parse_deck, [(file, entry, problems) for entry in entries["decks"]])
    # Only a question's or a card's own problems leave the rest to import (SkippedItems): a
    # broken set or deck, a repeated key or an unstorable string refuses the file.
    problems.raise_if_any(sets + decks)
    return sets + decks


def _too_deep_at(text):
    """The line where brackets (outside strings) first nest deeper than MAX_JSON_DEPTH."""
    depth = 0
    for token in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', text):
        if token.group() in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return text.count("\n", 0, token.start()) + 1
        elif token.group() in "]}":
            depth -= 1
    return 1


def _check_json_values(file, data, problems):
    """Refuse nesting deeper than any export (at once) and strings no database can store (added
    to `problems`), by line.

    Done once over the whole document (without recursion) before anything reads it; a document
    with such a string is never returned, so the database never sees one.
    """
    stack = [(data, 1, 1)]
    while stack:
        value, depth, line = stack.pop()
        line = getattr(value, "line", line)
        if depth > MAX_JSON_DEPTH:
            raise ContentError(file, line, f"JSON is nested more than {MAX_JSON_DEPTH} levels deep")
        if isinstance(value, dict):
            stack.extend((item, depth + 1, line) for pair in value.items() for item in pair)
        elif isinstance(value, list):
            stack.extend((item, depth + 1, line) for item in value)
        elif isinstance(value, str) and (bad := UNSTORABLE.search(value)):
            what = "a NUL character" if bad.group() == "\x00" else "an unpaired surrogate (\\ud800-\\udfff)"
            problems.add(ContentError(file, line, f"a string contains {what}, which cannot be stored"))


def _parse_set(file, entry, problems):
    entry = _object(file, entry, data_line=1)
    questions, skipped = problems.items(_parse_question, [(file, item) for item in _list(file, entry, "questions")])
    _unique_keys(file, questions, problems)
    return _parsed_document(file, entry, SourceDocument.Kind.QUIZ, questions, skipped)


def _parse_question(file, item):
    item = _object(file, item)
    choices = [_object(file, choice) for choice in _list(file, item, "choices")]
    parsed = [_choice(file, choice) for choice in choices]
    if len(parsed) < 2 and item.get("kind") not in TYPED:  # a typed answer may have one accepted answer
        raise ContentError(file, item.line, "a question needs at least 2 choices")
    texts = [text for text, *_ in parsed if text]  # a matching question's extra options have no text
    if duplicate := next((text for index, text in enumerate(texts) if text in texts[:index]), None):
        raise ContentError(file, item.line, f"the choice {shorten(duplicate)!r} appears twice in one question")
    key = _key(file, item)
    stem, explanation = _text(file, item, "stem"), _text(file, item, "explanation", blank=True)
    kind = item.get("kind", QuestionKind.SINGLE)
    if kind not in QuestionKind.values:
        raise ContentError(file, item.line, f'"kind" must be one of: {", ".join(QuestionKind.values)}')
    partial_credit = _flag(file, item, "partial_credit") if "partial_credit" in item else False
    case_sensitive = _flag(file, item, "case_sensitive") if "case_sensitive" in item else False
    case_sensitive = case_sensitive and kind == QuestionKind.SHORT_ANSWER  # letter case is a short answer's only
    weighed = partial_credit or kind in TYPED  # a typed question's accepted answers weigh their credit
    if not weighed and any(len(choice) > 2 and choice[2] is not None for choice in parsed):
        raise ContentError(file, item.line, 'a choice has a "weight", which only a question with "partial_credit": true reads')
    if kind != QuestionKind.NUMERICAL and any(len(choice) == 4 for choice in parsed):
        raise ContentError(file, item.line, 'a choice has a "tolerance", which only a numerical question reads')
    question = ParsedQuestion(
        key, stem, explanation, parsed, item.line, _json_topics(file, item), kind=kind, partial_credit=partial_credit,
        case_sensitive=case_sensitive, markup=_markup(file, item),
    )
    return check_question_kind(question, file, f'question "{key}"')


def _choice(file, choice):
    """(text, correct), (text, correct, weight) for a choice with a "weight", and
    (text, correct, weight, tolerance) for a numerical answer with a "tolerance"."""
    text = _text(file, choice, "text", blank="match" in choice)  # a matching distractor has no item text
    correct, weight = _flag(file, choice, "correct"), _weight(file, choice)
    if "match" in choice:
        return (text, correct, weight, None, _text(file, choice, "match"))
    if choice.get("tolerance") is not None:
        return (text, correct, weight, _tolerance(file, choice))
    return (text, correct) if weight is None else (text, correct, weight)


def _tolerance(file, choice):
    value = choice["tolerance"]
    if isinstance(value, bool) or not isinstance(value, (int, float, str)) or parse_number(str(value)) is None:
        raise ContentError(file, choice.line, '"tolerance" must be a number, zero or more')
    return parse_number(str(value))


def _weight(file, choice):
    """A choice's "weight": a percentage of the question's mark (50, -33.33333), or None."""
    value = choice.get("weight")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ContentError(file, choice.line, '"weight" must be a percentage from -100 to 100')
    return parse_weight(str(value), file, choice.line, "a choice")


def _parse_deck(file, entry, problems):
    entry = _object(file, entry, data_line=1)
    cards, skipped = problems.items(_parse_card, [(file, item) for item in _list(file, entry, "cards")])
    _unique_keys(file, cards, problems)
    return _parsed_document(file, entry, SourceDocument.Kind.DECK, cards, skipped)


def _parse_card(file, item):
    item = _object(file, item)
    texts = [_text(file, item, name, blank=name in ("misconception", "correction")) for name in CARD_PARTS]
    return ParsedCard(_key(file, item), *texts, line=item.line, topics=_json_topics(file, item),
                      markup=_markup(file, item), cloze=_cloze(file, item))


def _markup(file, item):
    """"markup": how the item's texts are written ("plain" when absent, as before markup existed)."""
    markup = item.get("markup", Markup.PLAIN)
    if markup not in Markup.values:
        raise ContentError(file, item.line, f'"markup" must be one of: {", ".join(Markup.values)}')
    return markup


def _cloze(file, item):
    cloze = item.get("cloze")
    if cloze is not None and (isinstance(cloze, bool) or not isinstance(cloze, int) or not 1 <= cloze <= 500):
        raise ContentError(file, item.line, '"cloze" must be a whole number from 1 to 500')
    return cloze


def _json_topics(file, item):
    """The "topics" list, or None when the key is absent (the row then keeps its topics)."""
    if "topics" not in item:
        return None
    value = item["topics"]
    if not isinstance(value, list) or not all(isinstance(name, str) and name.strip() for name in value):
        raise ContentError(file, item.line, '"topics" must be a list of non-empty strings')
    names = []
    for name in value:
        name = check_topic(name.strip(), file, item.line)
        if name not in names:
            names.append(name)
    return names


def _parsed_document(file, entry, kind, items, skipped):
    source = entry.get("source")
    if source is not None and (not isinstance(source, str) or not source.strip()):
        raise ContentError(file, entry.line, '"source" must be a file name or null')
    if source is not None and len(source) > MAX_FILE_NAME:
        raise ContentError(file, entry.line, f'"source" is longer than {MAX_FILE_NAME} characters')
    title = check_title(_text(file, entry, "title"), file, entry.line)
    canonical = json.dumps(entry, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    # surrogatepass: an entry may still hold a lone surrogate, already a problem that stops
    # the import; for every other text it encodes as UTF-8 does.
    checksum = hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()
    return ParsedDocument(
        file, kind, title, source, checksum, items, checksum_of_source=False, keys_are_identities=True, skipped=skipped
    )


def _object(file, value, data_line=None):
    if not isinstance(value, _Located):
        raise ContentError(file, data_line or 1, f"expected a JSON object, found {json.dumps(value)[:40]}")
    return value


def _list(file, entry, name, required=True):
    value = entry.get(name, None if required else [])
    if not isinstance(value, list):
        raise ContentError(file, entry.line, f'"{name}" must be a list')
    return value


def _text(file, entry, name, blank=False):
    value = entry.get(name)
    if not isinstance(value, str) or not (blank or value.strip()):
        raise ContentError(file, entry.line, f'"{name}" must be a {"" if blank else "non-empty "}string')
    return check_text(value, file, entry.line, f'"{name}"')


def _flag(file, entry, name):
    if not isinstance(entry.get(name), bool):
        raise ContentError(file, entry.line, f'"{name}" must be true or false')
    return entry[name]


def _key(file, entry):
    key = _text(file, entry, "key")
    if len(key) > MAX_KEY:
        raise ContentError(file, entry.line, f'"key" is longer than {MAX_KEY} characters')
    return key


def _unique_keys(file, items, problems):
    seen = set()
    for item in items:
        if item.key in seen:
            problems.add(ContentError(file, item.line, f'key "{item.key}" appears twice in one set or deck'))
        seen.add(item.key)
