"""Small SQL expressions that Django lacks, written for both SQLite and PostgreSQL."""

from django.db.models import FloatField, Func


class UnixDays(Func):
    """A timestamp as (fractional) days since 1970-01-01 UTC."""

    output_field = FloatField()
    template = "(EXTRACT(EPOCH FROM %(expressions)s) / 86400.0)"

    def as_sqlite(self, compiler, connection, **extra):
        return self.as_sql(compiler, connection, template="(julianday(%(expressions)s) - 2440587.5)", **extra)


def unix_days(moment):
    """The same measure for a Python datetime, to compare with UnixDays in a query."""
    return moment.timestamp() / 86400
