"""Small SQL expressions that Django lacks, written for both SQLite and PostgreSQL."""

from django.db.models import FloatField, Func

# Rows per statement for `bulk_update`. PostgreSQL with server-side parameters (the default here)
# takes at most 65,535 of them a statement, and Django batches bulk_update only for SQLite: each
# row costs two parameters per field and one for its key, so a thousand rows fit up to 32 fields.
BULK_UPDATE_BATCH = 1_000


class UnixDays(Func):
    """A timestamp as (fractional) days since 1970-01-01 UTC."""

    output_field = FloatField()
    template = "(EXTRACT(EPOCH FROM %(expressions)s) / 86400.0)"

    def as_sqlite(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, template="(julianday(%(expressions)s) - 2440587.5)", **extra)


def unix_days(moment):
    """The same measure for a Python datetime, to compare with UnixDays in a query."""
    return moment.timestamp() / 86400
