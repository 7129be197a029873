"""The dashboard's charts: compact server-rendered SVG, with the same numbers as a table.

Pure functions of what `mastery` and `activity` computed: no queries. Each chart is drawn as a
few `<path>`s, one per colour (a bar or a heatmap cell is one `M…z` segment of its colour's
path), so the page carries a few kilobytes of geometry instead of hundreds of elements for the
template to render. Each chart also carries its values as one data attribute, which
`static/js/charts.js` reads to show a tooltip per bar or cell, and the rows its table
alternative lists, so screen readers and pages without JavaScript get every number.
"""

from datetime import timedelta

from django.utils.safestring import mark_safe

from .activity import HEATMAP_WEEKS, Day, first_heatmap_day
from .mastery import FORECAST_DAYS, RECENT_DAYS

CHART_WIDTH, CHART_HEIGHT = 600, 140
CELL = 11  # heatmap cell size with its gap
SQUARE = 9  # heatmap cell size drawn
LEVELS = 5  # heatmap shades: 0 (nothing) to 4 (the busiest days)


def _safe(parts):
    """Path data and value lists are built from numbers only: nothing to escape, and escaping
    their kilobytes was a third of the charts' rendering time."""
    return mark_safe("".join(parts))


def _bar(x, y, width, height):
    """One rectangle as a path segment (nothing for an empty bar)."""
    if height <= 0:
        return ""
    return f"M{x:g} {y:g}h{width:g}v{height:g}h{-width:g}z"


def _bars(heights, peak, days):
    """The x, width and (y, height) of each bar of a `days`-wide chart, in SVG units."""
    step = CHART_WIDTH / days
    for index, value in enumerate(heights):
        height = round(CHART_HEIGHT * value / peak, 1)
        yield round(index * step + 1, 1), round(step - 2, 1), round(CHART_HEIGHT - height, 1), height


def accuracy_chart(activity, today, days=RECENT_DAYS):
    dates = [today - timedelta(days=offset) for offset in range(days - 1, -1, -1)]
    rows = [activity.get(day) or Day(day) for day in dates]
    peak = max((row.answers for row in rows), default=0) or 1
    right, wrong = [], []
    # Right answers at the bottom of each bar, wrong ones stacked on top.
    for (x, width, _, total), row in zip(_bars([row.answers for row in rows], peak, days), rows):
        right_height = round(CHART_HEIGHT * row.correct / peak, 1)
        right.append(_bar(x, CHART_HEIGHT - right_height, width, right_height))
        wrong.append(_bar(x, CHART_HEIGHT - total, width, round(total - right_height, 1)))
    answers = sum(row.answers for row in rows)
    correct = sum(row.correct for row in rows)
    return {
        "right_path": _safe(right),
        "wrong_path": _safe(wrong),
        "first": dates[0],
        "values": _safe(",".join(f"{row.answers}/{row.correct}" for row in rows)),
        "rows": [row for row in rows if row.answers],
        "answers": answers,
        "accuracy": correct / answers if answers else None,
        "peak": peak if answers else 0,
        "days": days,
    }


def forecast_chart(summary, today, days=FORECAST_DAYS):
    counts = [summary.forecast.get(today + timedelta(days=offset), 0) for offset in range(days)]
    counts[0] += summary.due_now
    peak = max(counts) or 1
    week, later = [], []
    for offset, (x, width, y, height) in enumerate(_bars(counts, peak, days)):
        (week if offset < 7 else later).append(_bar(x, y, width, height))
    return {
        "week_path": _safe(week),
        "later_path": _safe(later),
        "first": today,
        "values": _safe(",".join(map(str, counts))),
        "rows": [{"date": today + timedelta(days=offset), "count": count} for offset, count in enumerate(counts)],
        "week_total": sum(counts[:7]),
        "month_total": sum(counts),
        "peak": max(counts),
        "days": days,
    }


def heatmap(activity, user, now, today):
    """53 weeks of days as columns from Monday to Sunday, shaded by how much was studied."""
    first = first_heatmap_day(user, now)
    peak = max((day.activity for day in activity.values()), default=0)
    shades = [[] for _ in range(LEVELS)]
    counts, months = [], {}
    for offset in range((today - first).days + 1):
        day = first + timedelta(days=offset)
        count = activity[day].activity if day in activity else 0
        level = 0 if not count else min(LEVELS - 1, 1 + (4 * count - 1) // max(peak, 1))
        x, y = (offset // 7) * CELL, (offset % 7) * CELL
        shades[level].append(f"M{x} {y}h{SQUARE}v{SQUARE}h-{SQUARE}z")
        counts.append(count)
        month = months.setdefault(day.replace(day=1), [0, 0])
        month[0] += count
        month[1] += bool(count)
    busiest = max(activity.values(), key=lambda d: (d.activity, d.date), default=None)
    in_range = [day for day in activity.values() if day.date >= first]
    return {
        "levels": [{"level": level, "path": _safe(cells)} for level, cells in enumerate(shades) if cells],
        "first": first,
        "values": _safe(",".join(map(str, counts))),
        "width": HEATMAP_WEEKS * CELL,
        "height": 7 * CELL,
        "cell": CELL,
        "total": sum(day.activity for day in in_range),
        "active_days": len(in_range),
        "busiest": busiest,
        "months": [{"month": month, "reviews": r, "days": d} for month, (r, d) in months.items()],
    }
