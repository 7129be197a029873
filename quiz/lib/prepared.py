"""A queryset built and compiled once per process, then run with fresh values: for the reads
every request or the requests a learner makes most run (the session with its user, a question
page's and an answer's slot), where the ORM took longer to clone, build and compile the joins
than the database took to run them.

It leans on Django's own machinery (the compiler that turns rows into model instances with
their select_related objects and annotations), pinned by Django 5.2 in pyproject.toml;
`tests/test_prepared.py` checks it returns what the plain queryset does.
"""

import copy
import threading
from datetime import datetime

from django.db import connections
from django.db.models.query import ModelIterable

# SQLite binds 64-bit integers only; a value outside that range matches no row anyway.
SMALLEST, LARGEST = -(2**63), 2**63 - 1


class PreparedQuery:
    """`build(**placeholders)` returns a queryset filtered on the placeholder values, each an
    integer, a string or an aware datetime found among the compiled SQL's parameters exactly
    where that name goes (pick values nothing else in the query uses). `first(**values)` runs it
    with those values in their place; a value of another type than its placeholder's matches
    nothing."""

    def __init__(self, build, **placeholders):
        self._build = build
        self._placeholders = placeholders
        self._queryset = None  # built on first use (a queryset is a description: no connection)
        self._compiled = {}  # per database alias and vendor: (queryset, compiler, sql, params, spots)
        # Compiling adds the select_related joins to a Query: threads arriving together on first
        # use (runserver, threaded workers) compiled one Query at once and could cache SQL missing a join.
        self._lock = threading.Lock()

    def first(self, **values):
        """The first row as a model instance (with its select_related objects and annotations), or None."""
        if not all(self._bindable(name, value) for name, value in values.items()):
            return None
        queryset, compiler, sql, params, spots = self._compile()
        params = list(params)
        ops = connections[queryset.db].ops
        for name, value in values.items():
            for index in spots[name]:
                params[index] = _as_parameter(value, ops)
        # A copy per run: the compiled parts are shared, the connection is this thread's own.
        run = copy.copy(compiler)
        run.connection = connections[queryset.db]
        run.as_sql = lambda *args, **kwargs: (sql, tuple(params))
        return next(iter(ModelIterable(_Compiled(queryset, run))), None)

    def _bindable(self, name, value):
        kind = type(self._placeholders[name])
        if kind is int:
            return type(value) is int and SMALLEST <= value <= LARGEST
        return type(value) is kind

    def _compile(self):
        queryset = self._queryset
        if queryset is not None and (entry := self._compiled.get((queryset.db, connections[queryset.db].vendor))):
            return entry
        with self._lock:
            if self._queryset is None:
                self._queryset = self._build(**self._placeholders)
            key = (self._queryset.db, connections[self._queryset.db].vendor)
            if key not in self._compiled:
                queryset = self._queryset._chain()  # a copy: the compiler adds its joins to the Query
                compiler = queryset.query.get_compiler(using=queryset.db)
                sql, params = compiler.as_sql()
                ops = connections[queryset.db].ops
                spots = {
                    name: [i for i, p in enumerate(params) if p == _as_parameter(value, ops)]
                    for name, value in self._placeholders.items()
                }
                missing = [name for name, found in spots.items() if not found]
                if missing:
                    raise ValueError(f"placeholders not found among the query's parameters: {missing}")
                compiler.connection = None  # each run sets its own thread's
                self._compiled[key] = (queryset, compiler, sql, params, spots)
            return self._compiled[key]


def _as_parameter(value, ops):
    """A value as the compiler passes it to the database (SQLite takes datetimes as text)."""
    return ops.adapt_datetimefield_value(value) if isinstance(value, datetime) else value


class _Compiled:
    """Stands in for a queryset to Django's ModelIterable: the same model and database, and a
    query whose compiler is the prepared one."""

    def __init__(self, queryset, compiler):
        self.model, self.db, self._known_related_objects = queryset.model, queryset.db, {}
        self.query = self
        self._compiler = compiler

    def get_compiler(self, using=None, connection=None, elide_empty=True):
        return self._compiler
