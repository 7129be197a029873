"""Spaced-repetition pages: decks, flashcard study, the mixed "Review due" session, the
Myth-or-fact drill, the feedback on review questions and drill statements, card info, undo
and "Retake my mistakes". The sessions themselves are `quiz.study.sessions`."""

import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Exists, OuterRef, Q
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from quiz.content.export import DECK_FORMATS, download_choices
from quiz.forms import DrillAnswerForm, RatingForm, ReviewAnswerForm, id_from_form
from quiz.lib.durations import short_interval
from quiz.lib.http import render_page, safe_next
from quiz.lib.numbers import percent_of
from quiz.models import Attempt, Card, Choice, Deck, Markup, MemoryState, Question, ReviewLog
from quiz.models.kinds import (
    TYPED,
    credit_for,
    is_full_credit,
    items_of,
    matching_credit,
    options_of,
    pick_instruction,
    typed_credit,
)
from quiz.models.slots import accepted_review, matching_review, review_of, snapshot_of
from quiz.study import scheduling
from quiz.study.answers import question_shown, rating_for
from quiz.study.catch_up import catch_up_learner
from quiz.study.queue import QueueEntry, end_of_tomorrow, queue_status, study_ahead_until, until
from quiz.study.sessions import deck_session, drill_session, review_session

Kind = MemoryState.Kind
Source = ReviewLog.Source


