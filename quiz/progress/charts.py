"""The dashboard's charts: geometry for server-rendered SVG, with the same numbers as a table.

Pure functions of what `mastery` and `activity` computed: no queries. Each chart's dict
carries its bars or cells (position and size in the SVG's own units) and the totals and
rows its table alternative lists, so screen readers get the numbers the bars draw.
"""

from datetime import timedelta

from .activity import HEATMAP_WEEKS, Day, first_heatmap_day
from .mastery import FORECAST_DAYS, RECENT_DAYS

CHART_WIDTH, CHART_HEIGHT = 600, 140
CELL = 11  # heatmap cell size with its gap


def accuracy_chart(activity, today, days=RECENT_DAYS):
    dates = [today - timedelta(days=offset) for offset in range(days - 1, -1, -1)]
    rows = [activity.get(day) or Day(day) for day in dates]
    peak = max((row.answers for row in rows), default=0) or 1
    width = CHART_WIDTH / days
    bars = []
    for index, row in enumerate(rows):
        total_height = CHART_HEIGHT * row.answers / peak
        right_height = CHART_HEIGHT * row.correct / peak
        bars.append({
            "row": row,
            "x": round(index * width + 1, 1),
            "width": round(width - 2, 1),
            "right_y": round(CHART_HEIGHT - right_height, 1),
            "right_height": round(right_height, 1),
            "wrong_y": round(CHART_HEIGHT - total_height, 1),
            "wrong_height": round(total_height - right_height, 1),
        })
    answers = sum(row.answers for row in rows)
    correct = sum(row.correct for row in rows)
    return {
        "bars": bars,
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
    width = CHART_WIDTH / days
    bars = [
        {
            "date": today + timedelta(days=offset),
            "count": count,
            "x": round(offset * width + 1, 1),
            "width": round(width - 2, 1),
            "y": round(CHART_HEIGHT - CHART_HEIGHT * count / peak, 1),
            "height": round(CHART_HEIGHT * count / peak, 1),
            "week": offset < 7,
        }
        for offset, count in enumerate(counts)
    ]
    return {"bars": bars, "week_total": sum(counts[:7]), "month_total": sum(counts), "peak": max(counts), "days": days}


def heatmap(activity, user, now, today):
    first = first_heatmap_day(user, now)
    peak = max((day.activity for day in activity.values()), default=0)
    cells, months = [], {}
    for offset in range((today - first).days + 1):
        day = first + timedelta(days=offset)
        count = activity[day].activity if day in activity else 0
        cells.append({
            "date": day,
            "count": count,
            "x": (offset // 7) * CELL,
            "y": (offset % 7) * CELL,
            "level": 0 if not count else min(4, 1 + (4 * count - 1) // max(peak, 1)),
        })
        months.setdefault(day.replace(day=1), [0, 0])
        months[day.replace(day=1)][0] += count
        months[day.replace(day=1)][1] += bool(count)
    busiest = max(activity.values(), key=lambda d: (d.activity, d.date), default=None)
    in_range = [day for day in activity.values() if day.date >= first]
    return {
        "cells": cells,
        "width": HEATMAP_WEEKS * CELL,
        "height": 7 * CELL,
        "total": sum(day.activity for day in in_range),
        "active_days": len(in_range),
        "busiest": busiest,
        "months": [{"month": month, "reviews": r, "days": d} for month, (r, d) in months.items()],
    }
