"""A queryset built and compiled once per process, then run with fresh values: for the reads
every request or the requests a learner makes most run (the session with its user, a question
page's and an answer's slot), where the ORM took longer to clone, build and compile the joins
than the database took to run them; and for the guarded UPDATEs every answer makes, whose
filters took as long to build as the database took to run the whole statement.

It leans on Django's own machinery (the compiler's SQL and converters, and the populators
ModelIterable uses to build each row's instance with its select_related objects and
annotations), pinned by Django 5.2 in pyproject.toml;
`tests/test_prepared.py` checks that a read returns what the plain queryset returns and that
an UPDATE writes what `QuerySet.update` writes.
"""

import copy
import functools
import threading
import weakref
from datetime import datetime

from django.db import DatabaseError, connections, transaction
from django.db.models import CharField, Model, signals
from django.db.models.expressions import RawSQL
from django.db.models.fields import AutoFieldMixin
from django.db.models.query import get_related_populators
from django.db.models.sql import Query

# The SQLSTATE of quiz_turn_stopped (migration 0026): a turn run as one statement stopped partway.
TURN_STOPPED = "QZ001"
# SQLite binds 64-bit integers only; a value outside that range matches no row anyway.
SMALLEST, LARGEST = -(2**63), 2**63 - 1


class _CompiledOnce:
    """What PreparedQuery and PreparedUpdate share: `build(**placeholders)` makes the queryset on
    first use (a queryset is a description: no connection), compiled once by `_compile_queryset`
    for the database the router gives it. The settings that choose that database (DATABASES,
    DATABASE_ROUTERS) do not change in a running process, and asking the router on every run
    cost more than the rest of the lookup. Compiling adds the select_related joins to a Query:
    threads arriving together on first use (runserver, threaded workers) compiled one Query at
    once and could cache SQL missing a join, hence the lock."""

    def __init__(self, build, **placeholders):
        self._build = build
        self._placeholders = placeholders
        self._queryset = None  # as built, left so: compiling works on a copy
        self._compiled = None
        self._lock = threading.Lock()

    def _compile(self):
        if (compiled := self._compiled) is not None:
            return compiled
        with self._lock:
            if self._compiled is None:
                self._queryset = self._prepare(self._build(**self._placeholders))
                self._compiled = self._compile_queryset(self._queryset)
            return self._compiled

    def _prepare(self, queryset):
        """The built queryset as it is to be compiled (PreparedUpdate marks it for writing)."""
        return queryset


