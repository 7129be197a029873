"""What a study session shows next: due reviews (least likely recalled first), then new items
up to the learner's daily limit, then learning steps, including those due within the learn-ahead
window (as Anki does, so a card rated Again comes back in the same sitting instead of ending it);
how many of each are left; and what a finished session says.

Keyword arguments and an explicit `now`, so tests run on a fixed clock.
"""

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import DateTimeField, DurationField, Exists, ExpressionWrapper, F, OuterRef, Q, Subquery, Value
from django.utils import timezone

from quiz.lib.days import start_of_day
from quiz.models import Card, Deck, MemoryState, Question, ReviewLog, User, count_of

Kind = MemoryState.Kind
Phase = MemoryState.Phase

# Anki's default "learn ahead limit": when nothing else is left, a learning step due within this
# long is shown now rather than ending the session on "next review in 1 min".
LEARN_AHEAD = timedelta(minutes=20)


@dataclass(frozen=True)
class Scope:
    """Which items a session draws from: some kinds, optionally one deck, with or without new items.

    `learn_ahead`: how early a learning step may be shown once nothing else is due.
    `ahead_until`: studying ahead, every item due before this moment counts as due (after the
    items really due), soonest first."""

    kinds: tuple
    deck: object = None
    include_new: bool = True
    learn_ahead: timedelta = timedelta(0)
    ahead_until: datetime | None = None

    def learning_horizon(self, now):
        """Learning steps due before this are part of the session now."""
        return max(now + self.learn_ahead, self.ahead_until or now)

    def review_horizon(self, now):
        """Reviews due before this are part of the session now (later than `now` when studying ahead)."""
        return max(now, self.ahead_until or now)

    def memories(self, user, now=None):
        memories = MemoryState.objects.filter(user=user, kind__in=self.kinds)
        if self.deck is not None:
            return memories.filter(card__deck=self.deck)
        if MemoryState.Kind.QUESTION in self.kinds:
            # A question held back by an assignment is not reviewed with its answer before the due
            # date. Read as a list: the counters use these memories four times over.
            held = Question.objects.held_back_ids(user, now or timezone.now())
            if held:
                memories = memories.exclude(question__in=held)
        return memories

    def review_logs(self, user):
        """The log rows of this scope's items. Filtered on the joined memory row, not with
        `memory__in=<subquery>`, which the planner misestimates and sorts the whole log for."""
        logs = ReviewLog.objects.filter(user=user, memory__user=user, memory__kind__in=self.kinds)
        return logs.filter(memory__card__deck=self.deck) if self.deck is not None else logs

    def cards(self, user):
        """The cards new ones are drawn from: the session's deck (the view checked the learner
        may see it), or every deck the learner may see."""
        if self.deck is not None:
            return Card.objects.current().filter(deck=self.deck)
        return Card.objects.current().filter(deck__in=Deck.objects.visible_to(user))


@dataclass
class QueueEntry:
    kind: str
    item: object  # a Card or a Question
    memory: MemoryState | None  # None for a new item


@dataclass
class QueueStatus:
    """What is left in a session (Anki's three numbers: new, learning, review) and, for a finished
    one, what comes next."""

    next_due: datetime | None
    new_limit_reached: bool
    new: int = 0
    learning: int = 0
    review: int = 0
    due_by_tomorrow: int = 0  # due before the learner's tomorrow ends, whatever its phase
    due_for_review: int | None = None  # with `with_review_due`: what "Review due" holds now, whatever the scope

    @property
    def left(self):
        return self.new + self.learning + self.review

    def counting(self, entry, scope, now):
        """The counts with the item shown among them: a learning step shown before it is due
        (the learn-ahead window, once nothing else is left) is not due yet, yet it is left."""
        if entry is not None and entry.memory is not None and entry.memory.due > scope.review_horizon(now):
            queue = "learning" if entry.memory.phase in MemoryState.LEARNING_PHASES else "review"
            setattr(self, queue, getattr(self, queue) + 1)
        return self


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
    memories = scope.memories(user, now).select_related("card__deck", "question__question_set")
    due_review = _most_forgotten_first(memories.filter(phase=Phase.REVIEW, due__lte=now), now).first()
    if due_review:
        return QueueEntry(due_review.kind, due_review.item, due_review)
    if scope.include_new:
        entry = _next_new(user, scope, now, rng)
        if entry:
            return entry
    # Learning steps (early within the learn-ahead window) and, studying ahead, reviews due soon:
    # soonest first, in one query whichever applies.
    later = Q(phase__in=MemoryState.LEARNING_PHASES, due__lte=scope.learning_horizon(now))
    if scope.ahead_until is not None:
        later |= Q(phase=Phase.REVIEW, due__lte=scope.review_horizon(now))
    learning = memories.filter(later).order_by("due", "pk").first()
    if learning:
        return QueueEntry(learning.kind, learning.item, learning)
    return None


