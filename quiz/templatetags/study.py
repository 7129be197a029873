from django import template

register = template.Library()


@register.filter
def as_duration(value):
    """A timedelta as a short human duration: '45 s', '3 min 20 s', '1 h 5 min'."""
    if value is None:
        return ""
    seconds = int(value.total_seconds())
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes} min"
    if minutes:
        return f"{minutes} min {seconds} s"
    return f"{seconds} s"


@register.filter
def as_wait(value):
    """How long until something, rounded the way a person says it: '12 min', '3 h', '2 days'."""
    if value is None:
        return ""
    minutes = max(round(value.total_seconds() / 60), 1)
    if minutes < 60:
        return f"{minutes} min"
    hours = round(minutes / 60)
    if hours < 48:
        return f"{hours} h"
    return f"{round(hours / 24)} days"


@register.filter
def percent(value):
    return "" if value is None else f"{round(value * 100)}%"


@register.simple_tag(takes_context=True)
def page_url(context, number):
    """The current URL's query string with another page number, so filters survive paging."""
    query = context["request"].GET.copy()
    query["page"] = number
    return "?" + query.urlencode()