class PreparedQuery(_CompiledOnce):
    """`build(**placeholders)` returns a queryset filtered on the placeholder values, each an
    integer, a string or an aware datetime found among the compiled SQL's parameters exactly
    where that name goes (pick values nothing else in the query uses). `first(**values)` runs it
    with those values in their place; a value of another type than its placeholder's matches
    nothing.

    `edit_sql(sql, connection)`, if given, returns the compiled SQL as it is to run: for a
    rewrite the ORM cannot express and the database plans better, that changes no row read and
    keeps every `%s` in its place (the values go to them by position)."""

    def __init__(self, build, *, edit_sql=None, **placeholders):
        super().__init__(build, **placeholders)
        self._edit_sql = edit_sql
        self._converters = weakref.WeakKeyDictionary()
        self._split_checked = set()  # (other query, vendor) pairs whose joined row first_with checked

    def first(self, **values):
        """The first row as a model instance (with its select_related objects and annotations), or None."""
        if not self._bindable(values):
            return None
        _, compiler, sql, params, spots, rows = self._compile()
        connection = connections[rows.db]  # the compiled query's (its queryset's `db` asks the router)
        with connection.cursor() as cursor:
            cursor.execute(sql, self._parameters(params, spots, values, connection))
            row = cursor.fetchone()
        if row is None:
            return None
        return rows.instance(self._converted(row, compiler, connection))

    def first_with(self, values, other, other_values):
        """(this query's first row, `other`'s first row), read in one statement: one round trip
        where there were two, for a signed-in page's session and the row its view reads first.
        Each is what `first` gives; `other`'s is read only with a row of this one (a LEFT JOIN
        of the two), so without one both are None. Both on the same database."""
        if not other._bindable(other_values):
            return self.first(**values), None
        if not self._bindable(values):
            return None, None
        _, compiler, sql, params, spots, rows = self._compile()
        _, other_compiler, other_sql, other_params, other_spots, other_rows = other._compile()
        connection = connections[rows.db]
        # Each subquery keeps its own columns, in order, whatever their names: this one's first.
        together = f"SELECT * FROM ({sql}) AS first_read LEFT JOIN ({other_sql}) AS other_read ON 1 = 1"
        with connection.cursor() as cursor:
            cursor.execute(together, [*self._parameters(params, spots, values, connection),
                                      *other._parameters(other_params, other_spots, other_values, connection)])
            row = cursor.fetchone()
            width = compiler.col_count
            if (other, connection.vendor) not in self._split_checked:
                # The row splits where this query's columns end. A query whose SQL selects more
                # than its compiler counts (DISTINCT ordered by a column it does not show) would
                # split it in the wrong place: refused, on the first run of each pair.
                if len(cursor.description) != width + other_compiler.col_count:
                    raise ValueError("first_with reads queries whose SQL selects exactly the columns they count")
                self._split_checked.add((other, connection.vendor))
        if row is None:
            return None, None
        mine, theirs = row[:width], row[width:]
        instance = rows.instance(self._converted(mine, compiler, connection))
        if all(value is None for value in theirs):  # no row of the other (its id is never NULL)
            return instance, None
        return instance, other_rows.instance(other._converted(theirs, other_compiler, connection))

    def _bindable(self, values):
        return all(_bindable(self._placeholders[name], value) for name, value in values.items())

    @staticmethod
    def _parameters(params, spots, values, connection):
        params = list(params)
        for name, value in values.items():
            for index in spots[name]:
                params[index] = _as_parameter(value, connection.ops)
        return params

    def _converted(self, row, compiler, connection):
        # How each column's value is turned into Python (datetimes on SQLite, JSON), worked out
        # once per connection instead of on every run: asking every column of the joins for its
        # converters took a tenth of the read. Per connection, as they are the connection's
        # own methods, and a connection is one thread's.
        converters = self._converters.get(connection)
        if converters is None:
            run = copy.copy(compiler)  # the shared compiler has no connection of its own
            run.connection = connection
            columns = [selected[0] for selected in run.select[: run.col_count]]
            converters = self._converters[connection] = list(run.get_converters(columns).items())
        row = list(row)
        for position, (functions, expression) in converters:
            value = row[position]
            for convert in functions:
                value = convert(value, expression, connection)
            row[position] = value
        return row

    def _compile_queryset(self, queryset):
        queryset = queryset._chain()  # a copy: the compiler adds its joins to the Query
        compiler = queryset.query.get_compiler(using=queryset.db)
        sql, params = compiler.as_sql()
        if self._edit_sql is not None:
            sql = self._edit_sql(sql, connections[queryset.db])
        spots = _spots(self._placeholders, params, connections[queryset.db].ops)
        compiler.connection = None  # each run sets its own thread's
        return queryset, compiler, sql, params, spots, _Rows(compiler, queryset.db)


class _Rows:
    """Turns a row of a compiled query into its model instance, with its select_related
    instances and annotations, as Django's ModelIterable does: its setup (the columns of each
    model, a populator for each join) done once per compiled query instead of on every run,
    where it cost more than SQLite took to run the read."""

    def __init__(self, compiler, db):
        klass_info, select = compiler.klass_info, compiler.select
        self.db, self.model = db, klass_info["model"]
        fields = klass_info["select_fields"]
        self.start, self.end = fields[0], fields[-1] + 1
        self.init_list = [column[0].target.attname for column in select[self.start : self.end]]
        self.related = get_related_populators(klass_info, select, db)
        self.annotations = list(compiler.annotation_col_map.items())

    def instance(self, row):
        instance = self.model.from_db(self.db, self.init_list, row[self.start : self.end])
        for related in self.related:
            related.populate(row, instance)
        for name, position in self.annotations:
            setattr(instance, name, row[position])
        return instance