def _next_new(user, scope, now, rng):
    studied = MemoryState.objects.filter(user=user, card=OuterRef("pk"))
    if Kind.CARD in scope.kinds:
        if new_items_introduced_today(user, now) >= user.new_cards_per_day:
            return None
        card = (
            scope.cards(user).filter(~Exists(studied.filter(kind=Kind.CARD))).select_related("deck").order_by("deck", "position")
        ).first()
        return QueueEntry(Kind.CARD, card, None) if card else None
    if Kind.MYTH in scope.kinds:
        return _next_new_statement(user, scope, studied, rng)
    return None


def _next_new_statement(user, scope, studied, rng):
    """A statement from a card that still has one not drilled: the myth or the fact, by a
    fresh coin toss each time, whatever was shown of that card before.

    Were the second statement of a card always the other one, a learner who remembers the
    first would know the answer; so a toss may show a statement again (an early review of
    it) rather than the one left. Cards never drilled come first, and never the card drilled
    last while another is left, so a card's two statements do not come back to back.
    """
    rng = rng or random
    drilled = studied.filter(kind__in=(Kind.MYTH, Kind.FACT))
    candidates = list(
        scope.cards(user)
        .exclude(misconception="")
        .filter(cloze__isnull=True)  # "About: <front>" would tell a cloze card's answer
        .annotate(
            myth_memory=Subquery(studied.filter(kind=Kind.MYTH).values("pk")[:1]),
            fact_memory=Subquery(studied.filter(kind=Kind.FACT).values("pk")[:1]),
            seen_at=Subquery(drilled.order_by("-last_review").values("last_review")[:1]),
        )
        .filter(Q(myth_memory__isnull=True) | Q(fact_memory__isnull=True))
        .order_by("pk")
        .values_list("pk", "myth_memory", "fact_memory", "seen_at")
    )
    if not candidates:
        return None
    fresh = [row for row in candidates if row[1] is None and row[2] is None]
    if not fresh:
        latest = max(row[3] for row in candidates)
        fresh = [row for row in candidates if row[3] != latest] or candidates
    pk, myth_memory, fact_memory, _ = rng.choice(fresh)
    kind = rng.choice([Kind.MYTH, Kind.FACT])
    memory_pk = myth_memory if kind == Kind.MYTH else fact_memory
    memory = MemoryState.objects.get(pk=memory_pk) if memory_pk else None
    return QueueEntry(kind, scope.cards(user).select_related("deck").get(pk=pk), memory)


def queue_status(*, user, scope, now=None, with_review_due=False):
    """What is left in the session and what comes next, in one query (subqueries on the learner's
    row), each count bounded by the indexed memory table, never by the size of the history.
    `with_review_due`: also count what "Review due" holds now (a finished deck says so)."""
    now = now or timezone.now()
    memories = scope.memories(user, now)
    counts = {
        # Due as everywhere (MemoryStateQuerySet.due): at or before now, or before the end of the
        # run when studying ahead; a learning step shown early is counted by `counting`.
        "learning": count_of(memories.filter(phase__in=MemoryState.LEARNING_PHASES, due__lte=scope.review_horizon(now))),
        "review": count_of(memories.filter(phase=Phase.REVIEW, due__lte=scope.review_horizon(now))),
        "due_by_tomorrow": count_of(memories.filter(due__lt=end_of_tomorrow(user, now))),
        "next_due": Subquery(memories.order_by("due").values("due")[:1]),
    }
    if Kind.CARD in scope.kinds:
        introduced = ReviewLog.objects.filter(
            user=user, was_new=True, memory__kind=Kind.CARD, reviewed_at__gte=user.start_of_today(now)
        )
        counts["introduced"] = count_of(introduced)
    if scope.include_new and Kind.CARD in scope.kinds:
        studied = MemoryState.objects.filter(user=user, kind=Kind.CARD, card=OuterRef("pk"))
        counts["unseen"] = count_of(scope.cards(user).filter(~Exists(studied)))
    if with_review_due:
        review = Scope(kinds=MemoryState.REVIEW_KINDS, include_new=False)
        counts["due_for_review"] = count_of(review.memories(user, now).due(now))
    row = User.objects.filter(pk=user.pk).values(**counts).get()
    room = max(user.new_cards_per_day - row.get("introduced", 0), 0)
    return QueueStatus(
        next_due=row["next_due"],
        new_limit_reached="introduced" in row and room == 0,
        new=min(row.get("unseen", 0), room),
        learning=row["learning"],
        review=row["review"],
        due_by_tomorrow=row["due_by_tomorrow"],
        due_for_review=row.get("due_for_review"),
    )


def end_of_tomorrow(user, now):
    """When the learner's tomorrow ends (their midnight, daylight saving included)."""
    return start_of_day(now.astimezone(user.zone).date() + timedelta(days=2), user.zone)


def study_ahead_until(user, next_due, now):
    """How far "Study ahead" reaches: the end of the learner's tomorrow, or of the day the next
    item falls due when that is later, so there is always something to study ahead."""
    until_tomorrow = end_of_tomorrow(user, now)
    if next_due is None or next_due < until_tomorrow:
        return until_tomorrow
    return start_of_day(next_due.astimezone(user.zone).date() + timedelta(days=1), user.zone)


def until(moment, now):
    return max(moment - now, timedelta(0))


