"""Spaced repetition with FSRS (the `fsrs` package) for every kind of study item: converting
memory rows to fsrs cards, applying a rating (and undoing it exactly), predicted recall in
Python and in SQL.

One module because a rating spans two models: it changes a MemoryState and writes a ReviewLog.
What comes next in a session is `quiz.study.queue`. Functions take keyword arguments and an
explicit `now`, so tests can run on a fixed clock.
"""

from datetime import datetime, timedelta
from functools import lru_cache

from django.db import transaction
from django.db.models import ExpressionWrapper, F, FloatField, Value
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, Coalesce, Floor, Greatest, Power
from django.utils import timezone
from fsrs import Card as FsrsCard
from fsrs import Rating, Scheduler, State

from quiz.lib.sql import UnixDays, unix_days
from quiz.models import MemoryState, ReviewLog, StudyDay, User

# Fuzzing would make the interval printed on a button differ from the one applied;
# intervals here are exactly what the learner was promised.
SCHEDULER = Scheduler(enable_fuzzing=False)
DEFAULT_PARAMETERS = tuple(SCHEDULER.parameters)


def scheduler_for(user):
    """The learner's scheduler: FSRS with their parameters and their desired retention. From the
    user row the request already has, so choosing it costs no query."""
    return scheduler_with(parameters_of(user), user.desired_retention)


def parameters_of(user):
    """The learner's FSRS parameters: their own once `quiz.study.personal` adopted a fit, else
    the defaults. A tuple, so schedulers can be cached by it."""
    return tuple(user.fsrs_parameters) if user.fsrs_parameters else DEFAULT_PARAMETERS


@lru_cache(maxsize=512)
def scheduler_with(parameters, desired_retention):
    """One Scheduler per (parameters, retention), built once: learners share a few choices."""
    return Scheduler(parameters=parameters, desired_retention=desired_retention, enable_fuzzing=False)

Kind = MemoryState.Kind
Phase = MemoryState.Phase


# --- Converting between our rows and fsrs cards --------------------------------------------

def to_fsrs(memory, now):
    # An explicit card_id: without one, fsrs sleeps a millisecond to make a unique id.
    # Never reviewed (no row yet): a new card. A row created by a rating earlier in the same
    # bulk has no pk yet but a review, and is rated on from its state.
    if memory is None or memory.last_review is None:
        return FsrsCard(card_id=0, due=now)
    return FsrsCard(
        card_id=memory.pk or 0,  # a row made earlier in the same bulk has no pk yet
        state=State(memory.phase),
        step=memory.step,
        stability=memory.stability,
        difficulty=memory.difficulty,
        due=memory.due,
        last_review=memory.last_review,
    )


def _copy_fsrs(memory, card):
    memory.phase = int(card.state)
    memory.step = card.step
    memory.stability = card.stability
    memory.difficulty = card.difficulty
    memory.due = card.due
    memory.last_review = card.last_review


SNAPSHOT_FIELDS = ("phase", "step", "stability", "difficulty", "due", "last_review", "reps", "lapses", "last_rating")


def snapshot(memory):
    """The memory's state as JSON, for an exact undo."""
    data = {name: getattr(memory, name) for name in SNAPSHOT_FIELDS}
    for name in ("due", "last_review"):
        data[name] = data[name].isoformat() if data[name] else None
    return data


def restored(data):
    """The field values a snapshot records, ready for `update()`."""
    values = {name: data[name] for name in SNAPSHOT_FIELDS}
    for name in ("due", "last_review"):
        values[name] = datetime.fromisoformat(values[name]) if values[name] else None
    return values


def retrievability(memory, now, scheduler=SCHEDULER):
    """Predicted probability of recall now (None for an item never studied)."""
    if memory is None or memory.last_review is None:
        return None
    return scheduler.get_card_retrievability(to_fsrs(memory, now), now)


# What the pages call a learner's "recall" of an item: predicted a week ahead. Right after any
# review, even an Again, FSRS predicts 100% for the rest of the day, which says nothing.
RECALL_AHEAD = timedelta(days=7)


def is_learning(memory):
    """Still in its (re)learning steps (seen once, or just got wrong): no settled memory to predict."""
    return memory is not None and memory.phase in MemoryState.LEARNING_PHASES


def recall_ahead(memory, now, scheduler=SCHEDULER):
    """Predicted recall RECALL_AHEAD from now; None for an item never studied or still learning."""
    if memory is None or is_learning(memory):
        return None
    return retrievability(memory, now + RECALL_AHEAD, scheduler)