class PreparedUpdate(_CompiledOnce):
    """`where(**placeholders)` returns a queryset of one model filtered on its own columns (as
    for PreparedQuery, each placeholder an integer, a string or an aware datetime found among the
    compiled parameters). Its WHERE is built and compiled once; `run(values, **where_values)`
    then UPDATEs the rows it picks with `values` ({field name: value or expression}), written
    afresh on each run as `QuerySet.update` writes them, and returns how many rows it changed.
    An integer beyond 64 bits matches nothing; a where value of another type than its
    placeholder's is a mistake in the caller (TypeError), never a silent "no row".

    The SQL of each shape of `values` (which columns, and which of them an expression writes)
    is written once, as the WHERE is: a run works out only its parameters."""

    def __init__(self, build, **placeholders):
        super().__init__(build, **placeholders)
        self._sql = {}  # {(shape of the values, vendor): the UPDATE's SQL}

    def run(self, values, **where_values):
        statement = self.statement(values, **where_values)
        if statement is None:
            return 0
        db, sql, params = statement
        # As QuerySet.update: an error inside an atomic block marks it for rollback.
        with transaction.mark_for_rollback_on_error(using=db), connections[db].cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.rowcount

    def statement(self, values, **where_values):
        """(database alias, UPDATE sql, its parameters), or None when a where value is beyond
        what the database stores (no row can match)."""
        part = self.part(values, where_values)
        if part is None:
            return None
        shape, params = part
        db = self._compile()[1]
        return db, self.sql(shape, connections[db]), params

    def part(self, values, where_values, connection=None):
        """(shape, parameters) of the UPDATE of `values` where `where_values` hold: `sql(shape)`
        is its SQL, the same for every run whose values are of the same kinds. None when a
        where value is beyond what the database stores."""
        if where_values.keys() != self._placeholders.keys():  # a placeholder left in would match no row
            raise TypeError(f"give exactly these where values: {sorted(self._placeholders)}")
        for name, value in where_values.items():
            if type(value) is not type(self._placeholders[name]):
                raise TypeError(f"{name}: {type(value).__name__} given for a {type(self._placeholders[name]).__name__}")
            if not _bindable(self._placeholders[name], value):
                return None
        query, db, _, where_params, spots = self._compile()
        connection = connection or connections[db]
        where_params = list(where_params)
        for name, value in where_values.items():
            for index in spots[name]:
                where_params[index] = _as_parameter(value, connection.ops)
        assigned, params = self._assignments(query, connection, values)
        return (self, assigned), [*params, *where_params]

    def sql(self, shape, connection):
        """The UPDATE's SQL for a `part`'s shape, written on its first run."""
        _, assigned = shape
        key = (assigned, connection.vendor)
        if (sql := self._sql.get(key)) is None:
            query, _, where_sql, _, _ = self._compile()
            quote = connection.ops.quote_name
            assignments = ", ".join(f"{quote(column)} = {'%s' if written is None else written}" for column, written in assigned)
            sql = f"UPDATE {quote(query.model._meta.db_table)} SET {assignments} WHERE ({where_sql})"
            _keep(self._sql, key, sql)
        return sql

    @property
    def model(self):
        return self._compile()[0].model

    @staticmethod
    def _assignments(query, connection, values):
        """((column, the SQL of the expression written there, or None for a parameter), ...)
        and the parameters, as Django's SQLUpdateCompiler writes them: for a column of the
        model's own table, given a value, a model instance (a foreign key) or an expression over
        the row (not an aggregate; a JSON null as Value(None) is SQL NULL)."""
        assigned, params = [], []
        # A copy of the query: resolving an expression may count references on it.
        compiler_for = _once(lambda: query.chain().get_compiler(connection=connection))
        for name, value in values.items():
            field = _writable_field(query.model, name)
            if hasattr(value, "prepare_database_save"):
                value = value.prepare_database_save(field)
            if hasattr(value, "resolve_expression"):
                sql, value_params = _compile_written(compiler_for, value)
                assigned.append((field.column, sql))
                params.extend(value_params)
            else:
                assigned.append((field.column, None))
                params.append(field.get_db_prep_save(value, connection=connection))
        return tuple(assigned), params

    def _prepare(self, queryset):
        queryset._for_write = True  # its `db` is then the router's database for writes
        return queryset

    def _compile_queryset(self, queryset):
        query = queryset.query
        if len(query.alias_map) != 1 or not query.where:
            raise ValueError("a prepared UPDATE filters its own table's columns, and filters something")
        where_sql, params = query.get_compiler(using=queryset.db).compile(query.where)
        return query, queryset.db, where_sql, params, _spots(self._placeholders, params, connections[queryset.db].ops)


