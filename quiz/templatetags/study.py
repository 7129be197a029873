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
