"""Streaming CSV downloads that are safe to open in a spreadsheet."""

import csv
import unicodedata

from django.http import StreamingHttpResponse

# A cell starting with one of these is run as a formula by spreadsheet programs; a question
# stem or a username is data, so such cells get a leading apostrophe (OWASP's advice).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")
# Spreadsheets skip these before looking for a formula: spaces, line breaks and quotes.
SKIPPED_BEFORE_A_FORMULA = " \t\r\n\"'\u00a0\u3000"


def spreadsheet_safe(value):
    """The value, with a leading apostrophe if a spreadsheet could read it as a formula: also
    behind leading spaces, line breaks or a quote, and in full-width forms (＝, ＋) that some
    spreadsheets fold to their ASCII twins."""
    if not isinstance(value, str) or not value:
        return value
    folded = unicodedata.normalize("NFKC", value)
    if value.startswith(FORMULA_STARTS) or folded.lstrip(SKIPPED_BEFORE_A_FORMULA).startswith(FORMULA_STARTS[:4]):
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
