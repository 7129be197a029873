"""Studying flashcards, the Review due session, undo, card info, retaking mistakes and study
settings, through the views (the Myth-or-fact drill's page is in test_undo_and_drill.py)."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from quiz.lib.numbers import percent_of
from quiz.models import Attempt, MemoryState, Question, ReviewLog
from quiz.study import answers, scheduling
from tests.factories import make_deck, make_question_set, start_attempt
from tests.helpers import HTMX, answer_at, rate_shown_card, shown_item_id, study_url, wrong_number

Kind = MemoryState.Kind


@pytest.fixture
def deck(db):
    return make_deck("Memory deck", cards=3)


# --- Deck page ---------------------------------------------------------------------------------

def test_the_deck_page_counts_new_cards_and_those_due_now_as_learning_and_review(learner_client, learner, deck):
    first, second, third = deck.cards.order_by("position")
    scheduling.rate(user=learner, kind=Kind.CARD, item=first, rating=1, source="study",
                    now=timezone.now() - timedelta(hours=1))  # a learning step due since
    scheduling.rate(user=learner, kind=Kind.CARD, item=second, rating=4, source="study",
                    now=timezone.now() - timedelta(days=30))  # a review due since
    scheduling.rate(user=learner, kind=Kind.CARD, item=third, rating=1, source="study")  # a step due in a minute: not yet

    html = learner_client.get(reverse("deck", args=[deck.pk])).content.decode()

    assert re.search(r'data-testid="new-count">0<', html)
    assert re.search(r'data-testid="learning-count">1<', html)
    assert re.search(r'data-testid="review-count">1<', html)
    assert '<p class="muted" data-testid="due-count">2 due now' in html


def test_the_deck_page_counts_only_my_own_study(learner_client, other_learner, deck):
    scheduling.rate(user=other_learner, kind=Kind.CARD, item=deck.cards.first(), rating=3, source="study")

    html = learner_client.get(reverse("deck", args=[deck.pk])).content.decode()

    assert re.search(r'data-testid="new-count">3<', html)


# --- Studying a deck -----------------------------------------------------------------------------

def test_the_study_screen_shows_the_front_with_the_back_behind_a_flip(learner_client, deck):
    html = learner_client.get(study_url(deck)).content.decode()
    card = deck.cards.get(position=1)

    assert '<details class="flashcard"' in html
    flashcard = html[html.index('<details class="flashcard"'):]  # not the header's Menu disclosure
    assert flashcard.index(card.front) < flashcard.index("</summary>") < flashcard.index(card.back)
    assert f"<strong>Common mistake:</strong> {card.misconception}" in html
    assert re.findall(r'class="interval">([^<]+)<', html) == ["1m", "6m", "10m", "8d"]


def test_rating_saves_a_review_and_shows_the_next_card(learner_client, learner, deck):
    card_id, response = rate_shown_card(learner_client, deck, rating=3)

    assert response.status_code == 302 and response.url == study_url(deck)
    review = ReviewLog.objects.get(user=learner)
    assert (review.memory.card_id, review.rating, review.source) == (card_id, 3, "study")
    assert shown_item_id(learner_client.get(study_url(deck)).content.decode()) != card_id


def test_rating_with_htmx_swaps_in_the_next_card(learner_client, deck):
    card_id, response = rate_shown_card(learner_client, deck, follow=True, **HTMX)

    html = response.content.decode()
    assert html.lstrip().startswith('<section id="study-item"')
    assert shown_item_id(html) != card_id


def test_a_double_submit_records_one_review(learner_client, learner, deck):
    card_id = shown_item_id(learner_client.get(study_url(deck)).content.decode())

    learner_client.post(study_url(deck), {"item": card_id, "rating": 3})
    second = learner_client.post(study_url(deck), {"item": card_id, "rating": 3})

    assert second.status_code == 409
    assert ReviewLog.objects.filter(user=learner).count() == 1


def test_rating_a_card_that_is_not_the_one_shown_is_refused(learner_client, learner, deck):
    shown = shown_item_id(learner_client.get(study_url(deck)).content.decode())
    other = deck.cards.exclude(pk=shown).first()

    response = learner_client.post(study_url(deck), {"item": other.pk, "rating": 4})

    assert response.status_code == 409
    assert "no longer the one shown" in response.content.decode()
    assert not ReviewLog.objects.exists() and not MemoryState.objects.exists()


def test_rating_a_card_shown_to_someone_else_is_refused(learner_client, other_client, deck):
    shown = shown_item_id(learner_client.get(study_url(deck)).content.decode())

    response = other_client.post(study_url(deck), {"item": shown, "rating": 4})

    assert response.status_code == 409
    assert not ReviewLog.objects.exists()


@pytest.mark.parametrize("rating", ["0", "5", "good", ""])
def test_a_malformed_rating_is_refused(learner_client, deck, rating):
    card_id = shown_item_id(learner_client.get(study_url(deck)).content.decode())

    response = learner_client.post(study_url(deck), {"item": card_id, "rating": rating})

    assert response.status_code == 409
    assert "Again, Hard, Good or Easy" in response.content.decode()
    assert not ReviewLog.objects.exists()


def test_the_duration_is_stored_and_capped(learner_client, learner, deck):
    card_id = shown_item_id(learner_client.get(study_url(deck)).content.decode())

    learner_client.post(study_url(deck), {"item": card_id, "rating": 3, "duration_ms": 10**9})

    assert ReviewLog.objects.get().duration_ms == 10 * 60 * 1000


def test_reload_shows_the_same_card(learner_client, deck):
    first = shown_item_id(learner_client.get(study_url(deck)).content.decode())

    assert shown_item_id(learner_client.get(study_url(deck)).content.decode()) == first


def test_when_nothing_is_left_it_says_when_the_next_card_is_due(learner_client, learner, deck):
    learner.new_cards_per_day = 3
    learner.save()
    for _ in range(3):
        rate_shown_card(learner_client, deck, rating=4)

    html = learner_client.get(study_url(deck)).content.decode()

    assert "All caught up" in html
    assert re.search(r"Next review in \d+ days", html)
    assert "today's limit" in html


# --- Undo --------------------------------------------------------------------------------------

def undo_form(html):
    """The data the page's Undo form would post."""
    return {
        "session": re.search(r'name="session" value="([^"]+)"', html).group(1),
        "review": re.search(r'name="review" value="(\d+)"', html).group(1),
    }


