"""Template filters for study pages: durations (see `quiz.lib.durations`), moments (`quiz.lib.days`),
percentages, paging."""

from django import template
from django.utils import timezone

from quiz.content.documents import weight_text
from quiz.lib.days import moment_text
from quiz.lib.durations import clock_duration, closing_stretch, minutes_duration, spoken_wait
from quiz.lib.numbers import percent_of
from quiz.lib.numbers import points as plain_points

register = template.Library()

register.filter("as_duration", clock_duration)
register.filter("as_wait", spoken_wait)
register.filter("as_moment", moment_text)
register.filter("minutes_as_duration", minutes_duration)


@register.filter
def closing_at(attempt):
    """When a timed attempt's countdown turns red: its last stretch (`closing_stretch`) begins.
    The page gets the moment itself, so app.js needs no rule of its own."""
    return attempt.deadline - closing_stretch(attempt.deadline - attempt.started_at)


@register.filter
def has_passed(moment):
    return moment <= timezone.now()


@register.filter
def time_since(moment):
    """How long ago `moment` was, as the app writes how long something took ("12 min 5 s",
    "1 h 30 min"): what the page says before app.js counts on (Django's `timesince` took a
    seventh of the question's render)."""
    return clock_duration(timezone.now() - moment)


@register.filter
def points(value):
    """A score in points as people write it: 3, 2.5, 1.33."""
    return plain_points(value)


@register.filter
def points_percent(share):
    """A choice's weight (a share of the mark, 0.5) as the percentage an author wrote: "50%"."""
    return f"{weight_text(share)}%"


@register.filter
def percent(value):
    """A share (0 to 1) as a percentage rounded half up (5/8 is 63%), as everywhere in the app."""
    return "" if value is None else f"{percent_of(value)}%"


@register.simple_tag(takes_context=True)
def page_url(context, number):
    """The current URL's query string with another page number, so filters survive paging."""
    query = context["request"].GET.copy()
    query["page"] = number
    return "?" + query.urlencode()


@register.filter
def plain_number(value):
    """A stored decimal as an author writes it: 0.0100000000 as "0.01", 100 as "100" (not "1E+2")."""
    return "" if value is None else f"{value.normalize():f}"