def next_intervals(memory, now, scheduler=SCHEDULER):
    """What each rating would do: {Rating.AGAIN: timedelta, ...}, for the button labels."""
    card = to_fsrs(memory, now)
    return {rating: scheduler.review_card(card, rating, now)[0].due - now for rating in Rating}

# --- Rating and undo ------------------------------------------------------------------------

def item_lookup(kind, item):
    return {"question": item} if kind == Kind.QUESTION else {"card": item}


def rate(*, user, kind, item, rating, source, now=None, expected_reps=None, duration_ms=None, **details):
    """Apply one rating to the learner's memory of an item; return the ReviewLog, or None.

    One transaction: the memory row is read locked (a rating of the same item elsewhere waits
    for this one), changed and written, and the log row inserted. None means the rating was
    refused because it is stale: `expected_reps` (the number of reviews the learner's screen
    was showing) no longer matches, which is what a double submit or a second tab looks like.
    Without `expected_reps` (a quiz answer, which its slot already guards) a rating is never
    refused: one of the same item landing at the same moment is waited for, and this one is
    applied after it.
    """
    now = now or timezone.now()
    # No savepoint of its own inside a caller's transaction (an answer's): a failure here fails
    # the whole of it, and a refusal returns before writing anything.
    with transaction.atomic(savepoint=False):
        memory = _locked_memory(user, kind, item)
        if expected_reps is not None and expected_reps != (0 if memory is None else memory.reps):
            return None
        memory, log = rated(memory, user=user, kind=kind, item=item, rating=rating, source=source, now=now,
                            duration_ms=duration_ms, **details)
        memory.save()
        log.memory = memory
        log.save()
    return log


def _locked_memory(user, kind, item):
    """The learner's memory row of the item, locked until the transaction ends; None if new.

    A new item's first rating may meet another at the same moment (two tabs, or answers being
    released), and only one row may exist: whoever inserts a learner's new memory rows first
    locks the learner's own row (`lock_learners`), so the second waits and then finds the row."""
    memories = MemoryState.objects.select_for_update(no_key=True).filter(user=user, kind=kind, **item_lookup(kind, item))
    memory = memories.first()
    if memory is None:
        lock_learners([user.pk])
        memory = memories.first()
    return memory


def lock_learners(user_ids):
    """Lock these learners' user rows until the transaction ends, in one order (by id), so two
    callers locking several learners cannot deadlock. What every insert of memory rows takes
    first (`rate`, `quiz.study.bulk.rate_in_bulk`): a learner's new memories are inserted one
    writer at a time. A lock that still lets other rows refer to the learner (NO KEY, on
    PostgreSQL): a rating holding a memory row inserts its log row, which refers to the learner,
    while another waits here for that memory."""
    users = User.objects.select_for_update(no_key=True).filter(pk__in=user_ids).order_by("pk")
    list(users.values_list("pk", flat=True))


def rated(memory, *, user, kind, item, rating, source, now, duration_ms=None, **details):
    """(memory, log): the learner's memory of an item (None: never studied) as one more rating
    leaves it, and the unsaved log row of that rating. No query; `rate` saves both."""
    if memory is None:
        memory = MemoryState(user=user, kind=kind, due=now, **item_lookup(kind, item))
    log = review(memory, rating=rating, source=source, now=now, duration_ms=duration_ms,
                 scheduler=scheduler_for(user), **details)
    return memory, log


def review(memory, *, rating, source, now, duration_ms=None, scheduler=SCHEDULER, **details):
    """Apply one rating to `memory` in Python (an unsaved MemoryState for an item never
    studied): its fsrs state and counts change, and the ReviewLog row that records the rating
    is returned. No query: `rate` and `quiz.study.bulk.rate_in_bulk` save both."""
    log = ReviewLog(user_id=memory.user_id, memory=memory, source=source, rating=int(rating), reviewed_at=now,
                    duration_ms=duration_ms, **details)
    apply(memory, log, scheduler)
    return log


def apply(memory, log, scheduler=SCHEDULER):
    """Apply the rating `log` records, at its `reviewed_at`, to `memory`, and note on the log
    what it replaced and what it did. The one place a rating changes a memory: a replay of an
    item's history in answer order (`quiz.study.bulk`) calls it row after row."""
    rating, moment = Rating(log.rating), log.reviewed_at
    log.was_new = memory.last_review is None
    log.state_before = None if log.was_new else snapshot(memory)
    log.retrievability = retrievability(memory, moment, scheduler)
    card, _ = scheduler.review_card(to_fsrs(memory, moment), rating, moment)
    lapsed = rating == Rating.Again and memory.phase == Phase.REVIEW
    _copy_fsrs(memory, card)
    memory.reps += 1
    memory.lapses += int(lapsed)
    memory.last_rating = int(rating)
    log.due_after = memory.due