def test_undo_restores_the_card_and_shows_it_again(learner_client, learner, deck):
    card_id, _ = rate_shown_card(learner_client, deck, rating=1)
    form = undo_form(learner_client.get(study_url(deck)).content.decode())

    response = learner_client.post(reverse("undo"), form, follow=True)

    assert not ReviewLog.objects.exists() and not MemoryState.objects.exists()
    assert shown_item_id(response.content.decode()) == card_id


def test_a_double_click_on_undo_undoes_one_rating(learner_client, learner, deck):
    rate_shown_card(learner_client, deck, rating=3)
    rate_shown_card(learner_client, deck, rating=3)
    form = undo_form(learner_client.get(study_url(deck)).content.decode())

    learner_client.post(reverse("undo"), form)
    learner_client.post(reverse("undo"), form)

    assert ReviewLog.objects.filter(user=learner).count() == 1


def test_there_is_no_undo_button_before_any_rating(learner_client, deck):
    html = learner_client.get(study_url(deck)).content.decode()

    assert shown_item_id(html) in set(deck.cards.values_list("pk", flat=True))  # a card is shown...
    assert 'name="review"' not in html  # ...with no Undo


def test_undo_with_nothing_to_undo_says_so(learner_client, deck):
    response = learner_client.post(reverse("undo"), {"session": f"deck-{deck.pk}"}, follow=True)

    assert "Nothing to undo." in response.content.decode()


def test_undo_only_touches_my_own_reviews(learner_client, other_client, other_learner, deck):
    rate_shown_card(other_client, deck)

    their_review = ReviewLog.objects.get(user=other_learner)

    learner_client.post(reverse("undo"), {"session": f"deck-{deck.pk}", "review": their_review.pk})

    assert ReviewLog.objects.filter(user=other_learner).count() == 1


@pytest.mark.parametrize("session", ["", "nope", "deck-x", "deck-999999", "deck-²", "deck-" + "9" * 30])
def test_undo_of_an_unknown_session_is_a_404(learner_client, session):
    assert learner_client.post(reverse("undo"), {"session": session}).status_code == 404


def test_undo_needs_post(learner_client):
    assert learner_client.get(reverse("undo")).status_code == 405


# --- Review due: cards and questions in one queue ------------------------------------------------

def answer_wrong_in_a_quiz(learner, when):
    attempt = start_attempt(learner, make_question_set(questions=1))
    slot = attempt.slots.get()
    answer_at(attempt, slot, right=False, at=when)
    return slot.question


def test_a_due_question_is_asked_as_a_question_without_revealing_the_answer(learner_client, learner):
    question = answer_wrong_in_a_quiz(learner, timezone.now() - timedelta(hours=1))

    html = learner_client.get(reverse("review_due")).content.decode()

    assert question.stem in html
    assert re.findall(r'name="choice" value="(\d)"', html) == ["1", "2", "3", "4"]
    assert "correct" not in html.split("<main", 1)[1].lower()
    assert question.explanation not in html
    assert "data-flashcard" not in html


