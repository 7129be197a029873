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
