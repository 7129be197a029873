"""Study sessions: a deck's flashcards, the mixed "Review due" queue and a deck's Myth-or-fact
drill. Each keeps the item it last showed in the learner's session (server side), not in the
form: a drill statement must not say in the page whether it is the myth or the fact, and a
rating is accepted only for the item the page showed, once.

A session also keeps its *run* there (no table): when the learner started on its items, so its
end can sum up what they did, and how far they chose to study ahead. A run begins when the
session shows an item and none is running (the last one finished, or began before the learner's
today); it finishes when nothing is left to show. So reloading the summary shows the same
summary, an Undo from it carries on the same run, and coming back later to new due items, or
choosing "Study ahead", begins a new one."""

import random
import secrets
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from django.db.models import Count, FilteredRelation, Max, Q, Sum
from django.urls import reverse

from quiz.models import Card, MemoryState, Question, ReviewLog

from . import scheduling
from .queue import LEARN_AHEAD, QueueEntry, Scope, next_entry, study_ahead_until


@dataclass
class Summary:
    """What a finished run did: ratings, how many were right (anything but Again), time spent."""

    reviewed: int
    right: int
    time_spent: timedelta | None

    @property
    def right_share(self):
        return self.right / self.reviewed if self.reviewed else None

Kind = MemoryState.Kind
Source = ReviewLog.Source


class Session:
    """One study session: its scope, its URL and the item it last showed (kept server side)."""

    def __init__(self, request, name, scope, url, title, undo_sources, sources=None, studies_ahead=False):
        self.request, self.name, self.url, self.title = request, name, url, title
        self.base_scope = scope
        self.undo_sources = undo_sources
        self.sources = sources or undo_sources  # the ratings a run's summary counts
        self.studies_ahead = studies_ahead  # whether its finished page offers "Study ahead"

    @property
    def key(self):
        return f"shown:{self.name}"

    @property
    def scope(self):
        """The session's items, reaching as far ahead as the learner chose to study ahead."""
        ahead = self.run().get("ahead_until")
        return replace(self.base_scope, ahead_until=datetime.fromisoformat(ahead)) if ahead else self.base_scope

    # --- The run: from the first item shown to "nothing left" ---------------------------------

    @property
    def run_key(self):
        return f"run:{self.name}"

    def run(self):
        return self.request.session.get(self.run_key) or {}

    def _save_run(self, **run):
        self.request.session[self.run_key] = {**self.run(), **run}

    def begin_run(self, now, ahead_until=None):
        self.request.session[self.run_key] = {
            "started": now.isoformat(),
            "done": False,
            "ahead_until": ahead_until.isoformat() if ahead_until else None,
        }

    def _run_is_over(self, now):
        run = self.run()
        return not run or run["done"] or datetime.fromisoformat(run["started"]) < self.request.user.start_of_today(now)

    def finish_run(self):
        """Nothing is left: the run is over (its summary stays until the next one begins)."""
        run = self.run()
        if run and not run["done"]:
            self._save_run(done=True, ahead_until=None)

    def study_ahead(self, now):
        """Begin a run in which items due soon (by tomorrow's end at least) count as due."""
        next_due = self.base_scope.memories(self.request.user, now).order_by("due").values_list("due", flat=True).first()
        self.begin_run(now, ahead_until=study_ahead_until(self.request.user, next_due, now))

    def summary(self):
        """What this run did, or None before any run: one aggregate over the run's log rows."""
        run = self.run()
        if not run:
            return None
        started = datetime.fromisoformat(run["started"])
        logs = self.base_scope.review_logs(self.request.user).filter(source__in=self.sources, reviewed_at__gte=started)
        totals = logs.aggregate(
            reviewed=Count("pk"),
            right=Count("pk", filter=~Q(rating=ReviewLog.Rating.AGAIN)),
            measured_ms=Sum("duration_ms"),
            last=Max("reviewed_at"),
        )
        if totals["measured_ms"] is not None:  # timed in the browser: the time spent on each card
            spent = timedelta(milliseconds=totals["measured_ms"])
        else:  # without JavaScript: from the run's first item shown to its last rating
            spent = totals["last"] - started if totals["last"] else None
        return Summary(reviewed=totals["reviewed"], right=totals["right"], time_spent=spent)

    # --- The item shown ------------------------------------------------------------------------

    def remember(self, entry, choice_order=None):
        if self.run().get("done"):
            self._save_run(done=False)  # an Undo from the summary carries on the same run
        self.request.session[self.key] = {
            "kind": entry.kind,
            "item": entry.item.pk,
            "reps": entry.memory.reps if entry.memory else 0,
            "choices": choice_order,
            # What the drill's form posts instead of the card's id: an id would let a learner
            # look the card up and tell the myth from the fact before answering.
            "token": secrets.token_urlsafe(12),
        }

    @property
    def token(self):
        shown = self.shown()
        return shown.get("token") if shown else None

    def shown(self):
        return self.request.session.get(self.key)

    def forget(self):
        self.request.session.pop(self.key, None)

    def undoable(self):
        """The rating Undo would take back here: this session's last action, if it can be undone."""
        return scheduling.last_undoable(user=self.request.user, sources=self.undo_sources, scope=self.scope)

    def current_entry(self, now):
        """The item shown last if it is still unanswered (stable on reload, and what undo
        puts back), else the next one from the queue."""
        shown = self.shown()
        if shown:
            entry = _entry_if_unchanged(self.request.user, shown)
            if entry:
                return entry, shown.get("choices")
        entry = next_entry(user=self.request.user, scope=self.scope, now=now)
        if entry is None:
            self.forget()
            return None, None
        if self._run_is_over(now):
            self.begin_run(now)
        order = None
        if entry.kind == Kind.QUESTION:
            order = [c.pk for c in entry.item.choices.all()]
            if entry.item.kind != Question.Kind.TRUE_FALSE:  # True stays first, as in a quiz
                order = random.sample(order, k=len(order))
        self.remember(entry, order)
        return entry, order