def test_answering_a_due_question_records_the_answer_and_shows_the_explanation(learner_client, learner):
    question = answer_wrong_in_a_quiz(learner, timezone.now() - timedelta(hours=1))
    html = learner_client.get(reverse("review_due")).content.decode()
    texts = re.findall(r'<span class="choice-text">([^<]*)</span>', html)
    right = texts.index(question.choices.get(is_correct=True).text) + 1

    response = learner_client.post(reverse("review_due"), {"item": question.pk, "choice": right}, follow=True)

    review = ReviewLog.objects.get(source="review")
    assert (review.rating, review.chosen_choice.is_correct) == (3, True)
    page = response.content.decode()
    assert "Correct!" in page and question.explanation in page


def test_another_learners_answer_feedback_is_a_404(learner, other_client):
    question = answer_wrong_in_a_quiz(learner, timezone.now())
    review = ReviewLog.objects.get(memory__question=question)

    assert other_client.get(reverse("review_answer", args=[review.pk])).status_code == 404


def test_the_answer_page_ignores_an_outside_next_url(learner_client, learner):
    answer_wrong_in_a_quiz(learner, timezone.now())
    review = ReviewLog.objects.get()

    html = learner_client.get(reverse("review_answer", args=[review.pk]) + "?next=https://evil.example/").content.decode()

    assert "evil.example" not in html
    assert f'href="{reverse("review_due")}"' in html  # Next goes back to the review session


def right_choice(html):
    """The on-screen number of the right choice of the question a review page shows (answered
    right, it does not come back within the learn-ahead window)."""
    question = Question.objects.get(pk=shown_item_id(html))
    texts = re.findall(r'<span class="choice-text">([^<]*)</span>', html)
    return texts.index(question.choices.get(is_correct=True).text) + 1


def test_review_due_mixes_due_cards_and_questions(learner_client, learner, deck):
    long_ago = timezone.now() - timedelta(days=40)
    answer_wrong_in_a_quiz(learner, long_ago)
    scheduling.rate(user=learner, kind=Kind.CARD, item=deck.cards.first(), rating=4, source="study", now=long_ago)
    kinds = set()
    # The question is in its learning steps: answered right it comes back once more, within the
    # learn-ahead window, before the session is over.
    while "All caught up" not in (html := learner_client.get(reverse("review_due")).content.decode()):
        assert ReviewLog.objects.filter(source__in=["study", "review"]).count() < 4, "the session never ends"
        if "data-flashcard" in html:
            kinds.add("card")
            learner_client.post(reverse("review_due"), {"item": shown_item_id(html), "rating": 3})
        else:
            kinds.add("question")
            learner_client.post(reverse("review_due"), {"item": shown_item_id(html), "choice": right_choice(html)})

    assert kinds == {"card", "question"}


# --- Card info, mistakes, settings -------------------------------------------------------------

def test_card_info_lists_my_review_history_only(learner_client, learner, other_learner, deck):
    card = deck.cards.first()
    scheduling.rate(user=learner, kind=Kind.CARD, item=card, rating=2, source="study")
    scheduling.rate(user=other_learner, kind=Kind.CARD, item=card, rating=4, source="study")

    html = learner_client.get(reverse("card_info", args=[card.pk])).content.decode()

    assert html.count("<td>Hard</td>") == 1
    assert "<td>Easy</td>" not in html


def test_card_info_after_again_says_learning_not_full_recall(learner_client, learner, deck):
    card = deck.cards.first()
    now = timezone.now()
    scheduling.rate(user=learner, kind=Kind.CARD, item=card, rating=4, source="study", now=now - timedelta(days=30))
    scheduling.rate(user=learner, kind=Kind.CARD, item=card, rating=3, source="study", now=now - timedelta(days=10))
    memory = MemoryState.objects.get(user=learner, card=card)
    week_ahead = scheduling.retrievability(memory, now + timedelta(days=7))

    before = learner_client.get(reverse("card_info", args=[card.pk])).content.decode()
    scheduling.rate(user=learner, kind=Kind.CARD, item=card, rating=1, source="study", now=now)  # Again
    after = learner_client.get(reverse("card_info", args=[card.pk])).content.decode()

    assert f'<td data-testid="recall">{percent_of(week_ahead)}%</td>' in before  # learnt: a week ahead
    assert '<td data-testid="recall">learning</td>' in after  # FSRS's recall "now" would be 100%
    assert "Recall in 7 days" in after and "100%" not in after


def test_card_info_shows_the_misconception_only_to_its_author_or_after_one_rating(client, learner_client, learner, db):
    from tests.factories import make_user

    author = make_user("author")
    deck = make_deck("Someone's deck", owner=author, visibility="everyone")
    card = deck.cards.first()
    card.misconception, card.correction = "The myth the drill asks about", "Why it is wrong"
    card.save()
    url = reverse("card_info", args=[card.pk])

    before = learner_client.get(url).content.decode()
    scheduling.rate(user=learner, kind=Kind.MYTH, item=card, rating=3, source="drill")
    after = learner_client.get(url).content.decode()
    client.force_login(author)
    by_author = client.get(url).content.decode()

    assert card.back in before and "The myth the drill asks about" not in before and "Why it is wrong" not in before
    assert "The myth the drill asks about" in after and "Why it is wrong" in after
    assert "The myth the drill asks about" in by_author