class InTurn:
    """Writes of one row each that happen in turn, each only if the one before it wrote its row:
    an answer's are the attempt while it is open, the slot while it has no answer, the memory
    while no other rating changed it, and the rating's log. `update(prepared, values, **where)`
    adds a PreparedUpdate's; `insert(instance)` adds an unsaved instance's, whose foreign key to
    an instance inserted earlier in the turn gets that row's id.

    `run()` makes them and says how many were made: the first that writes nothing stops the
    rest. Within the caller's transaction, which rolls back the earlier ones when a later one
    found nothing. `run_all_or_nothing()` makes them all or none by itself. On PostgreSQL they
    are one statement, each write a data-modifying CTE that reads the one before it: one round
    trip where an answer made four, and outside a transaction no BEGIN and COMMIT either (the
    statement is its own transaction). Elsewhere (SQLite, in the same process, no round trip
    to save) each is its own statement. An insert is the SQL Model.save would run, without
    the work of finding it out again for every row.

    A run works out each write's parameters and the shape of its SQL (which columns get a
    parameter, which an expression or the id of a row inserted earlier in the turn); the SQL of
    each shape of a turn is written once per process, as the answer's turn is the same every time."""

    def __init__(self, db="default"):
        self._db = db
        self._steps = []

    def __len__(self):
        return len(self._steps)

    def update(self, prepared, values, **where_values):
        self._steps.append((prepared, values, where_values))
        return self

    def insert(self, instance):
        _refuse_what_save_would_do(instance)
        self._steps.append((instance, None, None))
        return self

    def extend(self, other):
        self._steps.extend(other._steps)
        return self

    def run(self):
        connection = connections[self._db]
        with transaction.mark_for_rollback_on_error(using=self._db):
            if connection.vendor == "postgresql":
                return self._run_together(connection)
            return self._run_one_by_one(connection)

    def run_all_or_nothing(self, *, savepoint=True):
        """Make every write or none; how many were made before one found nothing (none of
        them kept then, unless all were made). Outside a transaction on PostgreSQL, one
        statement that is its own transaction, which the database rolls back when the turn
        stops partway (quiz_turn_stopped raises): one round trip in all. Otherwise in an atomic
        block rolled back when it stops partway; `savepoint=False` rolls back the caller's
        whole transaction then, without the two queries of a savepoint."""
        connection = connections[self._db]
        if connection.vendor == "postgresql" and connection.get_autocommit():
            try:
                return self._run_together(connection, undo_partway=True)
            except DatabaseError as error:
                cause = error.__cause__
                if getattr(cause, "sqlstate", None) != TURN_STOPPED:
                    raise
                # Our own refusal, the connection idle and sound: without this Django would
                # check it with one more query at the end of the request (a double click's).
                connection.errors_occurred = False
                return int(cause.diag.message_detail)
        with transaction.atomic(using=self._db, savepoint=savepoint):
            made = self.run()
            if 0 < made < len(self):
                transaction.set_rollback(True, using=self._db)
                self._forget_inserted(made)
            return made

    def _forget_inserted(self, made):
        """The instances inserted by the first `made` writes, rolled back: unsaved again, as
        they are when the database undid the statement."""
        for step, _, _ in self._steps[:made]:
            if not isinstance(step, PreparedUpdate):
                step.pk = None
                step._state.adding, step._state.db = True, None

    def _run_one_by_one(self, connection):
        with connection.cursor() as cursor:
            for made, (step, values, where_values) in enumerate(self._steps):
                if isinstance(step, PreparedUpdate):
                    part = step.part(values, where_values, connection)
                    if part is None:  # an id beyond what the database stores: no row
                        return made
                    cursor.execute(step.sql(part[0], connection), part[1])
                    if not cursor.rowcount:
                        return made
                else:
                    shape, params = _insert_part(step, connection)
                    cursor.execute(_insert_sql(shape, connection), params)
                    _saved(step, cursor.fetchone()[0], self._db)
        return len(self._steps)

    def _run_together(self, connection, undo_partway=False):
        shapes, params, inserted = [], [], {}
        for index, (step, values, where_values) in enumerate(self._steps):
            if isinstance(step, PreparedUpdate):
                part = step.part(values, where_values, connection)
                if part is None:  # an id beyond what the database stores: nothing from here on
                    break
            else:
                part = _insert_part(step, connection, inserted=inserted)
                inserted[id(step)] = index
            shapes.append(part[0])
            params.extend(part[1])
        if not shapes:
            return 0
        key = (tuple(shapes), len(self._steps), undo_partway, connection.vendor)
        if (sql := _TURNS.get(key)) is None:
            sql = _together_sql(shapes, len(self._steps), undo_partway, connection)
            _keep(_TURNS, key, sql)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            ids = cursor.fetchone()[: len(shapes)]
        count = next((index for index, pk in enumerate(ids) if pk is None), len(ids))
        for (step, _, _), pk in zip(self._steps[:count], ids):
            if not isinstance(step, PreparedUpdate):
                _saved(step, pk, self._db)
        return count


