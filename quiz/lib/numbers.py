"""Percentages as people round them: half up (5/8 is 63%, 1/8 is 13%), the same everywhere.
Python's round() rounds half to even (round(12.5) is 12), which is not how a score is read."""

from decimal import ROUND_HALF_UP, Decimal


def percent_of(share):
    """A share (0 to 1) as a whole percentage, rounded half up; None stays None."""
    if share is None:
        return None
    return int((Decimal(str(share)) * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def percent(numerator, denominator):
    """numerator/denominator as a whole percentage, rounded half up; None when there is nothing to divide."""
    if not denominator:
        return None
    return int((Decimal(numerator) * 100 / Decimal(denominator)).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def points(value):
    """A score in points as people write it: 3, 2.5, 1.33 (two places at most, no trailing zeros)."""
    if value is None:
        return None
    text = f"{Decimal(value):.2f}".rstrip("0").rstrip(".")
    return Decimal(text)
