"""Study, rating, review and drill pages run a fixed number of queries as a learner's
review history grows from 10 to 10,000 rows."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from quiz.models import MemoryState, ReviewLog
from quiz.study import queue
from tests.factories import make_deck
from tests.helpers import AUTH, count_queries

Kind = MemoryState.Kind


def grow_history(user, deck, reviews):
    """`reviews` review rows spread over the deck's cards, all due now (bulk, for speed)."""
    now = timezone.now()
    cards = list(deck.cards.all())
    memories = MemoryState.objects.bulk_create(
        MemoryState(user=user, kind=Kind.CARD, card=card, phase=2, stability=5.0, difficulty=5.0,
                    due=now - timedelta(days=1), last_review=now - timedelta(days=6), reps=reviews // len(cards))
        for card in cards
    )
    ReviewLog.objects.bulk_create(
        ReviewLog(user=user, memory=memories[n % len(memories)], source="study", rating=3,
               reviewed_at=now - timedelta(minutes=n), due_after=now, state_before=None)
        for n in range(reviews)
    )


@pytest.fixture
def small_and_large(learner, other_learner, db):
    """Two learners with the same deck shape, one with 10 reviews and one with 10,000."""
    small, large = make_deck(cards=10), make_deck(cards=10)
    grow_history(learner, small, 10)
    grow_history(other_learner, large, 10_000)
    return small, large


def test_study_page(learner_client, other_client, small_and_large, django_assert_num_queries):
    small, large = small_and_large
    counts = [count_queries(c, reverse("study_deck", args=[d.pk])) for c, d in ((learner_client, small), (other_client, large))]

    assert counts[0] == counts[1]
    # deck; anything to catch up (an expired attempt to close, answers to release: one query); the
    # card shown (kept in the session) with its memory state; what is left (the new, learning and
    # due counters); the rating Undo would take back
    with django_assert_num_queries(AUTH + 5):
        other_client.get(reverse("study_deck", args=[large.pk]))


def test_rating(learner_client, other_client, small_and_large, django_assert_num_queries):
    small, large = small_and_large
    counts = []
    for client, deck in ((learner_client, small), (other_client, large)):
        html = client.get(reverse("study_deck", args=[deck.pk])).content.decode()
        item = html.split('name="item" value="', 1)[1].split('"', 1)[0]
        counts.append(count_queries(client, reverse("study_deck", args=[deck.pk]), "post", {"item": item, "rating": 3}))

    assert counts[0] == counts[1]
    # deck; the card shown; its memory state, read locked; its UPDATE and the log row; the
    # session's save (4: a savepoint pair, and django-qsessions reads the row's creation time
    # before its UPDATE)
    assert counts[1] == AUTH + 9


def test_review_due_page(learner_client, other_client, small_and_large, django_assert_num_queries):
    counts = [count_queries(c, reverse("review_due")) for c in (learner_client, other_client)]

    assert counts[0] == counts[1]
    # anything to catch up (one query); the item shown (kept in the session) with its memory
    # state; the questions an assignment holds back (a list: as a subquery in each of the counters
    # it cost more to build and plan than they take to run); what is left (the learning and due
    # counters); the rating Undo would take back
    with django_assert_num_queries(AUTH + 5):
        other_client.get(reverse("review_due"))


def test_deck_page(learner_client, other_client, small_and_large, django_assert_num_queries):
    small, large = small_and_large
    counts = [count_queries(c, reverse("deck", args=[d.pk])) for c, d in ((learner_client, small), (other_client, large))]

    assert counts[0] == counts[1]
    with django_assert_num_queries(AUTH + 3):  # deck with counts; page count; page of cards
        other_client.get(reverse("deck", args=[large.pk]))


def test_drill_page(learner_client, other_client, small_and_large, django_assert_num_queries):
    small, large = small_and_large
    counts = [count_queries(c, reverse("drill", args=[d.pk])) for c, d in ((learner_client, small), (other_client, large))]

    assert counts[0] == counts[1]
    # deck; the statement's card (kept in the session) with its memory state; the rating Undo would take back
    with django_assert_num_queries(AUTH + 3):
        other_client.get(reverse("drill", args=[large.pk]))


def test_card_info_page(learner_client, other_client, small_and_large, django_assert_num_queries):
    small, large = small_and_large
    pages = ((learner_client, small.cards.first()), (other_client, large.cards.first()))
    counts = [count_queries(c, reverse("card_info", args=[card.pk])) for c, card in pages]

    assert counts[0] == counts[1]
    url = reverse("card_info", args=[large.cards.first().pk])
    with django_assert_num_queries(AUTH + 4):  # card; memories; review count; page of reviews
        other_client.get(url)


def test_home_with_a_long_flashcard_history(learner_client, other_client, small_and_large):
    # 10 reviews or 10,000: the same queries (pinned one by one in test_dashboard.py).
    assert count_queries(learner_client, reverse("home"), ok=(200,)) == count_queries(other_client, reverse("home"), ok=(200,))


def test_each_branch_of_the_queue_runs_a_fixed_number_of_queries(other_learner, small_and_large, django_assert_num_queries):
    _, large = small_and_large
    scope = queue.Scope(kinds=(Kind.CARD,), deck=large)
    memories = MemoryState.objects.filter(user=other_learner, card__deck=large)

    with django_assert_num_queries(1):  # the most forgotten due review
        assert queue.next_entry(user=other_learner, scope=scope).memory is not None

    memories.update(phase=MemoryState.Phase.LEARNING)
    first = large.cards.order_by("position").first()
    MemoryState.objects.filter(card=first, user=other_learner).delete()
    with django_assert_num_queries(3):  # no due review; new cards introduced today; the first new card
        entry = queue.next_entry(user=other_learner, scope=scope)
    assert (entry.item, entry.memory) == (first, None)

    other_learner.new_cards_per_day = 0
    with django_assert_num_queries(3):  # no due review; the day's new cards used up; a learning step due
        entry = queue.next_entry(user=other_learner, scope=scope)
    assert entry.memory is not None and entry.memory.phase == MemoryState.Phase.LEARNING


def test_finished_session_page(learner_client, other_client, small_and_large, django_assert_num_queries):
    small, large = small_and_large
    urls = [reverse("study_deck", args=[d.pk]) for d in (small, large)]
    for client, url in zip((learner_client, other_client), urls):  # a session of one rating
        item = client.get(url).content.decode().split('name="item" value="', 1)[1].split('"', 1)[0]
        client.post(url, {"item": item, "rating": 3})
    MemoryState.objects.update(due=timezone.now() + timedelta(days=3))  # nothing left: the summary
    counts = [count_queries(c, url) for c, url in zip((learner_client, other_client), urls)]

    assert counts[0] == counts[1]
    # deck; anything to catch up (one query); no due review; new cards introduced today; no new
    # card; no learning step or card to study ahead; the questions held back now (left out of
    # what Review holds, which a finished deck mentions); what is left and what comes next; the
    # session's summary; the rating Undo would take back
    with django_assert_num_queries(AUTH + 10):
        other_client.get(urls[1])


def test_studying_ahead(learner_client, other_client, small_and_large, django_assert_num_queries):
    small, large = small_and_large
    MemoryState.objects.update(due=timezone.now() + timedelta(hours=30))
    counts = []
    for client, deck in ((learner_client, small), (other_client, large)):
        url = reverse("study_deck", args=[deck.pk])
        counts.append(count_queries(client, url, "post", {"study_ahead": "1"}))
        assert client.get(url).content.decode().count('name="item"') == 1  # a card studied ahead

    assert counts[0] == counts[1]
    # deck; when the next item is due; the session's save (4)
    assert counts[1] == AUTH + 6