# {(the shapes of a turn's writes, how many writes it has, undone partway?, vendor): its SQL}
_TURNS = {}


def _keep(cache, key, value):
    """`cache[key] = value`, the cache emptied first when full: the app runs a handful of
    shapes, and nothing else may make a cache of SQL grow without end."""
    if len(cache) >= 256:
        cache.clear()
    cache[key] = value


def _together_sql(shapes, total, undo_partway, connection):
    """One statement of the turn's writes (of `total`; `shapes` are those before any that can
    match no row), each a CTE made only if the one before it made its row."""
    writes = []
    for index, shape in enumerate(shapes):
        after = f"write_{index - 1}" if index else None
        prepared = shape[0]
        if isinstance(prepared, PreparedUpdate):
            pk = connection.ops.quote_name(prepared.model._meta.pk.column)
            sql = f"{prepared.sql(shape, connection)}{f' AND EXISTS (SELECT 1 FROM {after})' if after else ''} RETURNING {pk} AS id"
        else:
            sql = _insert_sql(shape, connection, after=after)
        writes.append(f"write_{index} AS ({sql})")
    made = ", ".join(f"(SELECT id FROM write_{index})" for index in range(len(writes)))
    if not undo_partway:
        return f"WITH {', '.join(writes)} SELECT {made}"
    # The ids read once, then an error (which rolls the statement back) if some but not all of
    # the turn's writes were made: each is made only if the one before it was (and those after
    # a value beyond what the database stores are never made).
    columns = ", ".join(f"id_{index}" for index in range(len(writes)))
    count = f"num_nonnulls({columns})"
    return (f"WITH {', '.join(writes)} SELECT {columns}, CASE WHEN {count} BETWEEN 1 AND {total - 1} "
            f"THEN quiz_turn_stopped({count}) END FROM (SELECT {made}) AS made ({columns})")


