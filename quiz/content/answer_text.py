"""How the line formats (the quiz document and CSV) write what a typed or matching question
accepts, one answer per line or cell, read and written here so both formats agree:

    NVLink            an accepted answer (full credit)
    NV* (50%)         an accepted answer worth half the mark
    3.14 ± 0.01       a number and its tolerance (also `3.14 +- 0.01`), `1..5` a range
    TCP -> Transport  a matching item and the option it pairs with; `-> Physical` an extra option

Pure: no database.
"""

import re
from decimal import Decimal

from ..models.kinds import QuestionKind, parse_number
from .documents import ContentError, ExportError, parse_weight, shorten, weight_text

CREDIT_AT_END = re.compile(r"\s*\(\s*([+-]?\d+(?:\.\d*)?)\s*%\s*\)$")
TOLERANCE_SIGNS = ("±", "+/-", "+-")
ARROW = "->"


def split_credit(text, file, line, what):
    """(the text without a `(50%)` at its end, the credit as a share, or None when none is written)."""
    match = CREDIT_AT_END.search(text)
    if match is None:
        return text, None
    return text[: match.start()].strip(), parse_weight(match.group(1), file, line, what)


def accepted_answer(text, credit, kind, file, line, what):
    """The parsed choice of one accepted answer, as the importers give it: (text, full credit?,
    credit share or None[, tolerance for a number])."""
    full = credit is None or credit >= 1
    credit = None if credit is not None and credit >= 1 else credit  # 100% is written as no credit
    if kind != QuestionKind.NUMERICAL:
        if not text:
            raise ContentError(file, line, f"{what}: an accepted answer has no text")
        return (text, full, credit)
    value, tolerance = _number_and_tolerance(text, file, line, what)
    return (value, full, credit, tolerance)


def _number_and_tolerance(text, file, line, what):
    """("3.14", Decimal tolerance) from `3.14 ± 0.01` (or `+-`, `+/-`), `1..5` (the middle and half
    the width), or `3.14`."""
    low, dots, high = text.partition("..")
    sign = next((sign for sign in TOLERANCE_SIGNS if sign in text), None)
    value, _, tolerance = text.partition(sign) if sign else (text, "", "")
    parts = (low, high) if dots else (value, tolerance) if sign else (value,)
    numbers = [parse_number(part) for part in parts]
    if any(number is None for number in numbers):
        raise ContentError(file, line, f"{what}: {shorten(text)!r} is not a number, a number ± tolerance "
                           "or a range min..max")
    return value_and_tolerance(numbers, is_range=bool(dots))


def value_and_tolerance(numbers, *, is_range):
    """("3.14", tolerance) from the numbers written: a range [low, high] is its middle and half its
    width; else [value] or [value, tolerance]. Shared with GIFT, which writes `3.14:0.01`."""
    if is_range:
        low, high = sorted(numbers)
        return f"{((low + high) / 2).normalize():f}", ((high - low) / 2).normalize()
    return f"{numbers[0].normalize():f}", abs(numbers[1]).normalize() if len(numbers) > 1 else Decimal(0)


def pair(text, file, line, what):
    """The parsed choice of `item -> option` (an item "" is an extra option): (item, True, None, None, option)."""
    item, arrow, option = text.partition(ARROW)
    item, option = item.strip(), option.strip()
    if not arrow:
        raise ContentError(file, line, f"{what}: a matching pair is written 'item {ARROW} option', "
                           f"found {shorten(text)!r}")
    if not option:
        raise ContentError(file, line, f"{what}: the item {shorten(item)!r} has no option after '{ARROW}'")
    return (item, bool(item), None, None, option)


# Writing ------------------------------------------------------------------------------------


def accepted_text(choice, kind, where):
    """One accepted answer of export.py's data as it is written: `NV* (50%)`, `3.14 ± 0.01`."""
    text = choice["text"]
    if kind == QuestionKind.NUMERICAL and choice.get("tolerance"):
        text = f"{text} ± {Decimal(str(choice['tolerance'])).normalize():f}"
    elif CREDIT_AT_END.search(text):
        raise ExportError(f"{where}: the accepted answer {shorten(text)!r} ends like a credit '(50%)'; export as JSON or GIFT")
    weight = choice.get("weight")
    return text if weight is None or Decimal(str(weight)) >= 100 else f"{text} ({weight_text(Decimal(str(weight)) / 100)}%)"


def pair_text(choice, where):
    """One pair of export.py's data as it is written: `TCP -> Transport`, `-> Physical` for an extra option."""
    if ARROW in choice["text"]:
        raise ExportError(f"{where}: the item {shorten(choice['text'])!r} holds '{ARROW}', which reads as the "
                          "pair's arrow; export as JSON")
    return f"{choice['text']} {ARROW} {choice['match']}".lstrip()
