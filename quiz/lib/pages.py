"""A page of a list without counting the list: one row more than a page is read to know whether
a next page exists. For lists on pages that must stay cheap (the home), where "page 3 of 40"
is not worth a COUNT over everything a user may see."""

from django.conf import settings


class PeekPage:
    def __init__(self, queryset, number_text, size=None):
        size = size or settings.QUIZ_PAGE_SIZE
        self.number = _page_number(number_text)
        rows = list(queryset[(self.number - 1) * size : self.number * size + 1])
        self.has_next = len(rows) > size
        self.has_previous = self.number > 1
        self.object_list = rows[:size]

    def __iter__(self):
        return iter(self.object_list)

    def __len__(self):
        return len(self.object_list)

    @property
    def next_page_number(self):
        return self.number + 1

    @property
    def previous_page_number(self):
        return self.number - 1


def _page_number(text):
    """A page number from the query string; 1 for anything else (a sane range of ASCII digits)."""
    text = text or ""
    return int(text) if text.isascii() and text.isdigit() and 0 < len(text) <= 6 and int(text) > 0 else 1
