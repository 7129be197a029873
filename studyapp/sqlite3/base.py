"""Django's SQLite backend, with each statement's placeholders converted once per process.

Django writes `%s` placeholders and SQLite takes `?`: its cursor converts every statement with
a regular expression (a look-behind, so that `%%s` stays), and on the long SQL of the reads
every page makes (the question page's slot with its joins) that took longer than SQLite took to
run the statement: 47 us of the slot read's 115. The app sends the same few hundred statements
over and over, so the converted text is kept, for statements of a sane length (an INSERT of a
thousand rows is not kept), and a process holds at most CONVERTED_KEPT of them. Everything else
is Django's backend: settings.py names this one as the ENGINE whenever the database is SQLite.
"""

from django.db.backends.sqlite3 import base

CONVERTED_KEPT = 1024
LONGEST_KEPT = 8192  # characters: the app's longest reads are about 3,000; at most 16 MB kept


class SQLiteCursorWrapper(base.SQLiteCursorWrapper):
    _converted = {}

    def convert_query(self, query, *, param_names=None):
        if param_names is not None:  # "pyformat" (%(name)s): not what the ORM writes
            return super().convert_query(query, param_names=param_names)
        converted = self._converted.get(query)
        if converted is None:
            converted = super().convert_query(query)
            if len(query) <= LONGEST_KEPT:
                if len(self._converted) >= CONVERTED_KEPT:
                    self._converted.clear()  # rare: the app's statements are a small, fixed set
                self._converted[query] = converted
        return converted


class DatabaseWrapper(base.DatabaseWrapper):
    def create_cursor(self, name=None):
        return self.connection.cursor(factory=SQLiteCursorWrapper)
