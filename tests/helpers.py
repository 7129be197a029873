"""Helpers shared by the test files: a signed-in client, a page's query count, the HTMX
header, a question's URL, answering a whole attempt and rating an item, both through the
app's own code paths."""

import re
from importlib import import_module

from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

# What htmx sends with every request it makes.
HTMX = {"HTTP_HX_REQUEST": "true"}

# What a signed-in request costs before its page: its session row, then its user (Django's
# AuthenticationMiddleware). The query counts of the tests are this plus the page's own.
AUTH = 2


def logged_in(user):
    """A client signed in as `user`, its session already noting the test client's device and
    address, as a browser's session does from its first page on (django-qsessions writes the
    session again whenever they change): a page's query count is then what a browser's costs."""
    client = Client()
    client.force_login(user)
    # Saved as the session middleware saves it for the test client (no user agent, 127.0.0.1).
    engine = import_module(settings.SESSION_ENGINE)
    engine.SessionStore(client.session.session_key, user_agent="", ip="127.0.0.1").save()
    return client


def count_queries(client, url, method="get", data=None, ok=(200, 302)):
    """How many queries one request runs; the response must have one of the `ok` statuses."""
    with CaptureQueriesContext(connection) as context:
        response = getattr(client, method)(url, data or {})
    assert response.status_code in ok, (url, response.status_code)
    return len(context.captured_queries)


def question_url(attempt, position):
    return reverse("attempt_question", args=[attempt.pk, position])


def answer_all(attempt, right=None, *, now=None):
    """Answer every open slot as the quiz page does; `right` is how many of them (in slot
    order) to get right, all by default. A deferred-feedback attempt is then submitted, as its
    learner does with "Submit all and finish" (answering the last question does not finish
    it). Returns the attempt, refreshed."""
    from quiz.study.answers import submit_answer
    from quiz.study.catch_up import finish_and_release

    slots = list(attempt.slots.filter(answered_at__isnull=True).order_by("position"))
    right = len(slots) if right is None else right
    for index, slot in enumerate(slots):
        number = right_answer(slot) if index < right else wrong_answer(slot)
        submit_answer(attempt=attempt, slot=slot, number=number, now=now)
    attempt.refresh_from_db()
    if not attempt.is_finished and not attempt.shows_feedback_per_question and not attempt.is_past_deadline(now):
        finish_and_release(attempt, now=now)
    return attempt


def correct_number(slot):
    """The on-screen number (1-based, as shuffled for this attempt) of the right choice."""
    return slot.correct_number


def wrong_number(slot):
    """The on-screen number of the first wrong choice of a slot."""
    return next(n for n, choice in enumerate(slot.shown_choices, start=1) if not choice["correct"])


def right_numbers(slot):
    return [n for n, choice in enumerate(slot.shown_choices, start=1) if choice["correct"]]


def right_answer(slot):
    """The full-credit answer to a slot of any kind: a number, or the list of the right ones."""
    return right_numbers(slot) if slot.several_picks else slot.correct_number


def wrong_answer(slot):
    """An answer with no credit: the first wrong choice (choose N: it and N-1 right ones)."""
    if not slot.several_picks:
        return wrong_number(slot)
    if slot.kind == "choose":
        return right_numbers(slot)[1:] + [wrong_number(slot)]
    return [wrong_number(slot)]


def rate_item(user, item, rating, at=None, *, source=None, kind=None, **options):
    """Rate a card or a question through the real scheduler (at a fixed moment, if given)."""
    from quiz.models import MemoryState, Question, ReviewLog
    from quiz.study import scheduling

    Kind = MemoryState.Kind
    kind = kind or (Kind.QUESTION if isinstance(item, Question) else Kind.CARD)
    source = source or {Kind.QUESTION: ReviewLog.Source.REVIEW, Kind.CARD: ReviewLog.Source.STUDY}.get(
        kind, ReviewLog.Source.DRILL
    )
    return scheduling.rate(user=user, kind=kind, item=item, rating=rating, source=source, now=at, **options)


def study_url(deck):
    return reverse("study_deck", args=[deck.pk])


def shown_item_id(html):
    """The id of the item a study page shows (its hidden `item` field)."""
    return int(re.search(r'name="item" value="(\d+)"', html).group(1))


def shown_token(html):
    """The token a drill page's form posts for the statement it shows."""
    return re.search(r'name="token" value="([^"]+)"', html).group(1)


def rate_shown_card(client, deck, rating=3, **extra):
    """Open a deck's study page and rate the card it shows; returns (card id, response)."""
    url = reverse("study_deck", args=[deck.pk])
    card_id = shown_item_id(client.get(url).content.decode())
    return card_id, client.post(url, {"item": card_id, "rating": rating}, **extra)


def answer_at(attempt, slot, right, at):
    """Answer one slot (or the slot at this position) of an attempt at a fixed moment, as the
    quiz page does."""
    from quiz.study.answers import submit_answer

    if isinstance(slot, int):
        slot = attempt.slots.get(position=slot)
    return submit_answer(attempt=attempt, slot=slot, number=correct_number(slot) if right else wrong_number(slot), now=at)


def answer_and_submit(attempt, slot, right, at):
    """Answer the last open question of a deferred-feedback attempt and submit the attempt at the
    same moment ("Submit all and finish"): what finishes such an attempt and releases its answers."""
    from quiz.study.catch_up import finish_and_release

    recorded = answer_at(attempt, slot, right, at)
    finish_and_release(attempt, now=at)
    return recorded
