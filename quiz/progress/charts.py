"""The dashboard's charts: compact server-rendered SVG, with the same numbers as a table.

Pure functions of what `mastery` and `activity` computed: no queries. Bars are drawn as a few
`<path>`s, one per colour (a bar is one `M…z` segment of its colour's path), and the heatmap's
empty days as one path, so the page carries a few kilobytes of geometry instead of hundreds of
elements for the template to render. What makes a chart readable is drawn too: a y-axis with a
round scale, dates under the bars, a legend, month and weekday labels on the heatmap, and a
`<title>` per bar and per heatmap week, the tooltip a browser shows without JavaScript.

Each chart also carries its values as one data attribute, which `static/js/charts.js` reads to
show a tooltip anywhere on it (empty heatmap days too), and the rows its table alternative
lists, so screen readers and pages without JavaScript get every number. The markup built here
holds numbers, dates and fixed words only: nothing a user typed.
"""

from datetime import timedelta

from django.utils.dateformat import format as format_date
from django.utils.safestring import mark_safe

from .activity import HEATMAP_WEEKS, Day, first_heatmap_day
from .mastery import FORECAST_DAYS, RECENT_DAYS

# Bar charts: a plot area with room on the left for the y-axis numbers, above for the legend
# and below for the dates.
CHART_WIDTH = 600
PLOT_LEFT, PLOT_TOP = 44, 34
PLOT_WIDTH, PLOT_HEIGHT = CHART_WIDTH - PLOT_LEFT - 6, 130
CHART_HEIGHT = PLOT_TOP + PLOT_HEIGHT + 30
DATE_EVERY = 7  # a date under every seventh bar, today's included

# The heatmap: weekday names on the left, month names above, the legend below.
CELL = 11  # heatmap cell size with its gap
SQUARE = 9  # heatmap cell size drawn
HEAT_LEFT, HEAT_TOP = 28, 14
LEVELS = 5  # heatmap shades: 0 (nothing) to 4 (the busiest days)


def _safe(parts):
    """Path data and value lists are built from numbers only: nothing to escape, and escaping
    their kilobytes was a third of the charts' rendering time."""
    return mark_safe("".join(parts))


def _day(day):
    """A day as a bar's tooltip names it: "Mon 13 Jan" (the chart's description gives the year)."""
    return format_date(day, "D j M")


def _bar(x, y, width, height):
    """One rectangle as a path segment (nothing for an empty bar)."""
    if height <= 0:
        return ""
    return f"M{x:g} {y:g}h{width:g}v{height:g}h{-width:g}z"


def _round_steps():
    """1, 2, 5, 10, 20, 50, ...: the steps an axis is read in."""
    magnitude = 1
    while True:
        for step in (1, 2, 5):
            yield step * magnitude
        magnitude *= 10


