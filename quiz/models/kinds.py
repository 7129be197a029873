"""The kinds of question, and how an answer to each is graded. Pure: no database.

| kind        | the learner                 | credit                                                    |
|-------------|-----------------------------|-----------------------------------------------------------|
| single      | picks one                   | 1 for the right one, else 0                               |
| choose      | picks exactly N (told N)    | 1 when the N picks are the N right ones, else 0           |
| select_all  | picks any number (>= 1)     | all-or-nothing, or with partial credit the sum of the     |
|             |                             | picked choices' weights, kept within 0..1 (as Moodle's    |
|             |                             | multiple-answer question)                                 |
| true_false  | True or False               | 1 for the right one, else 0                               |
| short_answer| types text                  | the credit of the best accepted answer it matches: letter |
|             |                             | case ignored unless the question says otherwise, spaces   |
|             |                             | around and between words ignored, `*` a wildcard (Moodle) |
| numerical   | types a number              | the credit of the best accepted value it is within the    |
|             |                             | tolerance of (a range min..max is a value and tolerance)  |

A choice is given as a dict with `correct` (bool) and, under partial credit, `weight` (a
decimal string or None: the default +1/k for each right choice and -1/k for each wrong one,
k the number of right ones). Picks are 1-based numbers in the order the choices are given.
For the typed kinds the choices are the accepted answers: `text` (for a number, the value),
`weight` (its credit, None for full) and, for a number, `tolerance`.
"""

import re
from decimal import Decimal
from fractions import Fraction

from django.db import models

from quiz.lib.numbers import percent_of


class QuestionKind(models.TextChoices):
    SINGLE = "single", "Single answer"
    CHOOSE = "choose", "Choose N"
    SELECT_ALL = "select_all", "Select all that apply"
    TRUE_FALSE = "true_false", "True or false"
    SHORT_ANSWER = "short_answer", "Short answer (typed)"
    NUMERICAL = "numerical", "Number (typed)"
    MATCHING = "matching", "Matching"


# Kinds whose learner ticks several boxes; the others pick one.
SEVERAL_PICKS = {QuestionKind.CHOOSE, QuestionKind.SELECT_ALL}
# Kinds whose learner types the answer; their choices are the accepted answers, never shown.
TYPED = {QuestionKind.SHORT_ANSWER, QuestionKind.NUMERICAL}
# Kinds with partial credit to choose: select all (per-choice weights) and matching (per pair).
PARTIAL_CREDIT_KINDS = {QuestionKind.SELECT_ALL, QuestionKind.MATCHING}
MAX_TYPED = 500
TRUE_FALSE_TEXTS = ("True", "False")
# Weights are stored with 7 decimals as Moodle stores them: 1/3 is 0.3333333, and three of them must
# still make full credit.
FULL_CREDIT_TOLERANCE = Fraction(1, 10_000)
CREDIT_PLACES = Decimal("0.0001")
NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}


def right_count(choices):
    return sum(1 for choice in choices if choice["correct"])


def weights_of(choices):
    """Each choice's weight as a Fraction: its own, or the default +1/k (right) and -1/k (wrong)."""
    k = right_count(choices) or 1
    return [
        Fraction(str(choice["weight"])) if choice.get("weight") not in (None, "")
        else Fraction(1 if choice["correct"] else -1, k)
        for choice in choices
    ]


def credit_for(kind, choices, picks, *, partial_credit=False):
    """The share of the question's mark (a Decimal from 0 to 1, four places) that `picks` earn."""
    picked = set(picks)
    if kind == QuestionKind.SELECT_ALL and partial_credit:
        earned = sum((weight for number, weight in enumerate(weights_of(choices), start=1) if number in picked), Fraction(0))
        if earned >= 1 - FULL_CREDIT_TOLERANCE:
            return Decimal(1)
        earned = max(earned, Fraction(0))
        return (Decimal(earned.numerator) / Decimal(earned.denominator)).quantize(CREDIT_PLACES)
    right = {number for number, choice in enumerate(choices, start=1) if choice["correct"]}
    return Decimal(1) if picked == right else Decimal(0)


def is_full_credit(credit):
    return credit is not None and Decimal(credit) >= 1


def verdict(credit):
    """An answer's correctness in a download: yes (full credit), no, or "partly 50%"."""
    if credit >= 1:
        return "yes"
    return f"partly {percent_of(credit)}%" if credit > 0 else "no"


