"""The signed-in home page kept per learner, so a visit with nothing new reads a few small rows
instead of the learner's whole history (the dashboard is the app's dearest page).

An entry is used only while everything it was built from is unchanged:
* the learner's study: their newest review (ids only grow: every rating, release of a held-back
  answer and drill answer moves it), their memory states (count, total reviews, last review:
  an undo moves them) and their attempts (count, newest, finished, last answer: a start, an
  answer with feedback held back, a finish, a deadline closing one) -- one query on small
  indexed rows, whatever the history;
* the learner's own row (exam date, time zone, daily limits, FSRS parameters): already loaded;
* shared content, classes and assignments: the content generation (`quiz.lib.content_changes`),
  new after every commit that writes them, however it writes them;
* the clock: an entry lasts DASHBOARD_CACHE_SECONDS at most, and never past the learner's
  midnight, so cards falling due and assignments opening show within that time.

The entry is the page's body as HTML, forms included: their CSRF token is stored as a
placeholder and the visitor's own token is put in on the way out.
"""

import zlib
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.utils.crypto import salted_hmac
from django.utils.functional import SimpleLazyObject
from django.utils.safestring import mark_safe

from quiz.context_processors import masked_csrf_token
from quiz.lib.content_changes import GENERATION_KEY, content_unsettled, page_cache, start_generation
from quiz.lib.days import start_of_day
from quiz.models import Attempt, MemoryState, ReviewLog

# Unguessable (derived from the secret key), so no text an author writes can ask for a token.
CSRF_PLACEHOLDER = SimpleLazyObject(lambda: "csrf-" + salted_hmac("dashboard-cache", "csrf").hexdigest())

_MEMORY, _ATTEMPT, _REVIEW = MemoryState._meta.db_table, Attempt._meta.db_table, ReviewLog._meta.db_table
_STAMP_SQL = (
    f"SELECT m.n, m.reps, m.last, a.n, a.newest, a.finished, a.answered, "
    f"(SELECT MAX(id) FROM {_REVIEW} WHERE user_id = %s) FROM "
    f"(SELECT COUNT(*) AS n, SUM(reps) AS reps, MAX(last_review) AS last FROM {_MEMORY} WHERE user_id = %s) m, "
    f"(SELECT COUNT(*) AS n, MAX(id) AS newest, COUNT(finished_at) AS finished, MAX(last_answered_at) AS answered "
    f"FROM {_ATTEMPT} WHERE user_id = %s) a"
)


def learner_stamp(user):
    """What the learner's study looks like now, in one query on their memory and attempt rows
    and the newest id of their review log (ids only grow: every rating, release and drill
    answer moves it; an undo moves the memory figures)."""
    with connection.cursor() as cursor:
        cursor.execute(_STAMP_SQL, [user.pk] * 3)
        return cursor.fetchone()


def user_settings(user):
    """Every column of the learner's row a page may show or compute with (not the login time)."""
    return tuple(getattr(user, f.attname) for f in user._meta.concrete_fields if f.attname not in ("password", "last_login"))


def dashboard_body(request, user, now, build):
    """The dashboard's HTML for `user`: kept from an earlier visit when nothing it shows has
    changed, else `build(csrf_token)` renders it (and it is kept). Later pages of its lists
    (a query string) and a transaction that has just changed content are never cached."""
    seconds = settings.DASHBOARD_CACHE_SECONDS
    if not seconds or request.GET or content_unsettled():
        return mark_safe(build(masked_csrf_token(request)))
    key = f"dashboard:{user.pk}"
    # Read before building: a write that lands while the page is built leaves this entry behind.
    # (With the placeholder: after a new secret key an old entry's forms would carry an old one.)
    stamp = (learner_stamp(user), user_settings(user), str(CSRF_PLACEHOLDER))
    found = page_cache().get_many([key, GENERATION_KEY])
    generation, entry = found.get(GENERATION_KEY), found.get(key)
    if entry and entry["generation"] == generation and entry["stamp"] == stamp and now < entry["until"]:
        html = zlib.decompress(entry["html"]).decode()
    else:
        html = build(str(CSRF_PLACEHOLDER))
        midnight = start_of_day(now.astimezone(user.zone).date() + timedelta(days=1), user.zone)
        until = min(now + timedelta(seconds=seconds), midnight)
        generation = generation or start_generation()
        # Compressed: ~60 KB of HTML keeps in ~8, so thousands of learners fit in a small table.
        entry = {"generation": generation, "stamp": stamp, "until": until, "html": zlib.compress(html.encode(), 1)}
        page_cache().set(key, entry, timeout=seconds)
    return mark_safe(html.replace(str(CSRF_PLACEHOLDER), masked_csrf_token(request)))
