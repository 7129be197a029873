"""Dates and times as the app writes them everywhere: "Sat 5 Dec 2026, 18:00". Django's English
formats write "Dec. 5, 2026, 6 p.m.", which reads badly before a full stop ("6 p.m..") and
disagrees with the timers' "at 18:00" (quiz.lib.days)."""

DATE_FORMAT = "D j M Y"
DATETIME_FORMAT = "D j M Y, H:i"
TIME_FORMAT = "H:i"
SHORT_DATE_FORMAT = "j M Y"
SHORT_DATETIME_FORMAT = "j M Y, H:i"
MONTH_DAY_FORMAT = "j F"
YEAR_MONTH_FORMAT = "F Y"