def pick_instruction(kind, choices):
    """What the page tells the learner to do: "Choose two." (the exam's words), or "Select all
    that apply."; None for a single pick. The count a choose-N stem states is all it says."""
    if kind == QuestionKind.CHOOSE:
        n = right_count(choices)
        return f"Choose {NUMBER_WORDS.get(n, n)}."
    if kind == QuestionKind.SELECT_ALL:
        return "Select all that apply."
    return None


def picks_problem(kind, choices, picks, options=None):
    """Why `picks` are no answer to this question (a message for the learner), or None. For a
    matching question `picks` are the option picked for each item and `options` those shown."""
    if kind == QuestionKind.MATCHING:
        items = items_of(choices)
        if len(picks) != len(items) or not all(1 <= pick <= len(options or []) for pick in picks):
            return "Pick an option for every item."
        return None
    count = len(set(picks))
    if kind in SEVERAL_PICKS:
        if kind == QuestionKind.CHOOSE and count != (n := right_count(choices)):
            return f"Choose exactly {NUMBER_WORDS.get(n, n)} of the choices (you picked {count})."
        if count == 0:
            return "Pick at least one of the choices."
        return None
    return None if count == 1 else "Pick one of the choices."


def as_choice(choice):
    """A (text, correct[, weight[, tolerance]]) tuple, as the parsers give choices, as a dict; a dict as it is."""
    if isinstance(choice, dict):
        return choice
    return {
        "text": choice[0], "correct": choice[1], "weight": choice[2] if len(choice) > 2 else None,
        "tolerance": choice[3] if len(choice) > 3 else None, "match": choice[4] if len(choice) > 4 else "",
    }


def kind_problem(kind, choices, *, partial_credit=False):
    """What makes these choices ((text, correct) pairs or dicts) wrong for the kind, or None:
    the rule the importers and the editor share."""
    rows = [as_choice(c) for c in choices]
    rights = right_count(rows)
    if kind not in QuestionKind.values:
        return f"unknown question kind {kind!r} (one of: {', '.join(QuestionKind.values)})"
    if partial_credit and kind not in PARTIAL_CREDIT_KINDS:
        return "partial credit is for select-all-that-apply and matching questions only"
    if kind in TYPED:
        return accepted_problem(kind, rows)
    if kind == QuestionKind.MATCHING:
        return matching_problem(rows)
    if kind == QuestionKind.TRUE_FALSE:
        if [row["text"] for row in rows] != list(TRUE_FALSE_TEXTS) or rights != 1:
            return "a true/false question has the two choices True and False, one of them right"
        return None
    if len(rows) < 2:
        return f"needs at least 2 choices, has {len(rows)}"
    if kind == QuestionKind.SINGLE and rights != 1:
        return "a single-answer question has exactly one right choice" + (f" (this one has {rights})" if rights else "")
    if kind == QuestionKind.CHOOSE and not 2 <= rights < len(rows):
        return "a choose-N question has at least 2 right choices and at least one wrong one"
    if kind == QuestionKind.SELECT_ALL and rights < 1:
        return "a select-all-that-apply question has at least one right choice"
    if partial_credit:
        weights = weights_of(rows)
        if any(not -1 <= weight <= 1 for weight in weights):
            return "a choice's weight is between -100% and 100%"
        if sum(w for w in weights if w > 0) < 1 - FULL_CREDIT_TOLERANCE:
            return "the right choices' weights add up to less than 100%, so no answer could earn full credit"
        if any((w > 0) != row["correct"] for w, row in zip(weights, rows)):
            return "a right choice has a positive weight and a wrong one a zero or negative weight"
    return None


# --- Typed answers -----------------------------------------------------------------------------

def normalized(text, case_sensitive=False):
    """A typed text as it is compared: spaces around and between words collapsed, and letter
    case folded unless the question says it matters."""
    text = " ".join(text.split())
    return text if case_sensitive else text.casefold()


def text_matches(accepted, typed, case_sensitive=False):
    """Does `typed` match the accepted answer? `*` in it stands for any text (Moodle's wildcard)."""
    accepted, typed = normalized(accepted, case_sensitive), normalized(typed, case_sensitive)
    if "*" not in accepted:
        return accepted == typed
    return re.fullmatch(".*".join(re.escape(part) for part in accepted.split("*")), typed, re.DOTALL) is not None


def parse_number(text):
    """The number a learner typed, as a Decimal, or None: spaces ignored, a lone comma read as
    the decimal point ("3,14"), a leading + allowed; no exponents, nothing infinite."""
    text = "".join(text.split())
    if text.count(",") == 1 and "." not in text:
        text = text.replace(",", ".")
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)", text):
        return None
    return Decimal(text)


