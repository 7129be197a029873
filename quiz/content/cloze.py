"""Anki's cloze deletions: `{{c1::answer}}`, `{{c1::answer::hint}}`, read as Anki reads them.

A cloze note's text carries numbered deletions, and each number is one card (one study item, with
its own memory): card N shows the text with deletion N as a blank (`[...]`, or `[hint]` when the
deletion has one) and every other deletion as its answer; its back shows deletion N revealed and
marked. As in Anki (rslib/src/cloze.rs): a deletion may hold others (`{{c1::a {{c2::b}} c}}`:
card 1 blanks all of it, card 2 only `b`), may belong to several cards (`{{c1,2::answer}}`), and
its hint is what follows the first `::` in its last stretch of text.

Never raises: a marker that does not open or close a deletion (`{{c1::` left open, a stray `}}`,
`{{c0::x}}`, a number above MAX_NUMBER) is shown as written, and deletions nested deeper than
MAX_DEPTH are read as text, so a hostile text cannot exhaust the recursion limit.

The text keeps its markup (plain, Markdown, HTML): these functions only replace the markers, so
the caller renders and sanitises the result as it does the card's text. `cloze_back` marks the
revealed answer with HTML (`<mark class="cloze">`); for a plain-text card, escape the text first
(`cloze_back(html.escape(text), n)`) and render the result as HTML. Pure: no database.
"""

import dataclasses
import re
from dataclasses import dataclass, field

from .documents import MAX_ITEMS, MAX_KEY, ContentError

# Deletions a card may be numbered with: the cloze column's range (json_format._cloze).
MAX_NUMBER = 500
MAX_DEPTH = 50
BLANK = "[...]"
MARK = ('<mark class="cloze">', "</mark>")
TOKEN = re.compile(r"\{\{c(\d+(?:,\d+)*)::|\}\}")


@dataclass
class _Deletion:
    numbers: frozenset
    opening: str  # the marker as written, for a deletion never closed
    parts: list = field(default_factory=list)  # text (str) and deletions, in order
    hint: str | None = None


def cloze_numbers(text):
    """The card numbers the text's deletions ask, sorted: [1, 2] for `{{c1::a}} {{c2::b}}`."""
    numbers, pending = set(), list(_parse(text or ""))
    while pending:
        part = pending.pop()
        if isinstance(part, _Deletion):
            numbers |= part.numbers
            pending.extend(part.parts)
    return sorted(numbers)


def cloze_front(text, number):
    """The question side of card `number`: its deletions blank (`[...]` or `[hint]`), the others
    shown as their answers."""
    return _render(_parse(text or ""), number, front=True)


def cloze_back(text, number, mark=MARK):
    """The answer side of card `number`: its deletions shown and wrapped in `mark` (an opening and
    a closing string), the others shown as their answers; hints are left out."""
    return _render(_parse(text or ""), number, front=False, mark=mark)


def expand_cloze_cards(card):
    """[ParsedCard]: a card whose front has deletions as one card per number (key `KEY-cN`, cloze
    N, the same texts), any other card (or one that already names its number) as itself."""
    if card.cloze is not None:
        return [card]
    numbers = cloze_numbers(card.front)
    if not numbers:
        return [card]
    return [dataclasses.replace(card, key=_numbered_key(card.key, number), cloze=number) for number in numbers]


def expand_cloze_items(cards, file, skipped=()):
    """(cards, skipped) of a text document's cards (a deck document's, a CSV's) with each cloze
    card as one card per number, and the places of its skipped cards (ParsedDocument.skipped)
    counted among the cards as expanded, so positions() stays each card's place. A file whose
    cards would be more than MAX_ITEMS is refused here, before they are all made."""
    expanded, places, skipped = [], [], set(skipped)
    remaining = iter(cards)
    for place in range(1, len(cards) + len(skipped) + 1):
        if place in skipped:
            places.append(len(expanded) + len(places) + 1)
            continue
        card = next(remaining)
        expanded.extend(expand_cloze_cards(card))
        if len(expanded) > MAX_ITEMS:
            raise ContentError(file, card.line, f"more than {MAX_ITEMS} cards once each cloze number is a card; "
                               f"at most {MAX_ITEMS} can be imported at once")
    return expanded, places


