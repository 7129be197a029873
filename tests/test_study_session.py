"""A flashcard session as Anki runs one: learning steps come back within the learn-ahead window,
three counters say what is left, the end sums up the session and says what comes next, and
"Study ahead" reviews soon-due cards early. Through the views, on the real scheduler."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from quiz.models import MemoryState, ReviewLog
from quiz.study import scheduling
from quiz.study.queue import LEARN_AHEAD, Scope, next_entry
from tests.factories import make_deck
from tests.helpers import HTMX, shown_item_id, study_url

Kind = MemoryState.Kind


@pytest.fixture
def deck(db):
    return make_deck("Memory deck", cards=3)


def page(client, deck):
    return client.get(study_url(deck)).content.decode()


def rate(client, deck, rating, **data):
    """Rate the card the session shows; returns its id."""
    card_id = shown_item_id(page(client, deck))
    response = client.post(study_url(deck), {"item": card_id, "rating": rating, **data})
    assert response.status_code == 302
    return card_id


def counters(html):
    return {name: int(n) for name, n in re.findall(r'data-testid="left-(\w+)">(\d+)<', html)}


def summary(html):
    return dict(re.findall(r'data-testid="summary-(\w+)">([^<]+)<', html))


def memory_of(user, card):
    return MemoryState.objects.get(user=user, kind=Kind.CARD, card=card)


# --- Learn-ahead -------------------------------------------------------------------------------

def test_a_card_rated_again_comes_back_in_the_same_session(learner_client, deck):
    first = rate(learner_client, deck, 1)  # Again: due again in a minute
    rate(learner_client, deck, 4)
    rate(learner_client, deck, 4)

    html = page(learner_client, deck)

    assert "All caught up" not in html
    assert shown_item_id(html) == first  # nothing else is left: the learning step is shown early


def test_a_learning_step_due_after_the_learn_ahead_window_ends_the_session(learner_client, learner):
    deck = make_deck(cards=1)
    rate(learner_client, deck, 1)
    MemoryState.objects.update(due=timezone.now() + LEARN_AHEAD + timedelta(minutes=10))

    html = page(learner_client, deck)

    assert "All caught up" in html
    assert re.search(r"Next review in (29|30) min", html)


def test_due_reviews_and_new_cards_come_before_learning_steps_shown_early(learner):
    deck = make_deck(cards=3)
    learning, due, new = deck.cards.order_by("position")
    now = timezone.now()
    scheduling.rate(user=learner, kind=Kind.CARD, item=learning, rating=1, source="study", now=now)
    scheduling.rate(user=learner, kind=Kind.CARD, item=due, rating=4, source="study", now=now - timedelta(days=30))
    scope = Scope(kinds=(Kind.CARD,), deck=deck, learn_ahead=LEARN_AHEAD)

    order = []
    while (entry := next_entry(user=learner, scope=scope, now=now)) is not None and len(order) < 4:
        order.append(entry.item)
        scheduling.rate(user=learner, kind=Kind.CARD, item=entry.item, rating=4, source="study", now=now)

    assert order == [due, new, learning]


def test_without_a_learn_ahead_window_a_learning_step_waits_until_it_is_due(learner):
    deck = make_deck(cards=1)
    now = timezone.now()
    scheduling.rate(user=learner, kind=Kind.CARD, item=deck.cards.get(), rating=1, source="study", now=now)

    assert next_entry(user=learner, scope=Scope(kinds=(Kind.CARD,), deck=deck), now=now) is None
    assert next_entry(user=learner, scope=Scope(kinds=(Kind.CARD,), deck=deck, learn_ahead=LEARN_AHEAD), now=now)


# --- Counters ----------------------------------------------------------------------------------

def test_the_counters_say_how_many_new_learning_and_due_cards_are_left(learner_client, learner, deck):
    assert counters(page(learner_client, deck)) == {"new": 3, "learning": 0, "review": 0}

    rate(learner_client, deck, 3)  # Good on a new card: its next learning step is in 10 minutes
    assert counters(page(learner_client, deck)) == {"new": 2, "learning": 0, "review": 0}  # not due yet
    MemoryState.objects.filter(user=learner).update(due=timezone.now())  # the step's time has come
    assert counters(page(learner_client, deck)) == {"new": 2, "learning": 1, "review": 0}

    last = deck.cards.order_by("position").last()
    scheduling.rate(user=learner, kind=Kind.CARD, item=last, rating=4, source="study",
                    now=timezone.now() - timedelta(days=60))  # a review due now
    assert counters(page(learner_client, deck)) == {"new": 1, "learning": 1, "review": 1}


def test_the_new_counter_stops_at_the_daily_limit(learner_client, learner, deck):
    learner.new_cards_per_day = 2
    learner.save()

    assert counters(page(learner_client, deck))["new"] == 2
    rate(learner_client, deck, 4)
    assert counters(page(learner_client, deck))["new"] == 1


def test_the_counters_underline_the_queue_of_the_card_shown(learner_client, deck):
    html = page(learner_client, deck)

    assert re.search(r'class="count count-new is-current"><b data-testid="left-new">3<', html)


def test_an_htmx_rating_swaps_in_new_counters_and_a_new_title(learner_client, deck):
    assert "<title>Memory deck · Study · 3 left · Certify</title>" in page(learner_client, deck)
    card_id = shown_item_id(page(learner_client, deck))

    response = learner_client.post(study_url(deck), {"item": card_id, "rating": 4}, follow=True, **HTMX)

    html = response.content.decode()
    assert html.lstrip().startswith('<section id="study-item"')
    assert counters(html) == {"new": 2, "learning": 0, "review": 0}
    # htmx takes a <title> at the top level of a fragment as the tab's new title.
    assert re.search(r"</section>\s*<title>Memory deck · Study · 2 left · Certify</title>\s*$", html)


def test_the_review_session_has_no_new_counter(learner_client, learner, deck):
    scheduling.rate(user=learner, kind=Kind.CARD, item=deck.cards.first(), rating=4, source="study",
                    now=timezone.now() - timedelta(days=60))

    assert counters(learner_client.get(reverse("review_due")).content.decode()) == {"learning": 0, "review": 1}


def test_the_counters_give_nothing_of_the_answer_away(learner_client, deck):
    html = page(learner_client, deck)
    card = deck.cards.get(pk=shown_item_id(html))

    before_the_flip = html[: html.index("</summary>", html.index("data-flashcard"))]  # the card's, not the Menu's
    assert card.back not in before_the_flip and card.correction not in before_the_flip


# --- The end of a session ------------------------------------------------------------------------

def test_the_end_of_a_session_sums_it_up(learner_client, deck):
    rate(learner_client, deck, 1, duration_ms=4000)  # Again: comes back within the session
    rate(learner_client, deck, 4, duration_ms=3000)
    rate(learner_client, deck, 4, duration_ms=2000)
    rate(learner_client, deck, 4, duration_ms=1000)  # the card rated Again, shown early

    html = page(learner_client, deck)

    assert "All caught up" in html
    assert summary(html) == {"reviewed": "4", "right": "3 (75%)", "time": "10 s"}
    assert "Right means any rating but Again." in html
    assert "<title>Memory deck · Study · Done · Certify</title>" in html


def test_without_timings_the_time_spent_runs_from_the_first_card_to_the_last_rating(learner_client, learner):
    deck = make_deck(cards=1)
    page(learner_client, deck)  # the session begins when its first card is shown
    rate(learner_client, deck, 4)

    assert re.fullmatch(r"\d+ s", summary(page(learner_client, deck))["time"])


def test_the_summary_says_what_comes_next(learner_client, learner, deck):
    for _ in range(3):
        rate(learner_client, deck, 4)  # Easy on a new card: due in days
    soon = deck.cards.order_by("position").first()
    MemoryState.objects.filter(card=soon).update(due=timezone.now() + timedelta(hours=3))

    html = page(learner_client, deck)

    assert "Next review in 3 h." in html
    assert re.search(r'data-testid="due-by-tomorrow">Due by the end of tomorrow: 1\.<', html)


def test_the_summary_survives_a_reload_and_counts_only_this_learners_session(learner_client, other_client, deck):
    rate(other_client, deck, 4)
    rate(learner_client, deck, 4)
    rate(learner_client, deck, 4)
    rate(learner_client, deck, 4)

    assert summary(page(learner_client, deck))["reviewed"] == "3"
    assert summary(page(learner_client, deck))["reviewed"] == "3"


def test_a_session_begun_after_the_summary_counts_from_zero(learner_client, learner):
    deck = make_deck(cards=1)
    rate(learner_client, deck, 4)
    assert summary(page(learner_client, deck))["reviewed"] == "1"
    MemoryState.objects.update(due=timezone.now() - timedelta(minutes=1))  # due again: a new session

    rate(learner_client, deck, 3)

    assert summary(page(learner_client, deck))["reviewed"] == "1"


def test_undo_from_the_summary_carries_on_the_same_session(learner_client, deck):
    for rating in (4, 4, 4):
        rate(learner_client, deck, rating)
    html = page(learner_client, deck)
    undo = {"session": f"deck-{deck.pk}", "review": re.search(r'name="review" value="(\d+)"', html).group(1)}

    learner_client.post(reverse("undo"), undo)
    rate(learner_client, deck, 1)  # the undone card, rated Again this time, comes back early
    rate(learner_client, deck, 4)

    assert summary(page(learner_client, deck)) | {"time": None} == {"reviewed": "4", "right": "3 (75%)", "time": None}


def test_a_session_with_nothing_studied_has_no_summary(learner_client, learner, deck):
    learner.new_cards_per_day = 0
    learner.save()

    html = page(learner_client, deck)

    assert "All caught up" in html and summary(html) == {}


# --- Study ahead -------------------------------------------------------------------------------

def finish_with_easy(client, deck, cards):
    for _ in range(cards):
        rate(client, deck, 4)


def test_study_ahead_reviews_the_cards_due_by_tomorrow_early(learner_client, learner, deck):
    finish_with_easy(learner_client, deck, 3)
    tomorrow, later, _ = deck.cards.order_by("position")
    MemoryState.objects.filter(card=tomorrow).update(due=learner.start_of_today() + timedelta(days=1, hours=12))
    MemoryState.objects.filter(card=later).update(due=timezone.now() + timedelta(days=3))
    html = page(learner_client, deck)
    assert "Study ahead" in html and "Review now what is due by the end of tomorrow." in html

    response = learner_client.post(study_url(deck), {"study_ahead": "1"})

    assert response.status_code == 302 and response.url == study_url(deck)
    html = page(learner_client, deck)
    assert shown_item_id(html) == tomorrow.pk
    assert counters(html) == {"new": 0, "learning": 0, "review": 1}
    before = memory_of(learner, tomorrow).due
    rate(learner_client, deck, 3)
    assert memory_of(learner, tomorrow).due > before + timedelta(days=1)  # FSRS scheduled it from today
    html = page(learner_client, deck)
    assert "All caught up" in html
    assert summary(html)["reviewed"] == "1"  # studying ahead is a session of its own


def test_study_ahead_reaches_the_day_of_the_next_card_when_none_is_due_by_tomorrow(learner_client, learner):
    deck = make_deck(cards=1)
    finish_with_easy(learner_client, deck, 1)
    MemoryState.objects.update(due=timezone.now() + timedelta(days=5))
    html = page(learner_client, deck)
    assert "Due by the end of tomorrow: 0." in html
    assert re.search(r"Review now what is due by the end of \w+day \d+ \w+\.", html)

    learner_client.post(study_url(deck), {"study_ahead": "1"})

    assert shown_item_id(page(learner_client, deck)) == deck.cards.get().pk


def test_study_ahead_with_htmx_swaps_in_the_first_card(learner_client, deck):
    finish_with_easy(learner_client, deck, 3)

    response = learner_client.post(study_url(deck), {"study_ahead": "1"}, follow=True, **HTMX)

    html = response.content.decode()
    assert html.lstrip().startswith('<section id="study-item"')
    assert shown_item_id(html) in set(deck.cards.values_list("pk", flat=True))


def test_there_is_no_study_ahead_when_nothing_was_ever_studied(learner_client, learner, deck):
    learner.new_cards_per_day = 0
    learner.save()

    assert "Study ahead" not in page(learner_client, deck)


def test_study_ahead_writes_nothing_but_the_session(learner_client, learner, deck):
    finish_with_easy(learner_client, deck, 3)
    before = list(MemoryState.objects.order_by("pk").values())

    learner_client.post(study_url(deck), {"study_ahead": "1"})

    assert list(MemoryState.objects.order_by("pk").values()) == before
    assert ReviewLog.objects.count() == 3


# --- The card's back ---------------------------------------------------------------------------

def test_the_correction_of_a_common_mistake_is_labelled(learner_client, deck):
    html = page(learner_client, deck)
    card = deck.cards.get(pk=shown_item_id(html))

    assert f'<p class="correction"><strong>Why it is wrong:</strong> {card.correction}</p>' in html


def test_a_finished_deck_says_it_alone_is_caught_up_and_what_review_holds(learner_client, learner, deck):
    other = make_deck("Other deck", cards=1)
    for card in deck.cards.all():
        scheduling.rate(user=learner, kind=Kind.CARD, item=card, rating=4, source="study")
    scheduling.rate(user=learner, kind=Kind.CARD, item=other.cards.get(), rating=4, source="study",
                    now=timezone.now() - timedelta(days=60))  # due now, in another deck

    html = page(learner_client, deck)

    assert "All caught up in this deck" in html
    assert re.search(r'data-testid="due-elsewhere">1 item due in your\s+other decks and question sets', html)
    assert "due-elsewhere" not in learner_client.get(reverse("review_due")).content.decode()
