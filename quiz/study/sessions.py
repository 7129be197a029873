"""Study sessions: a deck's flashcards, the mixed "Review due" queue and a deck's Myth-or-fact
drill. Each keeps the item it last showed in the learner's session (server side), not in the
form: a drill statement must not say in the page whether it is the myth or the fact, and a
rating is accepted only for the item the page showed, once."""

import random
import secrets

from django.urls import reverse

from quiz.models import Card, MemoryState, Question, ReviewLog

from . import scheduling
from .queue import QueueEntry, Scope, next_entry

Kind = MemoryState.Kind
Source = ReviewLog.Source


class Session:
    """One study session: its scope, its URL and the item it last showed (kept server side)."""

    def __init__(self, request, name, scope, url, title, undo_sources):
        self.request, self.name, self.scope, self.url, self.title = request, name, scope, url, title
        self.undo_sources = undo_sources

    @property
    def key(self):
        return f"shown:{self.name}"

    def remember(self, entry, choice_order=None):
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
        order = None
        if entry.kind == Kind.QUESTION:
            order = random.sample([c.pk for c in entry.item.choices.all()], k=len(entry.item.choices.all()))
        self.remember(entry, order)
        return entry, order


def _entry_if_unchanged(user, shown):
    kind = shown["kind"]
    model = Question if kind == Kind.QUESTION else Card
    related = "question_set" if kind == Kind.QUESTION else "deck"
    item = model.objects.select_related(related).prefetch_related(*(["choices"] if model is Question else [])).filter(
        pk=shown["item"]
    ).first()
    if item is None:
        return None
    memory = MemoryState.objects.filter(user=user, kind=kind, **scheduling.item_lookup(kind, item)).first()
    if (memory.reps if memory else 0) != shown["reps"]:
        return None  # rated since (another tab): move on
    return QueueEntry(kind, item, memory)


def deck_session(request, deck):
    return Session(
        request,
        f"deck-{deck.pk}",
        Scope(kinds=(Kind.CARD,), deck=deck),
        reverse("study_deck", args=[deck.pk]),
        deck.title,
        (Source.STUDY,),
    )


def review_session(request):
    return Session(
        request,
        "review",
        Scope(kinds=MemoryState.REVIEW_KINDS, include_new=False),
        reverse("review_due"),
        "Review due",
        (Source.STUDY,),
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

