"""What a study session shows next: due reviews (least likely recalled first), then new items
up to the learner's daily limit, then learning steps; and what a finished session says.

Keyword arguments and an explicit `now`, so tests run on a fixed clock.
"""

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import DateTimeField, DurationField, Exists, ExpressionWrapper, F, Min, OuterRef, Q, Subquery, Value
from django.utils import timezone

from quiz.models import Card, MemoryState, ReviewLog

Kind = MemoryState.Kind
Phase = MemoryState.Phase


@dataclass(frozen=True)
class Scope:
    """Which items a session draws from: some kinds, optionally one deck, with or without new items."""

    kinds: tuple
    deck: object = None
    include_new: bool = True

    def memories(self, user):
        memories = MemoryState.objects.filter(user=user, kind__in=self.kinds)
        return memories.filter(card__deck=self.deck) if self.deck is not None else memories

    def review_logs(self, user):
        """The log rows of this scope's items. Filtered on the joined memory row, not with
        `memory__in=<subquery>`, which the planner misestimates and sorts the whole log for."""
        logs = ReviewLog.objects.filter(user=user, memory__user=user, memory__kind__in=self.kinds)
        return logs.filter(memory__card__deck=self.deck) if self.deck is not None else logs

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
    learning = memories.filter(phase__in=MemoryState.LEARNING_PHASES, due__lte=now).order_by("due", "pk").first()
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


def until(moment, now):
    return max(moment - now, timedelta(0))