def credit_of(answer):
    """An accepted answer's credit as a Decimal share: its own weight, or full."""
    return Decimal(1) if answer.get("weight") in (None, "") else Decimal(str(answer["weight"]))


def typed_credit(kind, answers, typed, *, case_sensitive=False):
    """(credit from 0 to 1, the 1-based number of the accepted answer it earned it from, or None)."""
    best, matched = Decimal(0), None
    number = parse_number(typed) if kind == QuestionKind.NUMERICAL else None
    for index, answer in enumerate(answers, start=1):
        if kind == QuestionKind.NUMERICAL:
            tolerance = Decimal(str(answer.get("tolerance") or 0))
            hit = number is not None and abs(number - Decimal(str(answer["text"]))) <= tolerance
        else:
            hit = text_matches(answer["text"], typed, case_sensitive)
        if hit and (matched is None or credit_of(answer) > best):
            best, matched = credit_of(answer), index
    return best.quantize(CREDIT_PLACES) if best < 1 else Decimal(1), matched


def typed_problem(kind, typed):
    """Why `typed` is no answer (a message for the learner), or None."""
    if not typed.strip():
        return "Type your answer."
    if len(typed) > MAX_TYPED:
        return f"Keep the answer under {MAX_TYPED} characters."
    if kind == QuestionKind.NUMERICAL and parse_number(typed) is None:
        return "Type a number, such as 42 or 3.14."
    return None


# Choice.tolerance's DecimalField(max_digits=20, decimal_places=10): digits before and after the point.
TOLERANCE_DIGITS = (10, 10)


def _fits(number):
    """Whether a tolerance is stored as it is: no more digits than the column holds (a bigger one
    cannot be written on PostgreSQL nor read back on SQLite; a finer one would be rounded away)."""
    if not number.is_finite():
        return False
    sign, digits, exponent = number.normalize().as_tuple()
    after = max(-exponent, 0)
    before = max(len(digits) + exponent, 0) if number else 0
    return before <= TOLERANCE_DIGITS[0] and after <= TOLERANCE_DIGITS[1]


def accepted_problem(kind, answers):
    """What makes these accepted answers wrong for a typed kind, or None (see kind_problem)."""
    if not answers:
        return "needs at least one accepted answer"
    for answer in answers:
        credit = credit_of(answer)
        if not 0 <= credit <= 1:
            return "an accepted answer's credit is between 0% and 100%"
        if kind == QuestionKind.NUMERICAL:
            if parse_number(str(answer["text"])) is None:
                return f"the accepted value {answer['text']!r} is not a number"
            tolerance = Decimal(str(answer.get("tolerance") or 0))
            if tolerance < 0:
                return "a tolerance is zero or more"
            if not _fits(tolerance):
                return (f"the tolerance {answer.get('tolerance')} does not fit: at most {TOLERANCE_DIGITS[0]} digits "
                        f"before the point and {TOLERANCE_DIGITS[1]} after")
    if not any(credit_of(answer) >= 1 for answer in answers):
        return "no accepted answer gives full credit (100%)"
    return None


# --- Matching ------------------------------------------------------------------------------------
# A matching question's choices are its items (`text`) with the option each pairs with (`match`);
# a choice without text is an extra option that pairs with nothing (a distractor, Moodle's `= -> x`).


def items_of(choices):
    return [choice for choice in choices if choice["text"]]


def options_of(choices):
    """Every option once, in the order first given (a slot shuffles them; review due sorts them)."""
    return list(dict.fromkeys(choice["match"] for choice in choices))


def matching_credit(items, options, picks, *, partial_credit=True):
    """Credit for `picks` (the 1-based option picked for each item, in the items' order): the share
    of right pairs under partial credit (Moodle's), else 1 only when every pair is right."""
    right = sum(1 for item, pick in zip(items, picks) if options[pick - 1] == item["match"])
    if right == len(items):
        return Decimal(1)
    return (Decimal(right) / Decimal(len(items))).quantize(CREDIT_PLACES) if partial_credit else Decimal(0)


def matching_problem(rows):
    items = items_of(rows)
    if len(items) < 2:
        return "a matching question pairs at least 2 items with their options"
    if any(not row.get("match") for row in rows):
        return "every item of a matching question needs the option it pairs with"
    if len({item["text"] for item in items}) < len(items):
        return "two items of a matching question have the same text"
    return None
