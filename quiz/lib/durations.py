"""How the app writes a length of time for a person. Three styles, each for one place:

* `short_interval`: the compact label on a rating button ("10m", "3h", "2d", "4mo", "1.5y"),
  as Anki writes it;
* `spoken_wait`: how long until something, rounded as a person says it ("12 min", "2 days");
* `clock_duration`: how long something took, exact to the second ("3 min 20 s").
"""


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
    seconds = int(delta.total_seconds())
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min {seconds} s"
    return f"{seconds} s"
