"""Where a learner's calendar day begins, as an instant, even on a daylight-saving change day.

`datetime.combine(day, time.min, tzinfo=zone)` is not enough: when midnight repeats (clocks go
back over it) the day starts at the first midnight, and `fold` decides which one Python means;
when midnight is skipped (clocks jump over it, e.g. America/Havana each March) there is no
midnight at all, and the day starts at the jump.
"""

from datetime import UTC, datetime, time, timedelta

from django.utils import timezone
from django.utils.dateformat import format as date_format


def start_of_day(day, zone):
    """The first instant whose local date in `zone` is `day`, in UTC: a local datetime inside a
    repeated hour never compares equal to one in another zone (PEP 495), a trap for callers."""
    midnight = datetime.combine(day, time.min)
    readings = [midnight.replace(tzinfo=zone, fold=fold).astimezone(UTC) for fold in (0, 1)]
    real = [moment for moment in readings if _wall_time(moment, zone) == midnight]
    if real:
        return min(real)  # a repeated midnight: the first of the two
    return _first_moment_of(day, zone, min(readings), max(readings))


def _wall_time(moment, zone):
    return moment.astimezone(zone).replace(tzinfo=None)


def _first_moment_of(day, zone, low, high):
    """Midnight is skipped: the day starts somewhere in the gap between the two readings of
    midnight (the jump). Found to the second by halving; a gap is at most a few hours."""
    low -= timedelta(seconds=1)
    while high - low > timedelta(seconds=1):
        middle = low + (high - low) / 2
        middle = middle.replace(microsecond=0)
        if middle.astimezone(zone).date() >= day:
            high = middle
        else:
            low = middle
    return high


def moment_text(moment, now=None):
    """When `moment` is, as a person reads it in the active time zone: "at 14:30" on the same
    day as `now`, "on Thu 3 Dec at 14:30" on another day of the year, with the year beyond it.
    A deadline days away (a timed attempt that closes at its assignment's due date) said only
    its time, as if it were today."""
    local, today = timezone.localtime(moment), timezone.localtime(now).date()
    clock = date_format(local, "H:i")
    if local.date() == today:
        return f"at {clock}"
    day = date_format(local, "D j M" if local.year == today.year else "D j M Y")
    return f"on {day} at {clock}"