def cloze_notes(cards):
    """Export data's cards (dicts) as a deck document or CSV writes them: each cloze note once
    (its first card), since reading it back makes its cards again, one per number. A note some
    of whose cards were removed is written with only its cards' deletions (the others' answers
    as plain text), so reading it back does not bring them back. Two notes of the same text are
    one note in a text file: that is what the format can hold (docs/formats.md)."""
    numbers = {}
    for card in cards:
        if card.get("cloze") is not None:
            numbers.setdefault((card["front"], card["back"], card.get("markup")), set()).add(card["cloze"])
    notes, seen = [], set()
    for card in cards:
        if card.get("cloze") is not None:
            note = (card["front"], card["back"], card.get("markup"))
            if note in seen:
                continue
            seen.add(note)
            card = {**card, "front": keeping_numbers(card["front"], numbers[note])}
        notes.append(card)
    return notes


def keeping_numbers(text, numbers):
    """`text` with only the deletions of `numbers` (the others' answers left as plain text); the
    text itself when it has no other deletion."""
    if set(cloze_numbers(text)) <= set(numbers):
        return text
    return _written(_parse(text), frozenset(numbers))


def _written(parts, keep):
    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
            continue
        inner = _written(part.parts, keep)
        kept = sorted(part.numbers & keep)
        if not kept:
            out.append(inner)
            continue
        hint = "" if part.hint is None else f"::{part.hint}"
        out.append(f"{{{{c{','.join(map(str, kept))}::{inner}{hint}}}}}")
    return "".join(out)


def _numbered_key(key, number):
    suffix = f"-c{number}"
    return key[: MAX_KEY - len(suffix)] + suffix


def _parse(text):
    """The text as a list of strings and _Deletions (holding the same)."""
    root, open_deletions = [], []
    position = 0
    for token in TOKEN.finditer(text):
        inside = open_deletions[-1].parts if open_deletions else root
        if token.start() > position:
            inside.append(text[position : token.start()])
        position = token.end()
        if token.group(1) is not None:
            # A number of thousands of digits is text, not a card's number (and int() refuses it).
            digits = token.group(1).split(",")
            numbers = frozenset(int(d) for d in digits) if all(len(d) <= 4 for d in digits) else frozenset({0})
            if len(open_deletions) < MAX_DEPTH and all(1 <= number <= MAX_NUMBER for number in numbers):
                open_deletions.append(_Deletion(numbers, token.group(0)))
            else:
                inside.append(token.group(0))
        elif open_deletions:
            deletion = open_deletions.pop()
            _split_hint(deletion)
            (open_deletions[-1].parts if open_deletions else root).append(deletion)
        else:
            inside.append(token.group(0))  # a `}}` that closes nothing
    (open_deletions[-1].parts if open_deletions else root).append(text[position:])
    while open_deletions:  # never closed: its marker was text after all
        deletion = open_deletions.pop()
        (open_deletions[-1].parts if open_deletions else root).extend([deletion.opening, *deletion.parts])
    return root


def _split_hint(deletion):
    if deletion.parts and isinstance(deletion.parts[-1], str) and "::" in deletion.parts[-1]:
        answer, hint = deletion.parts[-1].split("::", 1)
        deletion.parts[-1] = answer
        deletion.hint = hint.strip() or None


def _render(parts, number, *, front, mark=MARK):
    out = []
    for part in parts:
        if isinstance(part, str):
            out.append(part)
        elif number in part.numbers and front:
            out.append(BLANK if part.hint is None else f"[{part.hint}]")
        elif number in part.numbers:
            out.append(mark[0] + _render(part.parts, number, front=front, mark=mark) + mark[1])
        else:
            out.append(_render(part.parts, number, front=front, mark=mark))
    return "".join(out)