def _entry_if_unchanged(user, shown):
    kind = shown["kind"]
    model = Question if kind == Kind.QUESTION else Card
    related = "question_set" if kind == Kind.QUESTION else "deck"
    # The item and the learner's memory of it in one query: a LEFT JOIN on the one memory row
    # the unique constraints allow (user, kind, item). That query saved pays for the session's
    # counters (new, learning, due), so the study page keeps its query count.
    mine = FilteredRelation("memories", condition=Q(memories__user=user, memories__kind=kind))
    item = (
        model.objects.annotate(mine=mine)
        .select_related(related, "mine")
        .prefetch_related(*(["choices"] if model is Question else []))
        .filter(pk=shown["item"])
        .first()
    )
    if item is None:
        return None
    memory = getattr(item, "mine", None)  # no attribute at all when the join found no row
    if (memory.reps if memory else 0) != shown["reps"]:
        return None  # rated since (another tab): move on
    return QueueEntry(kind, item, memory)


def deck_session(request, deck):
    return Session(
        request,
        f"deck-{deck.pk}",
        Scope(kinds=(Kind.CARD,), deck=deck, learn_ahead=LEARN_AHEAD),
        reverse("study_deck", args=[deck.pk]),
        deck.title,
        (Source.STUDY,),
        studies_ahead=True,
    )


def review_session(request):
    return Session(
        request,
        "review",
        Scope(kinds=MemoryState.REVIEW_KINDS, include_new=False, learn_ahead=LEARN_AHEAD),
        reverse("review_due"),
        "Review due",
        (Source.STUDY,),
        sources=(Source.STUDY, Source.REVIEW),
        studies_ahead=True,
    )


def drill_session(request, deck):
    return Session(
        request,
        f"drill-{deck.pk}",
        Scope(kinds=(Kind.MYTH, Kind.FACT), deck=deck),
        reverse("drill", args=[deck.pk]),
        deck.title,
        (Source.DRILL,),
    )

