"""Streaming CSV downloads that are safe to open in a spreadsheet."""

import csv

from django.http import StreamingHttpResponse

# A cell starting with one of these is run as a formula by spreadsheet programs; a question
# stem or a username is data, so such cells get a leading apostrophe (OWASP's advice).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value):
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


class _Echo:
    """A file-like object whose write returns the line, so csv.writer can feed a stream."""

    def write(self, value):
        return value


def csv_download(filename, rows):
    """Stream `rows` (an iterable of lists, the header first) as an attachment."""
    writer = csv.writer(_Echo())
    lines = (writer.writerow([spreadsheet_safe(value) for value in row]) for row in rows)
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