@require_safe
@login_required
def deck(request, deck_id):
    deck = get_object_or_404(Deck.objects.visible_to(request.user).with_counts_for(request.user), pk=deck_id)
    cards = Paginator(deck.cards.current().order_by("position"), settings.QUIZ_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {"deck": deck, "page": cards, "deck_formats": download_choices(DECK_FORMATS)}
    return render(request, "quiz/deck.html", context)


@require_http_methods(["GET", "POST"])
@login_required
def study_deck(request, deck_id):
    deck = get_object_or_404(Deck.objects.visible_to(request.user), pk=deck_id)
    return _study(request, deck_session(request, deck))


@require_http_methods(["GET", "POST"])
@login_required
def review_due(request):
    return _study(request, review_session(request))


def _study(request, session):
    now = timezone.now()
    if request.method == "POST" and "study_ahead" in request.POST:
        session.study_ahead(now)  # a new run in which items due soon count as due
        return redirect(session.url)
    if request.method == "POST":
        return _rate(request, session, now)  # redirects to the GET below, which catches up
    catch_up_learner(request.user, now=now)  # answers released since the last visit
    entry, order = session.current_entry(now)
    return _render_study(request, session, entry, order, now)


def _rate(request, session, now):
    shown = session.shown()
    if shown and shown["kind"] == Kind.QUESTION:
        return _answer_review_question(request, session, shown, now)
    form = RatingForm(request.POST)
    if not form.is_valid():
        return _refuse(request, session, now, "Rate the card with Again, Hard, Good or Easy.")
    if not shown or shown["item"] != form.cleaned_data["item"]:
        return _refuse(request, session, now, "That card is no longer the one shown, so the rating was not saved.")
    card = Card.objects.filter(pk=shown["item"]).first()
    review = card and scheduling.rate(
        user=request.user,
        kind=Kind.CARD,
        item=card,
        rating=form.cleaned_data["rating"],
        source=Source.STUDY,
        now=now,
        expected_reps=shown["reps"],
        duration_ms=form.cleaned_data["duration_ms"],
    )
    if review is None:
        return _refuse(request, session, now, "That card was already rated.")
    session.forget()
    return redirect(session.url)


def _answer_review_question(request, session, shown, now):
    question = Question.objects.prefetch_related("choices").filter(pk=shown["item"]).first()
    seen = _choices_as_shown(question, shown["choices"]) if question else []
    kind = question.kind if question else Question.Kind.SINGLE
    items, options = (items_of(seen), review_options(seen)) if kind == Question.Kind.MATCHING else (seen, None)
    form = ReviewAnswerForm(request.POST, choices=items, kind=kind, options=options)
    if question is None or not form.is_valid() or form.cleaned_data["item"] != question.pk:
        problem = form.errors.get("choice", ["Pick one of the choices of the question shown."])[0]
        return _refuse(request, session, now, problem)
    answer = form.cleaned_data["choice"]
    pairs = None
    if question.kind == Question.Kind.MATCHING:
        credit, matched_id, accepted = matching_credit(items, options, answer, partial_credit=question.partial_credit), None, None
        pairs = matching_review(items, options, answer)
    elif question.kind in TYPED:
        credit, number = typed_credit(question.kind, seen, answer, case_sensitive=question.case_sensitive)
        matched_id = seen[number - 1]["id"] if number else None
        accepted = accepted_review(seen, matched_id=matched_id)
    else:
        picks = answer if isinstance(answer, list) else [answer]
        credit = credit_for(question.kind, seen, picks, partial_credit=question.partial_credit)
        matched_id = None if isinstance(answer, list) else seen[answer - 1]["id"]
        accepted = None
    review = scheduling.rate(
        user=request.user,
        kind=Kind.QUESTION,
        item=question,
        rating=rating_for(is_full_credit(credit)),
        source=Source.REVIEW,
        now=now,
        expected_reps=shown["reps"],
        # NULL if the choice was deleted since the page showed it (as an attempt's answer does).
        chosen_choice_id=Choice.id_if_still_there(matched_id) if matched_id else None,
        shown={
            **question_shown(
                stem=question.stem, explanation=question.explanation, kind=question.kind, accepted=accepted,
                choices=[(choice["text"], choice["correct"]) for choice in seen], chosen=answer, markup=question.markup,
            ),
            **({"pairs": pairs} if pairs is not None else {}),
        },
    )
    if review is None:
        return _refuse(request, session, now, "That question was already answered.")
    session.forget()
    return redirect(_answer_url(review, session))


def review_options(seen):
    """A matching question's options in review due: in alphabetical order (the session keeps the
    items' shuffle, and a fixed order keeps grading and the page agreeing)."""
    return sorted(options_of(seen), key=str.casefold)


def _choices_as_shown(question, order):
    """The question's choices in the order the session showed them (those deleted since left
    out, as the page leaves them out), as a slot keeps them: what grading reads."""
    by_id = {choice.pk: choice for choice in question.choices.all()}
    return [snapshot_of(by_id[pk], question.partial_credit, question.kind) for pk in order or [] if pk in by_id]


def _refuse(request, session, now, message):
    """Write nothing; show what the session shows now, with the reason (409 Conflict)."""
    entry, order = session.current_entry(now)
    return _render_study(request, session, entry, order, now, error=message, status=409)


def _render_study(request, session, entry, order, now, error=None, status=200):
    context = {"entry": entry, "error": error}
    if entry is not None and entry.kind == Kind.QUESTION:
        seen = _choices_as_shown(entry.item, order)
        context["options"] = [(number, choice["text"], False) for number, choice in enumerate(seen, start=1)]
        context["instruction"] = pick_instruction(entry.item.kind, seen)
        if entry.item.kind == Question.Kind.MATCHING:
            options = review_options(seen)
            context["matching"] = [
                (n, item["text"], [(k, option, False) for k, option in enumerate(options, start=1)])
                for n, item in enumerate(items_of(seen), start=1)
            ]
    elif entry is not None:
        context.update(_card_context(entry, now, request.user))
    if entry is not None:
        # Anki's three numbers, new, learning and review, left in the session (the item shown included).
        context["status"] = queue_status(user=request.user, scope=session.scope, now=now).counting(
            entry, session.scope, now
        )
        context["current_queue"] = _queue_of(entry)
    return _render_session(request, session, "quiz/study.html", context, now, status)


def _queue_of(entry):
    """Which of the three counters the item shown is counted in."""
    if entry.memory is None:
        return "new"
    return "learning" if entry.memory.phase in MemoryState.LEARNING_PHASES else "review"


def _render_session(request, session, template, context, now, status=200):
    """A session's page, or its #study-item partial for HTMX, with what every session shows:
    the Undo button when its last action can be undone, and when nothing is left, a summary of
    the run and what comes next."""
    context.update(session=session, undoable=session.undoable())
    if context["entry"] is None:
        session.finish_run()
        context.update(_what_comes_next(request.user, session, now), summary=session.summary())
    return render_page(request, template, "study-item", context, status=status, push_url=session.url)


def _what_comes_next(user, session, now):
    # "All caught up" in one deck must not read as nothing due at all: it says what Review holds.
    one_deck = session.scope.deck is not None and session.scope.kinds == (Kind.CARD,)
    status = queue_status(user=user, scope=session.scope, now=now, with_review_due=one_deck)
    context = {"status": status, "wait": status.next_due and until(status.next_due, now), "ahead_through": None}
    if session.studies_ahead and status.next_due is not None:
        # The last day "Study ahead" reaches, as the learner's calendar says it.
        ahead_until = study_ahead_until(user, status.next_due, now)
        context["ahead_through"] = (ahead_until - timedelta(microseconds=1)).astimezone(user.zone).date()
        context["ahead_is_tomorrow"] = ahead_until == end_of_tomorrow(user, now)
    return context


def _card_context(entry, now, user):
    scheduler = scheduling.scheduler_for(user)
    recall = scheduling.retrievability(entry.memory, now, scheduler)
    intervals = scheduling.next_intervals(entry.memory, now, scheduler)
    buttons = [
        {"value": int(rating), "label": ReviewLog.Rating(int(rating)).label, "interval": short_interval(delta)}
        for rating, delta in intervals.items()
    ]
    return {"recall": percent_of(recall), "buttons": buttons}


@require_http_methods(["GET", "POST"])
@login_required
def drill(request, deck_id):
    deck = get_object_or_404(Deck.objects.visible_to(request.user), pk=deck_id)
    session = drill_session(request, deck)
    now = timezone.now()
    error, status = None, 200
    if request.method == "POST":
        shown = session.shown()
        form = DrillAnswerForm(request.POST)
        if form.is_valid() and shown and secrets.compare_digest(shown.get("token", ""), form.cleaned_data["token"]):
            review = _rate_statement(request.user, shown, form.cleaned_data["answer"], now)
            if review:
                session.forget()
                return redirect(_answer_url(review, session))
        error, status = "That statement is no longer the one shown, so the answer was not saved.", 409
    entry, _ = session.current_entry(now)
    context = {"entry": entry, "error": error, "token": session.token}
    return _render_session(request, session, "quiz/drill.html", context, now, status)


def _rate_statement(user, shown, answer, now):
    card = Card.objects.filter(pk=shown["item"]).first()
    if card is None:
        return None
    return scheduling.rate(
        user=user,
        kind=shown["kind"],
        item=card,
        rating=rating_for(answer == shown["kind"]),
        source=Source.DRILL,
        now=now,
        expected_reps=shown["reps"],
        answer=answer,
    )


def _answer_url(review, session):
    return f"{reverse('review_answer', args=[review.pk])}?next={session.url}"


@require_safe
@login_required
def review_answer(request, review_id):
    """Feedback on one answered review question or drill statement (the learner's own)."""
    review = get_object_or_404(
        ReviewLog.objects.filter(user=request.user, memory__kind__in=[Kind.QUESTION, Kind.MYTH, Kind.FACT]).select_related(
            "memory__card__deck", "memory__question__question_set", "chosen_choice"
        ),
        pk=review_id,
    )
    default = reverse("review_due") if review.memory.kind == Kind.QUESTION else review.memory.card.deck.get_absolute_url()
    next_url = safe_next(request, request.GET.get("next", ""), default)
    correct = review.rating != ReviewLog.Rating.AGAIN
    context = {"review": review, "memory": review.memory, "correct": correct, "next_url": next_url}
    if review.memory.kind == Kind.QUESTION:
        context.update(_question_as_seen(review))
    return render_page(request, "quiz/review_answer.html", "study-item", context)


def _question_as_seen(review):
    """The question as the learner saw it when answering (its snapshot; log rows from before
    snapshots existed fall back to the question as it is now)."""
    shown = review.shown
    if not shown:
        question = review.memory.question
        choices = [
            {"text": c.text, "correct": c.is_correct, "chosen": c.pk == review.chosen_choice_id}
            for c in question.choices.order_by("position")
        ]
        return {"stem": question.stem, "explanation": question.explanation, "choices": choices, "markup": question.markup}
    seen = {"stem": shown["stem"], "explanation": shown["explanation"], "markup": shown.get("markup", Markup.PLAIN)}
    if "pairs" in shown:  # a matching answer
        return {**seen, "pairs": shown["pairs"]}
    if "accepted" in shown:  # a typed answer
        return {**seen, "typed": shown["chosen"], "accepted": shown["accepted"]}
    chosen = shown["chosen"]
    several = isinstance(chosen, list)
    return {**seen, "choices": review_of(shown["choices"], chosen if several else [chosen], several=several)}


@require_POST
@login_required
def undo(request):
    """Take back the last rating of this session's kind and show that item again."""
    session = _session_named(request, request.POST.get("session", ""))
    # The form names the rating it was shown for, so a double click or a stale page undoes nothing more.
    review_id = id_from_form(request.POST.get("review", ""))
    undone = None
    if review_id is not None:
        undone = scheduling.undo_last(
            user=request.user, sources=session.undo_sources, scope=session.scope, review_id=review_id
        )
    if undone is None:
        messages.info(request, "Nothing to undo.")
    else:
        memory = MemoryState.objects.filter(pk=undone.memory_id).first()
        item = undone.memory.item
        session.remember(QueueEntry(undone.memory.kind, item, memory), _choice_order(undone.memory))
    return redirect(session.url)


def _choice_order(memory):
    if memory.kind != Kind.QUESTION:
        return None
    return [choice.pk for choice in memory.question.choices.all()]


@require_safe
@login_required
def card_info(request, card_id):
    # A card of a deck the learner may see, or one they studied (its history is theirs).
    studied = MemoryState.objects.filter(user=request.user, card=OuterRef("pk"))
    cards = Card.objects.filter(Q(deck__in=Deck.objects.visible_to(request.user)) | Exists(studied))
    card = get_object_or_404(cards.select_related("deck"), pk=card_id)
    now = timezone.now()
    memories = list(MemoryState.objects.filter(user=request.user, card=card).order_by("kind"))
    scheduler = scheduling.scheduler_for(request.user)
    # Recall a week ahead, as the dashboard gives it (see scheduling.RECALL_AHEAD).
    states = [
        {
            "memory": m,
            "kind": m.get_kind_display(),
            "learning": scheduling.is_learning(m),
            "recall": scheduling.recall_ahead(m, now, scheduler),
        }
        for m in memories
    ]
    reviews = ReviewLog.objects.filter(user=request.user, memory__card=card).select_related("memory")
    page = Paginator(reviews, settings.QUIZ_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {"card": card, "states": states, "page": page, "myth_shown": card.myth_readable_by(request.user, memories)}
    return render(request, "quiz/card_info.html", context)


@require_POST
@login_required
def retake_mistakes(request):
    catch_up_learner(request.user)
    questions = (
        Question.objects.current()
        .practisable_by(request.user, timezone.now())
        .filter(pk__in=MemoryState.objects.for_user(request.user).last_answered_wrong().values("question"))
        .order_by("question_set", "position")
    )
    if not questions.exists():
        messages.info(request, "No mistakes to retake: every question you answered, you last got right.")
        return redirect("home")
    attempt = Attempt.objects.start_custom(
        user=request.user, purpose="mistakes", title="Retake my mistakes", questions=questions
    )
    return redirect(attempt)


def _session_named(request, name):
    """The session an Undo form names ("review", "deck-3", "drill-3"), or 404."""
    if name == "review":
        return review_session(request)
    kind, _, deck_id = name.partition("-")
    if kind in ("deck", "drill") and id_from_form(deck_id) is not None:
        deck = get_object_or_404(Deck.objects.visible_to(request.user), pk=id_from_form(deck_id))
        return (deck_session if kind == "deck" else drill_session)(request, deck)
    raise Http404("No such study session.")
