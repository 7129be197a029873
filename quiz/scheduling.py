"""Spaced repetition with FSRS (the `fsrs` package) for every kind of study item.

One module because scheduling spans several models: a rating changes a MemoryState and
writes a Review; the queue reads memories, cards and today's reviews. Functions take
keyword arguments and an explicit `now`, so tests can run on a fixed clock.
"""

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, transaction
from django.db.models import (
    Count,
    DateTimeField,
    DurationField,
    Exists,
    ExpressionWrapper,
    F,
    FloatField,
    Min,
    OuterRef,
    Q,
    Subquery,
    Value,
)
from django.db.models.functions import Floor, Greatest, Power
from django.utils import timezone
from fsrs import Card as FsrsCard
from fsrs import Rating, Scheduler, State

from .models import Card, MemoryState, ReviewLog
from .sql import UnixDays, unix_days

# Fuzzing would make the interval printed on a button differ from the one applied;
# intervals here are exactly what the learner was promised.
SCHEDULER = Scheduler(enable_fuzzing=False)

Kind = MemoryState.Kind
Phase = MemoryState.Phase
LEARNING_PHASES = (Phase.LEARNING, Phase.RELEARNING)


# --- Converting between our rows and fsrs cards --------------------------------------------

def to_fsrs(memory, now):
    # An explicit card_id: without one, fsrs sleeps a millisecond to make a unique id.
    if memory is None or memory.pk is None:
        return FsrsCard(card_id=0, due=now)
    return FsrsCard(
        card_id=memory.pk,
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


def retrievability(memory, now):
    """Predicted probability of recall now (None for an item never studied)."""
    if memory is None or memory.last_review is None:
        return None
    return SCHEDULER.get_card_retrievability(to_fsrs(memory, now), now)


def next_intervals(memory, now):
    """What each rating would do: {Rating.AGAIN: timedelta, ...}, for the button labels."""
    card = to_fsrs(memory, now)
    return {rating: SCHEDULER.review_card(card, rating, now)[0].due - now for rating in Rating}


def short_interval(delta):
    """'10m', '3h', '2d', '4mo', '1.5y': the compact labels Anki puts on its buttons."""
    minutes = max(round(delta.total_seconds() / 60), 1)
    if minutes < 60:
        return f"{minutes}m"
    hours = round(minutes / 60)
    if hours < 24:
        return f"{hours}h"
    days = round(minutes / 1440)
    if days < 31:
        return f"{days}d"
    if days < 365:
        return f"{round(days / 30.4)}mo"
    return f"{days / 365:.1f}".rstrip("0").rstrip(".") + "y"


# --- Rating and undo ------------------------------------------------------------------------

def item_lookup(kind, item):
    return {"question": item} if kind == Kind.QUESTION else {"card": item}


def rate(*, user, kind, item, rating, source, now=None, expected_reps=None, duration_ms=None, **details):
    """Apply one rating to the learner's memory of an item; return the ReviewLog, or None.

    None means the rating was refused because it is stale: `expected_reps` (the number of
    reviews the learner's screen was showing) no longer matches, which is what a double
    submit or a second tab looks like. The guarded UPDATE makes that check atomic.
    """
    now = now or timezone.now()
    rating = Rating(rating)
    memory = MemoryState.objects.filter(user=user, kind=kind, **item_lookup(kind, item)).first()
    was_new = memory is None
    if expected_reps is not None and expected_reps != (0 if was_new else memory.reps):
        return None
    if was_new:
        memory = MemoryState(user=user, kind=kind, due=now, **item_lookup(kind, item))
    before = None if was_new else snapshot(memory)
    recall = retrievability(memory, now)
    card, _ = SCHEDULER.review_card(to_fsrs(memory, now), rating, now)
    lapsed = rating == Rating.Again and memory.phase == Phase.REVIEW
    _copy_fsrs(memory, card)
    memory.lapses += int(lapsed)
    memory.last_rating = int(rating)
    try:
        with transaction.atomic():
            if not _save_guarded(memory, was_new):
                return None
            return ReviewLog.objects.create(
                user=user,
                memory=memory,
                source=source,
                rating=int(rating),
                reviewed_at=now,
                duration_ms=duration_ms,
                was_new=was_new,
                retrievability=recall,
                due_after=memory.due,
                state_before=before,
                **details,
            )
    except IntegrityError:  # a concurrent first rating of the same new item won
        return None


def _save_guarded(memory, was_new):
    if was_new:
        memory.reps = 1
        memory.save(force_insert=True)
        return True
    fields = {name: getattr(memory, name) for name in SNAPSHOT_FIELDS if name != "reps"}
    updated = MemoryState.objects.filter(pk=memory.pk, reps=memory.reps).update(reps=F("reps") + 1, **fields)
    memory.reps += 1
    return bool(updated)


def last_undoable(*, user, sources, scope):
    """The Review that Undo in a session would take back, or None.

    That is the latest rating of any item in the session's scope, whatever its source, and
    only if its source is one of `sources`: after a question answer in "Review due", Undo
    must not reach past it to an earlier flashcard. Being the latest of the whole scope, it
    is also the latest rating of its own item, so undoing it rewrites no later history.
    """
    review = (
        ReviewLog.objects.filter(user=user, memory__in=scope.memories(user))
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
    return review


# --- The queue ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Scope:
    """Which items a session draws from: some kinds, optionally one deck, with or without new items."""

    kinds: tuple
    deck: object = None
    include_new: bool = True

    def memories(self, user):
        memories = MemoryState.objects.filter(user=user, kind__in=self.kinds)
        return memories.filter(card__deck=self.deck) if self.deck is not None else memories

    def cards(self):
        return Card.objects.filter(deck=self.deck) if self.deck is not None else Card.objects.all()


@dataclass
class QueueEntry:
    kind: str
    item: object  # a Card or a Question
    memory: MemoryState | None  # None for a new item


@dataclass
class QueueStatus:
    """What a finished session says instead of an empty page."""

    next_due: datetime | None
    new_limit_reached: bool


def new_items_introduced_today(user, now, kinds=(Kind.CARD,)):
    return ReviewLog.objects.filter(
        user=user, was_new=True, memory__kind__in=kinds, reviewed_at__gte=user.start_of_today(now)
    ).count()


def _most_forgotten_first(memories, now):
    # Retrievability falls as elapsed time / stability grows (FSRS's forgetting curve), so
    # ordering by that ratio, computed by the database, is ordering by predicted recall.
    elapsed = ExpressionWrapper(Value(now, output_field=DateTimeField()) - F("last_review"), output_field=DurationField())
    ratio = ExpressionWrapper(elapsed / F("stability"), output_field=DurationField())
    return memories.annotate(forgetting=ratio).order_by("-forgetting", "due", "pk")


def next_entry(*, user, scope, now=None, rng=None):
    """The next item to study: due reviews (least likely recalled first), then new items up
    to the daily limit, then learning steps that have come due. None when nothing is left."""
    now = now or timezone.now()
    memories = scope.memories(user).select_related("card__deck", "question__question_set")
    due_review = _most_forgotten_first(memories.filter(phase=Phase.REVIEW, due__lte=now), now).first()
    if due_review:
        return QueueEntry(due_review.kind, due_review.item, due_review)
    if scope.include_new:
        entry = _next_new(user, scope, now, rng)
        if entry:
            return entry
    learning = memories.filter(phase__in=LEARNING_PHASES, due__lte=now).order_by("due", "pk").first()
    if learning:
        return QueueEntry(learning.kind, learning.item, learning)
    return None


def _next_new(user, scope, now, rng):
    studied = MemoryState.objects.filter(user=user, card=OuterRef("pk"))
    if Kind.CARD in scope.kinds:
        if new_items_introduced_today(user, now) >= user.new_cards_per_day:
            return None
        card = (
            scope.cards().filter(~Exists(studied.filter(kind=Kind.CARD))).select_related("deck").order_by("deck", "position")
        ).first()
        return QueueEntry(Kind.CARD, card, None) if card else None
    if Kind.MYTH in scope.kinds:
        return _next_new_statement(scope, studied, rng)
    return None


def _next_new_statement(scope, studied, rng):
    """A card statement not yet drilled, from a random card.

    Cards with neither statement drilled come first, so a card's myth and fact are not shown
    back to back (the second would give itself away); which of the two comes first is a coin
    toss, so answering "Myth" every time scores about half. Then the remaining statements,
    never the card drilled last while another is left, for the same reason.
    """
    rng = rng or random
    drilled = studied.filter(kind__in=(Kind.MYTH, Kind.FACT))
    candidates = list(
        scope.cards()
        .exclude(misconception="")
        .annotate(
            myth_seen=Exists(studied.filter(kind=Kind.MYTH)),
            fact_seen=Exists(studied.filter(kind=Kind.FACT)),
            seen_at=Subquery(drilled.order_by("-last_review").values("last_review")[:1]),
        )
        .filter(Q(myth_seen=False) | Q(fact_seen=False))
        .order_by("pk")
        .values_list("pk", "myth_seen", "fact_seen", "seen_at")
    )
    fresh = [row for row in candidates if not (row[1] or row[2])]
    if fresh:
        pk, *_ = rng.choice(fresh)
        kind = rng.choice([Kind.MYTH, Kind.FACT])
    elif candidates:
        latest = max(row[3] for row in candidates)
        others = [row for row in candidates if row[3] != latest] or candidates
        pk, myth_seen, _, _ = rng.choice(others)
        kind = Kind.FACT if myth_seen else Kind.MYTH
    else:
        return None
    return QueueEntry(kind, scope.cards().select_related("deck").get(pk=pk), None)


def queue_status(*, user, scope, now=None):
    now = now or timezone.now()
    next_due = scope.memories(user).aggregate(next_due=Min("due"))["next_due"]
    limit_reached = Kind.CARD in scope.kinds and new_items_introduced_today(user, now) >= user.new_cards_per_day
    return QueueStatus(next_due=next_due, new_limit_reached=limit_reached)


def deck_counts(*, user, deck, now=None):
    """New, learning and due-now counts for a deck, in two queries."""
    now = now or timezone.now()
    counts = MemoryState.objects.filter(user=user, kind=Kind.CARD, card__deck=deck).aggregate(
        studied=Count("pk"),
        learning=Count("pk", filter=Q(phase__in=LEARNING_PHASES)),
        due=Count("pk", filter=Q(phase=Phase.REVIEW, due__lte=now)),
    )
    total = deck.cards.count()
    return {"new": total - counts["studied"], "learning": counts["learning"], "due": counts["due"], "total": total}


def until(moment, now):
    return max(moment - now, timedelta(0))


# --- Predicted recall computed by the database --------------------------------------------------

def recall_expression(now):
    """FSRS's forgetting curve as SQL: R = (1 + FACTOR * days / stability) ** DECAY, with
    whole elapsed days as py-fsrs counts them, so the database and the library agree."""
    decay = -SCHEDULER.parameters[20]
    factor = 0.9 ** (1 / decay) - 1
    days = Greatest(Floor(Value(unix_days(now)) - UnixDays(F("last_review"))), Value(0.0))
    base = ExpressionWrapper(Value(1.0) + Value(factor) * days / F("stability"), output_field=FloatField())
    return Power(base, Value(decay))