def test_a_deck_download_leaves_out_the_myths_its_learner_has_not_met(learner_client, learner, db):
    from tests.factories import make_user

    deck = make_deck("Shared deck", owner=make_user("author"), visibility="everyone")
    met, unmet = deck.cards.order_by("position")[:2]
    for card in (met, unmet):
        card.misconception, card.correction = f"Myth of {card.key}", f"Correction of {card.key}"
        card.save()
    scheduling.rate(user=learner, kind=Kind.CARD, item=met, rating=3, source="study")

    text = learner_client.get(reverse("download_deck", args=[deck.pk, "json"])).content.decode()

    assert f"Myth of {met.key}" in text and f"Correction of {met.key}" in text
    assert f"Myth of {unmet.key}" not in text and f"Correction of {unmet.key}" not in text
    assert unmet.back in text


def test_card_text_keeps_its_line_breaks_and_spaces(learner_client, learner, deck):
    card = deck.cards.first()
    card.back = "First line\nSecond  line"
    card.misconception, card.correction = "Myth <b>one</b>\ncontinued", "Because\n\nreasons"
    card.save()
    scheduling.rate(user=learner, kind=Kind.CARD, item=card, rating=3, source="study")  # its myth is shown once rated

    html = learner_client.get(reverse("card_info", args=[card.pk])).content.decode()

    assert '<dd class="as-written">First line\nSecond  line</dd>' in html  # as typed, no <br>, no collapse
    assert '<dd class="as-written">Myth &lt;b&gt;one&lt;/b&gt;\ncontinued</dd>' in html  # still escaped
    study = learner_client.get(study_url(deck)).content.decode()
    assert '<p class="card-text card-answer">' in study  # styled as written by its own class


def test_retake_my_mistakes_builds_a_quiz_of_the_questions_last_answered_wrong(learner_client, learner):
    question_set = make_question_set(questions=3)
    attempt = start_attempt(learner, question_set)
    for slot in attempt.slots.order_by("position"):
        number = wrong_number(slot) if slot.position != 2 else slot.correct_number
        answers.submit_answer(attempt=attempt, slot=slot, number=number)

    response = learner_client.post(reverse("retake_mistakes"))

    retake = Attempt.objects.exclude(pk=attempt.pk).get()
    assert response.url == reverse("attempt", args=[retake.pk])
    assert sorted(retake.slots.values_list("question__position", flat=True)) == [1, 3]
    assert retake.display_title == "Retake my mistakes"


def test_retake_without_mistakes_says_so(learner_client):
    response = learner_client.post(reverse("retake_mistakes"), follow=True)

    assert "No mistakes to retake" in response.content.decode()
    assert not Attempt.objects.exists()


def test_settings_save_the_time_zone_and_daily_limit(learner_client, learner):
    form = {"time_zone": "Europe/Paris", "new_cards_per_day": 5, "desired_retention": "0.9"}
    response = learner_client.post(reverse("study_settings"), form)

    learner.refresh_from_db()
    assert response.status_code == 302
    assert (learner.time_zone, learner.new_cards_per_day) == ("Europe/Paris", 5)


@pytest.mark.parametrize("data", [{"time_zone": "Mars/Olympus", "new_cards_per_day": 5},
                                  {"time_zone": "UTC", "new_cards_per_day": -1}])
def test_settings_refuse_bad_values_and_change_nothing(learner_client, learner, data):
    response = learner_client.post(reverse("study_settings"), data)

    learner.refresh_from_db()
    assert response.status_code == 400
    assert (learner.time_zone, learner.new_cards_per_day) == ("UTC", 20)


@pytest.mark.parametrize("name, args", [
    ("deck", [1]), ("study_deck", [1]), ("drill", [1]), ("card_info", [1]), ("review_due", []),
    ("study_settings", []), ("review_answer", [1]),
])
def test_study_pages_need_a_login(client, deck, name, args):
    response = client.get(reverse(name, args=args))

    assert response.status_code == 302 and response.url.startswith(reverse("login"))


def test_retaking_mistakes_twice_resumes_the_open_retake(learner_client, learner):
    answer_wrong_in_a_quiz(learner, timezone.now() - timedelta(hours=1))

    first = learner_client.post(reverse("retake_mistakes"))["Location"]
    second = learner_client.post(reverse("retake_mistakes"))["Location"]

    assert first == second
    assert Attempt.objects.filter(user=learner, purpose="mistakes", finished_at__isnull=True).count() == 1
