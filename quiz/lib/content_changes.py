"""Knowing when shared content changed, for caches of pages built from it (the dashboard).

"Content" is every table of the app but those holding one learner's own study (memory, log,
days, attempts, answers, sessions, the user row): a question edited, a set shared, a class
joined, an assignment's dates moved, a learner's own import. Instead of trusting every code
path to announce its writes (`QuerySet.update` and `bulk_create` send no signal, and one
forgotten path would leave a page stale), each database connection watches the SQL it runs: an
INSERT, UPDATE, DELETE or TRUNCATE on a content table gives the cache a new *content generation*
once the transaction commits (a statement outside a transaction: before the connection's next
statement, and at the latest before the response leaves or the process exits). A reader that
read the old generation keeps an entry under it, which no one asks for again: the versioned-key
pattern, with no lock taken.

Until that commit, the writing transaction itself sees content that others do not, so
`content_unsettled()` tells a cache to stay out of it (neither read nor fill).
"""

import atexit
import functools
import logging
import re
import uuid

from django.core.cache import caches
from django.core.signals import request_finished
from django.db import DatabaseError, connection, transaction
from django.db.backends.signals import connection_created
from django.db.models.signals import post_migrate, pre_migrate

logger = logging.getLogger(__name__)

# "~": after every page's key. The database cache culls the lowest keys first once it is full,
# and losing the generation would throw away every kept page at once.
GENERATION_KEY = "~content-generation"


def page_cache():
    """The cache that keeps pages, and the generation beside them (read in one round trip)."""
    return caches["pages"]


# The learner's own tables: their changes are seen by a per-learner stamp, not by this watch.
LEARNER_TABLES = frozenset({
    "quiz_user", "quiz_user_groups", "quiz_user_user_permissions", "quiz_usersession",
    "quiz_memorystate", "quiz_reviewlog", "quiz_studyday", "quiz_schedulefit",
    "quiz_attempt", "quiz_attemptslot", "quiz_mockexam", "quiz_pendingimport", "quiz_pendingfile",
})

# What Django writes ('INSERT INTO "quiz_question"', SQLite's 'INSERT OR IGNORE INTO', 'UPDATE
# "quiz_question" SET', 'DELETE FROM "quiz_question"'), hand-written SQL with or without quotes,
# and TRUNCATE (a flush), which empties content too.
_WRITE = re.compile(r'\s*(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE|DELETE\s+FROM)\s+"?(quiz_\w+)', re.IGNORECASE)
_TRUNCATE = re.compile(r"\s*TRUNCATE\b", re.IGNORECASE)
# A statement of data-modifying CTEs (quiz.lib.prepared.InTurn: WITH write_0 AS (UPDATE ...),
# write_1 AS (INSERT ...) SELECT ...) writes wherever one of its parts does.
_WITH = re.compile(r"\s*WITH\b", re.IGNORECASE)
_WRITE_WITHIN = re.compile(r'\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?(quiz_\w+)', re.IGNORECASE)


def writes_content(sql):
    match = _WRITE.match(sql)
    if match:
        return match.group(1).lower() not in LEARNER_TABLES
    if _WITH.match(sql):
        return _with_writes_content(sql)
    return bool(_TRUNCATE.match(sql))


# Searching a statement of CTEs for its writes took 0.1 ms (an answer's is 2 KB): each shape's
# answer is kept, for the few shapes the app runs (their values are parameters, not in the SQL).
@functools.lru_cache(maxsize=64)
def _with_writes_content(sql):
    return any(table.lower() not in LEARNER_TABLES for table in _WRITE_WITHIN.findall(sql))


def start_generation():
    """A first generation when the cache has none (never set, or evicted); the one it has if
    another process set it meanwhile."""
    page_cache().add(GENERATION_KEY, uuid.uuid4().hex, timeout=None)
    return page_cache().get(GENERATION_KEY)


def new_generation():
    """A new generation; never an error for the write that caused it, which has committed. If
    the cache cannot take it (no cache table, SQLite busy past its timeout), it is logged and
    kept pages stay in use until they expire (DASHBOARD_CACHE_SECONDS)."""
    try:
        with transaction.atomic():
            page_cache().set(GENERATION_KEY, uuid.uuid4().hex, timeout=None)
    except DatabaseError:
        logger.exception("content changed, but the page cache could not take a new generation")


class _AfterCommit:
    """The on-commit callback of one transaction that wrote content: marks it done and makes a
    new generation. Held on the connection while its transaction is open."""

    done = False

    def __call__(self):
        self.done = True
        new_generation()


def content_unsettled():
    """Has this thread's connection written content whose new generation is not out yet? (The
    app has one database: `connection` is its connection in this thread.)"""
    if getattr(connection, "content_bump_due", False):
        if connection.in_atomic_block:
            return True
        _bump_now(connection)
    pending = getattr(connection, "content_pending", None)
    if pending is None or pending.done:
        return False
    # A rollback (of the transaction, or of the savepoint that wrote) drops the callback.
    return any(callback is pending for _, callback, _ in connection.run_on_commit)


def _content_written(db):
    if db.in_atomic_block:
        if not content_unsettled():
            db.content_pending = _AfterCommit()
            db.on_commit(db.content_pending)
    else:
        # Committed on its own, but SQLite may still be stepping it (an INSERT ... RETURNING
        # hands over its row after this returns), so no statement may run on the connection
        # now: the new generation comes before its next statement (see flush_due_generation).
        db.content_bump_due = True


def _bump_now(db):
    db.content_bump_due = False  # first: making the generation runs statements of its own
    new_generation()


def watch_writes(execute, sql, params, many, context):
    db = context["connection"]
    if getattr(db, "content_bump_due", False) and not db.in_atomic_block:
        _bump_now(db)
    result = execute(sql, params, many, context)
    if _watching and writes_content(sql):
        _content_written(db)
    return result


def flush_due_generation(**kwargs):
    """A change that was the last statement on the connection gets its new generation now:
    before a response leaves (ContentChangesMiddleware), at the end of a request (a streamed
    one), and when a command's process exits."""
    if getattr(connection, "content_bump_due", False) and not connection.in_atomic_block:
        _bump_now(connection)


# Off while migrations run: the cache's table may not exist yet (`createcachetable` comes
# after `migrate`). Whatever they changed is covered by one new generation at their end.
_watching = True


def _migrations_start(**kwargs):
    global _watching
    _watching = False


def _migrations_end(sender, **kwargs):
    global _watching
    _watching = True
    # Sent once per app: one new generation, for this app's (the one whose tables it watches).
    if sender.label == "quiz" and _has_page_cache_table():  # none yet on a fresh database: nothing kept
        new_generation()


def _has_page_cache_table():
    table = getattr(page_cache(), "_table", None)  # the database cache's table (Redis has none)
    return table is None or table in connection.introspection.table_names()


def _install(sender, connection, **kwargs):
    if watch_writes not in connection.execute_wrappers:
        connection.execute_wrappers.append(watch_writes)


def install():
    """Watch every connection the app opens (called from AppConfig.ready)."""
    connection_created.connect(_install, dispatch_uid="quiz.content_changes")
    pre_migrate.connect(_migrations_start, dispatch_uid="quiz.content_changes")
    post_migrate.connect(_migrations_end, dispatch_uid="quiz.content_changes")
    request_finished.connect(flush_due_generation, dispatch_uid="quiz.content_changes")
    atexit.register(flush_due_generation)
