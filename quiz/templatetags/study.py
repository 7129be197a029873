"""Template filters for study pages: durations (see `quiz.lib.durations`), percentages, paging."""

from django import template

from quiz.lib.durations import clock_duration, spoken_wait

register = template.Library()

register.filter("as_duration", clock_duration)
register.filter("as_wait", spoken_wait)


@register.filter
def percent(value):
    return "" if value is None else f"{round(value * 100)}%"


@register.simple_tag(takes_context=True)
def page_url(context, number):
    """The current URL's query string with another page number, so filters survive paging."""
    query = context["request"].GET.copy()
    query["page"] = number
    return "?" + query.urlencode()