def _insert_part(instance, connection, *, inserted=None):
    """(shape, parameters) of an INSERT of `instance`, with the values Django's
    SQLInsertCompiler writes: the shape says, for each column, whether a parameter, an
    expression (its SQL) or, in a turn on PostgreSQL, the id of an instance inserted earlier in
    the statement (`inserted`: {id(instance): the index of its write}) is written there."""
    meta = instance._meta
    _, fields, _ = _insert_shape(meta.model, connection)
    written, params = [], []
    compiler_for = _once(lambda: Query(meta.model).get_compiler(connection=connection))
    for field in fields:
        related = field.is_relation and field.get_cached_value(instance, None)
        if related:
            if related.pk is None:
                if inserted and id(related) in inserted:
                    written.append(("write", inserted[id(related)]))
                    continue
                raise ValueError(f"{meta.label}.{field.name}: an unsaved instance, not inserted earlier in the turn")
            if getattr(instance, field.attname) is None:  # saved since it was assigned: its id, as Model.save takes it
                setattr(instance, field.name, related)
        value = field.pre_save(instance, add=True)
        if hasattr(value, "resolve_expression"):
            sql, value_params = _compile_written(compiler_for, value)
            written.append(("sql", sql))
            params.extend(value_params)
        else:
            written.append(None)
            params.append(field.get_db_prep_save(value, connection=connection))
    return (meta.model, tuple(written)), params


# {(shape, vendor): an INSERT's SQL}, for the writes made one by one.
_INSERTS = {}


def _insert_sql(shape, connection, *, after=None):
    """The INSERT ... SELECT of an `_insert_part`'s shape, returning the row's id; in a turn on
    PostgreSQL it inserts only if the write `after` (a CTE) made its row."""
    if after is None and (sql := _INSERTS.get((shape, connection.vendor))) is not None:
        return sql
    model, written = shape
    table, _, placeholders = _insert_shape(model, connection)
    values = []
    for kind, placeholder in zip(written, placeholders):
        if kind is None:
            values.append(placeholder)
        elif kind[0] == "write":
            values.append(f"(SELECT id FROM write_{kind[1]})")
        else:
            values.append(f"({kind[1]})")
    source = f" FROM {after}" if after else ""
    sql = f"{table} SELECT {', '.join(values)}{source} RETURNING {connection.ops.quote_name(model._meta.pk.column)} AS id"
    if after is None:
        _keep(_INSERTS, (shape, connection.vendor), sql)
    return sql


# {(model, vendor): its INSERT's start, the fields it writes and their placeholders}: the same
# for every row, and working out the casts took as long as the database took to insert one.
_INSERT_SHAPES = {}


def _insert_shape(model, connection):
    key = (model, connection.vendor)
    if key not in _INSERT_SHAPES:
        quote = connection.ops.quote_name
        fields = [field for field in model._meta.local_concrete_fields if not (field.primary_key or field.generated)]
        # In an INSERT ... SELECT, PostgreSQL cannot infer a parameter's type from its column.
        cast = connection.vendor == "postgresql"
        placeholders = [f"CAST(%s AS {_parameter_type(field, connection)})" if cast else "%s" for field in fields]
        table = f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(field.column) for field in fields)})"
        _INSERT_SHAPES[key] = table, fields, placeholders
    return _INSERT_SHAPES[key]


