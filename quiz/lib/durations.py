"""How the app writes a length of time for a person. Three styles, each for one place:

* `short_interval`: the compact label on a rating button ("10m", "3h", "2d", "4mo", "1.5y"),
  as Anki writes it;
* `spoken_wait`: how long until something, rounded as a person says it ("12 min", "2 days");
* `clock_duration`: how long something lasts or took, to the second below an hour ("3 min 20 s",
  "15 min", "1 h 30 min", "2 days 23 h"). Every timer, time limit and countdown writes it so,
  and app.js's countdown mirrors it: a colon is kept for clock times ("at 17:56"), so "38:11
  left" beside "at 17:56" can never be read as a time of day.
"""

from datetime import timedelta


def short_interval(delta):
    minutes = max(round(delta.total_seconds() / 60), 1)
    if minutes < 60:
        return f"{minutes}m"
    hours = round(minutes / 60)
    if hours < 24:
        return f"{hours}h"
    days = round(minutes / 1440)
    if days < 31:
        return f"{days}d"
    if days < 365:
        return f"{round(days / 30.4)}mo"
    return f"{days / 365:.1f}".rstrip("0").rstrip(".") + "y"


def spoken_wait(delta):
    if delta is None:
        return ""
    minutes = max(round(delta.total_seconds() / 60), 1)
    if minutes < 60:
        return f"{minutes} min"
    hours = round(minutes / 60)
    if hours < 48:
        return f"{hours} h"
    return f"{round(hours / 24)} days"


def clock_duration(delta):
    if delta is None:
        return ""
    seconds = max(int(delta.total_seconds()), 0)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours >= 48:
        return _two_units(f"{hours // 24} days", hours % 24, "h")
    if hours:
        return _two_units(f"{hours} h", minutes, "min")
    if minutes:
        return _two_units(f"{minutes} min", seconds, "s")
    return f"{seconds} s"


def _two_units(larger, smaller, unit):
    # A round limit reads "15 min", not "15 min 0 s"; a countdown passing a round figure too.
    return f"{larger} {smaller} {unit}" if smaller else larger


def minutes_duration(minutes):
    """A whole number of minutes (a mock exam's time limit) as `clock_duration` writes it."""
    return "" if minutes is None else clock_duration(timedelta(minutes=minutes))


# A countdown turns red for the last tenth of the time allowed, but never for more than the
# last five minutes: a tenth keeps a 10-minute quiz from going red at half time, and five
# minutes (time to look over flagged questions and submit) keeps a 3-hour exam from shouting
# for its last 18 minutes, when a red that comes too early teaches people to ignore it.
CLOSING_SHARE = 10
CLOSING_AT_MOST = timedelta(minutes=5)


def closing_stretch(limit):
    """How long before the deadline a countdown of `limit` (a timedelta) turns red."""
    return min(limit / CLOSING_SHARE, CLOSING_AT_MOST)