def scale(peak):
    """A round top for the y-axis at or above `peak`, and its ticks: 0 and up to four even steps."""
    step = next(step for step in _round_steps() if step * 4 >= peak)
    top = max(step, -(-peak // step) * step)
    return top, list(range(0, top + 1, step))


def _y(value, top):
    """The SVG y of `value` on a y-axis going from 0 (bottom of the plot) to `top`."""
    return round(PLOT_TOP + PLOT_HEIGHT - PLOT_HEIGHT * value / top, 1)


def _axes(ticks, top, dates, labelled, unit):
    """The y-axis (grid lines and numbers), the unit above it and the dates under the bars."""
    step = PLOT_WIDTH / len(dates)
    grid = "".join(f"M{PLOT_LEFT} {_y(t, top)}h{PLOT_WIDTH}" for t in ticks)
    parts = [f'<path class="grid" d="{grid}"/>', f'<text class="axis-unit" x="2" y="18">{unit}</text>']
    parts += [f'<text class="y-label" x="{PLOT_LEFT - 6}" y="{_y(t, top) + 4}" text-anchor="end">{t}</text>' for t in ticks]
    baseline = PLOT_TOP + PLOT_HEIGHT + 22
    for index in labelled:
        # Centred under its bar, but never past either edge of the chart.
        x, anchor = round(PLOT_LEFT + (index + 0.5) * step, 1), "middle"
        if index < 3:
            x, anchor = round(PLOT_LEFT + index * step, 1), "start"
        elif index >= len(dates) - 3:
            x, anchor = round(PLOT_LEFT + (index + 1) * step, 1), "end"
        parts.append(f'<text class="x-label" x="{x}" y="{baseline}" text-anchor="{anchor}">{format_date(dates[index], "j M")}</text>')
    return parts


def _legend(entries):
    """Colour keys at the top right: [(css class, label)], laid out from the right edge."""
    parts, x = [], CHART_WIDTH - 4
    for css, label in reversed(entries):
        x -= 14 * len(label)  # room for the label at the larger font used on phones
        parts.append(f'<rect class="{css}" x="{x - 14}" y="8" width="10" height="10"/><text x="{x}" y="18">{label}</text>')
        x -= 26
    return ['<g class="legend">', *reversed(parts), "</g>"]


# The group of hover targets, transparent in the markup itself: SVG's default fill is black, and
# when this hung on a stylesheet rule that named only the bar charts, the heatmap's week columns
# painted the whole year black. Transparent, not "none": a shape with no fill gets no hover.
HITS = '<g class="hits" fill="transparent">'


def _hits(titles):
    """One invisible full-height rectangle per bar, carrying its tooltip as a `<title>`."""
    step = PLOT_WIDTH / len(titles)
    return [HITS] + [
        f'<rect x="{round(PLOT_LEFT + index * step, 1):g}" y="{PLOT_TOP}" width="{round(step, 1):g}" height="{PLOT_HEIGHT}">'
        f"<title>{title}</title></rect>"
        for index, title in enumerate(titles)
    ] + ["</g>"]


def _bars(heights, top):
    """The x, width and (y, height) of each bar, in SVG units, on a y-axis up to `top`."""
    step = PLOT_WIDTH / len(heights)
    for index, value in enumerate(heights):
        height = round(PLOT_HEIGHT * value / top, 1)
        yield round(PLOT_LEFT + index * step + 1, 1), round(step - 2, 1), round(PLOT_TOP + PLOT_HEIGHT - height, 1), height


def _chart_layout(days):
    return {"width": CHART_WIDTH, "height": CHART_HEIGHT, "left": PLOT_LEFT, "step": round(PLOT_WIDTH / days, 4)}


def accuracy_chart(activity, today, days=RECENT_DAYS):
    dates = [today - timedelta(days=offset) for offset in range(days - 1, -1, -1)]
    rows = [activity.get(day) or Day(day) for day in dates]
    peak = max((row.answers for row in rows), default=0)
    top, ticks = scale(peak)
    right, wrong = [], []
    # Right answers at the bottom of each bar, wrong ones stacked on top.
    for (x, width, _, total), row in zip(_bars([row.answers for row in rows], top), rows):
        right_height = round(PLOT_HEIGHT * row.correct / top, 1)
        bottom = PLOT_TOP + PLOT_HEIGHT
        right.append(_bar(x, round(bottom - right_height, 1), width, right_height))
        wrong.append(_bar(x, round(bottom - total, 1), width, round(total - right_height, 1)))
    titles = [
        f"{_day(row.date)}: {row.answers} answer{'s' if row.answers != 1 else ''}, {row.correct} right, "
        f"{row.answers - row.correct} wrong" if row.answers else f"{_day(row.date)}: no answers"
        for row in rows
    ]
    labelled = [index for index in range(days) if (days - 1 - index) % DATE_EVERY == 0]
    answers = sum(row.answers for row in rows)
    correct = sum(row.correct for row in rows)
    return {
        "right_path": _safe(right),
        "wrong_path": _safe(wrong),
        "frame": _safe(_axes(ticks, top, dates, labelled, "answers") + _legend([("bar-right", "right"), ("bar-wrong", "wrong")])),
        "hits": _safe(_hits(titles)),
        **_chart_layout(days),
        "first": dates[0],
        "last": dates[-1],
        "values": _safe(",".join(f"{row.answers}/{row.correct}" for row in rows)),
        "rows": [row for row in rows if row.answers],
        "answers": answers,
        "accuracy": correct / answers if answers else None,
        "peak": peak,
        "days": days,
    }


def forecast_chart(summary, today, days=FORECAST_DAYS):
    dates = [today + timedelta(days=offset) for offset in range(days)]
    counts = [summary.forecast.get(day, 0) for day in dates]
    counts[0] += summary.due_now
    top, ticks = scale(max(counts))
    week, later = [], []
    for offset, (x, width, y, height) in enumerate(_bars(counts, top)):
        (week if offset < 7 else later).append(_bar(x, y, width, height))
    titles = [f"{_day(day)}: {count} due" for day, count in zip(dates, counts)]
    titles[0] = f"Today, {_day(today)}: {counts[0]} due (with what is overdue)"
    labelled = [index for index in range(days) if index % DATE_EVERY == 0]
    legend = [("bar-week", "next 7 days"), ("bar-later", "later")]
    return {
        "week_path": _safe(week),
        "later_path": _safe(later),
        "frame": _safe(_axes(ticks, top, dates, labelled, "due") + _legend(legend)),
        "hits": _safe(_hits(titles)),
        **_chart_layout(days),
        "first": today,
        "last": dates[-1],
        "values": _safe(",".join(map(str, counts))),
        "rows": [{"date": day, "count": count} for day, count in zip(dates, counts)],
        "week_total": sum(counts[:7]),
        "month_total": sum(counts),
        "peak": max(counts),
        "days": days,
    }


def _level(count, peak):
    """A day's shade: 0 for nothing, then four even steps up to the busiest day."""
    return 0 if not count else min(LEVELS - 1, 1 + (4 * count - 1) // max(peak, 1))


def heatmap(activity, user, now, today):
    """53 weeks of days as columns from Monday to Sunday, shaded by how much was studied.

    One path per shade, and one invisible column per week carrying that week's `<title>`: a
    title per day would be a few hundred elements and tripled the page for a year of study."""
    first = first_heatmap_day(user, now)
    peak = max((day.activity for day in activity.values()), default=0)
    shades = [[] for _ in range(LEVELS)]
    counts, months = [], {}
    for offset in range((today - first).days + 1):
        day = first + timedelta(days=offset)
        count = activity[day].activity if day in activity else 0
        x, y = HEAT_LEFT + (offset // 7) * CELL, HEAT_TOP + (offset % 7) * CELL
        shades[_level(count, peak)].append(f"M{x} {y}h{SQUARE}v{SQUARE}h-{SQUARE}z")
        counts.append(count)
        month = months.setdefault(day.replace(day=1), [0, 0])
        month[0] += count
        month[1] += bool(count)
    busiest = max(activity.values(), key=lambda d: (d.activity, d.date), default=None)
    in_range = [day for day in activity.values() if day.date >= first]
    weeks = (len(counts) + 6) // 7
    return {
        "levels": [{"level": level, "path": _safe(cells)} for level, cells in enumerate(shades) if cells],
        "frame": _safe(_heatmap_labels(first, weeks) + _heatmap_legend(peak, weeks)),
        "hits": _safe(_week_hits(first, counts)),
        "first": first,
        "last": today,
        "values": _safe(",".join(map(str, counts))),
        "width": HEAT_LEFT + HEATMAP_WEEKS * CELL + 2,
        "height": HEAT_TOP + 7 * CELL + 18,
        "left": HEAT_LEFT,
        "top": HEAT_TOP,
        "cell": CELL,
        "peak": peak,
        "total": sum(day.activity for day in in_range),
        "active_days": len(in_range),
        "busiest": busiest,
        "months": [{"month": month, "reviews": r, "days": d} for month, (r, d) in months.items()],
    }


def _week_hits(first, counts):
    """One invisible rectangle per week column with the week's total as its `<title>`."""
    parts = [HITS]
    for week in range((len(counts) + 6) // 7):
        days = counts[7 * week:7 * week + 7]
        total, active = sum(days), sum(1 for count in days if count)
        what = f"{total} review{'s' if total != 1 else ''} or answer{'s' if total != 1 else ''} on {active} day{'s' if active != 1 else ''}"
        parts.append(
            f'<rect x="{HEAT_LEFT + week * CELL}" y="{HEAT_TOP}" width="{CELL}" height="{len(days) * CELL}">'
            f"<title>Week of {format_date(first + timedelta(days=7 * week), 'j M Y')}: {what if total else 'no study'}</title></rect>"
        )
    return parts + ["</g>"]


def _heatmap_labels(first, weeks):
    """Month names above the week where each month starts (with the year in January), and Mon,
    Wed, Fri beside their rows."""
    parts = [
        f'<text class="y-label" x="{HEAT_LEFT - 4}" y="{HEAT_TOP + row * CELL + 8}" text-anchor="end">{name}</text>'
        for row, name in ((0, "Mon"), (2, "Wed"), (4, "Fri"))
    ]
    last_labelled = -4
    for week in range(weeks - 2):  # a month starting in the last two weeks has no room for its name
        monday = first + timedelta(days=7 * week)
        starts = next((monday + timedelta(days=d) for d in range(7) if (monday + timedelta(days=d)).day == 1), None)
        if starts is None or week - last_labelled < 4:
            continue
        name = format_date(starts, "M ’y" if starts.month == 1 else "M")  # "Jan ’26" fits in four weeks
        parts.append(f'<text class="x-label" x="{HEAT_LEFT + week * CELL}" y="{HEAT_TOP - 4}">{name}</text>')
        last_labelled = week
    return parts


def _heatmap_legend(peak, weeks):
    """The shades from none to the busiest day, with the counts at both ends, at the bottom right."""
    y = HEAT_TOP + 7 * CELL + 6
    right = HEAT_LEFT + weeks * CELL
    x = right - 6 * len(f"{peak} a day") - 4 - LEVELS * CELL
    parts = [f'<g class="legend"><text x="{x - 4}" y="{y + 8}" text-anchor="end">0</text>']
    for level in range(LEVELS):
        parts.append(f'<rect class="level-{level}" x="{x + level * CELL}" y="{y}" width="{SQUARE}" height="{SQUARE}"/>')
    parts.append(f'<text x="{x + LEVELS * CELL + 2}" y="{y + 8}">{peak} a day</text></g>')
    return parts