def _refuse_what_save_would_do(instance):
    """What Model.save does beyond a plain INSERT, which a turn skips: refused rather than
    skipped without a word."""
    meta = instance._meta
    if instance.pk is not None:
        raise ValueError(f"{meta.label}: InTurn inserts a row whose id the database gives")
    if reason := _saved_otherwise(meta.model):
        raise ValueError(f"{meta.label}: {reason}, which Model.save does and InTurn does not")
    if signals.pre_save.has_listeners(meta.model) or signals.post_save.has_listeners(meta.model):
        raise ValueError(f"{meta.label}: InTurn sends no save signal, and this model has listeners")


# A model's fields are fixed once the app is loaded: asked once per model (and column).
@functools.cache
def _writable_field(model, name):
    """The field `name` of `model`, if an UPDATE of the model's table can write it."""
    field = model._meta.get_field(name)
    if field.model is not model or not field.concrete or field.generated:
        raise ValueError(f"{name}: not a column this UPDATE can write")
    return field


@functools.cache
def _saved_otherwise(model):
    """Why Model.save would write `model`'s row differently from a plain INSERT, or None."""
    meta = model._meta
    if not isinstance(meta.pk, AutoFieldMixin):
        return "its id is not the database's to give"
    if model.save is not Model.save:
        return "it has a save() of its own"
    if meta.proxy or meta.parents:
        return "its row is written through another model's table"
    if any(field.has_db_default() or (field.db_returning and not field.primary_key) for field in meta.local_concrete_fields):
        return "a column the database fills is read back"
    return None


def _once(make):
    """`make()`, made on the first call and kept for the next: functools.cache's wrapper took
    longer to set up, on every write, than most writes ever need (none when nothing written is
    an expression)."""
    made = []

    def get():
        if not made:
            made.append(make())
        return made[0]

    return get


def _compile_written(compiler_for, value):
    """SQL and parameters of an expression a write stores in a column, as Django's UPDATE and
    INSERT compilers resolve it: over the row's own columns, no join, not an aggregate.
    `compiler_for()` gives the compiler, built only when needed: RawSQL (an answer's choice
    while it still exists) is written as its as_sql writes it, without one."""
    if type(value) is RawSQL:
        return f"({value.sql})", list(value.params)
    compiler = compiler_for()
    return compiler.compile(value.resolve_expression(compiler.query, allow_joins=False, for_save=True))


def _parameter_type(field, connection):
    """The type a parameter is cast to: the column's, but a text column's without its length,
    which the cast would cut a value to where the column refuses it whole (a foreign key's
    column is its target's)."""
    if field.is_relation:
        field = field.target_field
    if isinstance(field, CharField):
        return connection.ops.cast_char_field_without_max_length
    return field.cast_db_type(connection)


def _saved(instance, pk, db):
    """What Model.save leaves on an instance it inserted: its id, the ids of the instances its
    foreign keys point to, and its state."""
    instance.pk = pk
    for field in instance._meta.local_concrete_fields:
        related = field.is_relation and field.get_cached_value(instance, None)
        if related and getattr(instance, field.attname) is None:
            setattr(instance, field.name, related)  # inserted in the same turn: its id, and the instance kept
    instance._state.adding, instance._state.db = False, db


def _bindable(placeholder, value):
    kind = type(placeholder)
    if kind is int:
        return type(value) is int and SMALLEST <= value <= LARGEST
    return type(value) is kind


def _spots(placeholders, params, ops):
    """{name: the indexes in `params` where that placeholder's value is}. PostgreSQL's backend
    passes some integers wrapped (psycopg's Int4, a subclass of int); a run passes plain ones."""
    adapted = {name: _as_parameter(value, ops) for name, value in placeholders.items()}
    spots = {
        name: [i for i, p in enumerate(params) if isinstance(p, type(value)) and p == value]
        for name, value in adapted.items()
    }
    missing = [name for name, found in spots.items() if not found]
    if missing:
        raise ValueError(f"placeholders not found among the query's parameters: {missing}")
    return spots


def _as_parameter(value, ops):
    """A value as the compiler passes it to the database (SQLite takes datetimes as text)."""
    return ops.adapt_datetimefield_value(value) if isinstance(value, datetime) else value
