"""Django's PostgreSQL backend, with timestamps read by psycopg's compiled loader.

Django registers a loader of its own for `timestamptz` so that every value comes back in the
connection's time zone (UTC when USE_TZ is on): it subclasses psycopg's pure-Python loader,
which parses the text with a regular expression and then replaces the zone. psycopg's binary
package has a compiled loader that gives the same value with the same `datetime.timezone.utc`
when the session's TimeZone is UTC, as Django sets it: measured on a download of 20,681 rows,
one timestamp each, the Python loader was a third of the time the rows took to read. Every page
reads a dozen timestamps (the session's expiry, the attempt's times), so each gains a little.

Only then: with another connection time zone (USE_TZ off, or a TIME_ZONE in the database
settings), with a connection pool (`OPTIONS["pool"]`, whose connections Django configures in the
pool's callback), or without the compiled package, this is Django's backend unchanged. The zone
is checked when the connection is made; the app never changes it afterwards (after a `SET TIME
ZONE` this loader would give the right moment in the new zone, Django's that zone's wall-clock
time marked as UTC).
settings.py names this one as the ENGINE whenever the database is PostgreSQL.
"""

from datetime import timezone

from django.db.backends.postgresql import base
from psycopg import adapters
from psycopg.adapt import Loader
from psycopg.pq import Format

TIMESTAMPTZ = adapters.types["timestamptz"].oid
_compiled = adapters.get_loader(TIMESTAMPTZ, Format.TEXT)  # the binary package's, when installed


class UtcTimestampLoader(Loader):
    """The compiled loader behind the face of Django's: its class says the zone, which Django's
    create_cursor compares with the connection's before it registers its own loader again on
    the cursor (equal: it leaves this one in place). The compiled class cannot be subclassed;
    each row's value goes straight to its `load`, so there is no Python call in between."""

    timezone = timezone.utc

    def __init__(self, oid, context=None):
        super().__init__(oid, context)
        self.load = _compiled(oid, context).load  # what psycopg calls for each value

    def load(self, data):  # the abstract method's place; each instance has the compiled one
        raise NotImplementedError


class DatabaseWrapper(base.DatabaseWrapper):
    def init_connection_state(self):
        super().init_connection_state()  # sets the session's TimeZone to UTC under USE_TZ
        if self.connection is not None and self.compiled_loader_fits(self.connection):
            self.connection.adapters.register_loader(TIMESTAMPTZ, UtcTimestampLoader)

    def compiled_loader_fits(self, connection):
        """The compiled loader gives what Django's would: the values in UTC, as
        `datetime.timezone.utc`, which it takes from the session's TimeZone."""
        return (
            not self.pool  # a pool configures its connections elsewhere: left as Django has them
            and _compiled.__module__.startswith("psycopg_binary")
            and self.timezone is timezone.utc
            and connection.info.parameter_status("TimeZone") == "UTC"
        )