# A memory before its first review, where a replay of its history starts.
NEVER_REVIEWED = {"phase": Phase.LEARNING, "step": None, "stability": None, "difficulty": None,
                  "last_review": None, "reps": 0, "lapses": 0, "last_rating": None}


def last_undoable(*, user, sources, scope):
    """The ReviewLog row that Undo in a session would take back, or None.

    That is the latest rating of any item in the session's scope, whatever its source, and
    only if its source is one of `sources`: after a question answer in "Review due", Undo
    must not reach past it to an earlier flashcard. Being the latest of the whole scope, it
    is also the latest rating of its own item, so undoing it rewrites no later history.
    """
    review = (
        scope.review_logs(user)
        .select_related("memory")
        .order_by("-reviewed_at", "-pk")
        .first()
    )
    return review if review is not None and review.source in sources else None


def undo_last(*, user, sources, scope, review_id=None):
    """Take back the session's last rating: restore the state it replaced and delete its log
    row. Returns the undone ReviewLog, or None when nothing was undone.

    `review_id` is the rating the learner's page offered to undo; when it is no longer the
    last one (a double click, a stale tab), nothing happens. The writes are guarded by the
    memory's `reps` as it was right after that rating, so a rating that lands meanwhile
    makes the undo a no-op instead of being silently overwritten.
    """
    review = last_undoable(user=user, sources=sources, scope=scope)
    if review is None or (review_id is not None and review.pk != review_id):
        return None
    before = review.state_before
    guarded = MemoryState.objects.filter(pk=review.memory_id, reps=1 if before is None else before["reps"] + 1)
    with transaction.atomic():
        if before is None:
            # Claim the row with a guarded UPDATE first: a plain delete() reads, then deletes
            # by pk, which would not notice a rating committed in between.
            if not guarded.update(reps=F("reps")):
                return None
            MemoryState.objects.filter(pk=review.memory_id).delete()  # the item is new again; its log goes too
        else:
            if not guarded.update(**restored(before)):
                return None
            ReviewLog.objects.filter(pk=review.pk).delete()
        _forget_counted_day(user, review.reviewed_at)
    return review


def _forget_counted_day(user, moment):
    """A rating taken back after its day ended (an undo just past midnight) changes a day the
    dashboard has already counted: count it again."""
    day = moment.astimezone(user.zone).date()
    if day < timezone.now().astimezone(user.zone).date():
        StudyDay.objects.forget_from(user, day)

# --- Predicted recall computed by the database --------------------------------------------------

def recall_expression(now, parameters=DEFAULT_PARAMETERS):
    """FSRS's forgetting curve as SQL: R = (1 + FACTOR * days / stability) ** DECAY, with
    whole elapsed days as py-fsrs counts them, so the database and the library agree.
    `parameters`: the learner's (their decay is the last one); for many learners at once see
    `recall_expression_per_learner`."""
    decay = -parameters[20]
    factor = 0.9 ** (1 / decay) - 1
    return _curve(now, Value(decay), Value(factor))


def recall_expression_per_learner(now):
    """The forgetting curve of each memory row's own learner: their decay (the last of their
    FSRS parameters once a personal fit was adopted, the default's otherwise) read from the
    user row in the query, so a class's figures follow every learner's own curve, as their
    dashboard does."""
    own = Cast(KeyTextTransform("20", "user__fsrs_parameters"), FloatField())
    decay = ExpressionWrapper(-Coalesce(own, Value(DEFAULT_PARAMETERS[20])), output_field=FloatField())
    factor = ExpressionWrapper(Power(Value(0.9), Value(1.0) / decay) - Value(1.0), output_field=FloatField())
    return _curve(now, decay, factor)


def _curve(now, decay, factor):
    """R = (1 + factor * days / stability) ** decay, with py-fsrs's whole elapsed days."""
    days = Greatest(Floor(Value(unix_days(now)) - UnixDays(F("last_review"))), Value(0.0))
    base = ExpressionWrapper(Value(1.0) + factor * days / F("stability"), output_field=FloatField())
    return Power(base, decay)
