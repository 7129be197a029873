"""The signed-in home page's figures kept per learner, so a visit with nothing new reads a few
small rows instead of the learner's whole history (the dashboard is the app's dearest page).

What is kept is the data the template shows, not its HTML: the page, its forms and their CSRF
tokens are rendered on every visit. An entry is found under a key of version stamps, so a change
to anything it was built from makes it one no visit asks for again:
* the learner's study (`learner_stamp`): their memory rows (how many, total reviews, last
  review), their attempts (how many, newest, finished, last answer) and their newest review,
  read in three small aggregate queries whatever the history;
* the learner's own settings: the columns of their row (exam date, time zone, daily limits,
  FSRS parameters), already loaded;
* content, classes and assignments: a version in the cache that the services changing them
  renew once their transaction commits (`quiz.lib.content_version`);
* the clock: an entry lasts DASHBOARD_CACHE_SECONDS at most, and never past the learner's
  midnight, so cards falling due and assignments opening show within that time.
"""

from datetime import timedelta

from django.conf import settings
from django.db.models import Count, Max, Sum

from quiz.lib.content_version import CONTENT_VERSION_KEY, current_content_version, page_cache
from quiz.lib.days import start_of_day
from quiz.models import Attempt, MemoryState, ReviewLog


def learner_stamp(user):
    """What the learner's study looks like now: three aggregates on their indexed rows."""
    memory = MemoryState.objects.filter(user=user).aggregate(n=Count("pk"), reps=Sum("reps"), last=Max("last_review"))
    attempts = Attempt.objects.filter(user=user).aggregate(
        n=Count("pk"), newest=Max("pk"), finished=Count("finished_at"), answered=Max("last_answered_at")
    )
    newest_review = ReviewLog.objects.filter(user=user).aggregate(newest=Max("pk"))["newest"]
    return tuple(memory.values()), tuple(attempts.values()), newest_review


def user_settings(user):
    """Every column of the learner's row a page may show or compute with (not the login time)."""
    return tuple(getattr(user, f.attname) for f in user._meta.concrete_fields if f.attname not in ("password", "last_login"))


def dashboard_data(request, user, now, build):
    """The dashboard's template data for `user`: kept from an earlier visit when nothing it shows
    has changed, else `build()` computes it (and it is kept). Later pages of its lists (a query
    string) are never kept."""
    seconds = settings.DASHBOARD_CACHE_SECONDS
    if not seconds or request.GET:
        return build()
    found = page_cache().get_many([CONTENT_VERSION_KEY, f"dashboard:{user.pk}"])
    # Read before building: a change that lands while the data is built leaves this entry behind.
    stamp = (current_content_version(found), learner_stamp(user), user_settings(user))
    entry = found.get(f"dashboard:{user.pk}")
    if entry and entry["stamp"] == stamp and now < entry["until"]:
        return entry["data"]
    data = build()
    midnight = start_of_day(now.astimezone(user.zone).date() + timedelta(days=1), user.zone)
    entry = {"stamp": stamp, "until": min(now + timedelta(seconds=seconds), midnight), "data": data}
    page_cache().set(f"dashboard:{user.pk}", entry, timeout=seconds)
    return data
