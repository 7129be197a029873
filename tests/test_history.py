"""History: "My attempts" with filters, the gated attempt review, flashcard history and the CSV."""

import csv
import io
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from quiz.models import Attempt
from tests.factories import (
    answer_all,
    answer_at,
    make_deck,
    make_question_set,
    rate_item,
    start_attempt,
)


def test_attempts_filter_by_set_and_by_date(learner_client, learner):
    networking, storage = make_question_set("Networking"), make_question_set("Storage")
    old = answer_all(start_attempt(learner, networking))
    Attempt.objects.filter(pk=old.pk).update(started_at=timezone.now() - timedelta(days=10))
    answer_all(start_attempt(learner, networking))
    answer_all(start_attempt(learner, storage))

    by_set = learner_client.get(reverse("attempt_list"), {"question_set": storage.pk})
    since = (timezone.now() - timedelta(days=2)).date().isoformat()
    by_date = learner_client.get(reverse("attempt_list"), {"question_set": networking.pk, "start": since})

    assert [a.question_set for a in by_set.context["page"]] == [storage]
    assert [a.pk for a in by_date.context["page"]] == [
        a.pk for a in Attempt.objects.filter(question_set=networking).exclude(pk=old.pk)
    ]


@pytest.mark.parametrize(
    "query, message",
    [
        ({"start": "yesterday"}, "Enter a valid date."),
        ({"question_set": "999999"}, "Select a valid choice."),
        ({"question_set": "abc"}, "Select a valid choice."),
        ({"start": "2025-02-01", "end": "2025-01-01"}, "before the “From” date"),
    ],
)
def test_bad_filters_get_a_clear_message_never_a_500(learner_client, learner, question_set, query, message):
    answer_all(start_attempt(learner, question_set))

    response = learner_client.get(reverse("attempt_list"), query)

    assert response.status_code == 400
    assert message in response.content.decode()
    assert list(response.context["page"]) == []


def test_the_list_hides_a_score_until_answers_are_visible(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    reveal = timezone.now() + timedelta(days=3)
    Attempt.objects.filter(pk=attempt.pk).update(reveal_at=reveal)
    attempt.refresh_from_db()
    answer_all(attempt, right=2)

    html = learner_client.get(reverse("attempt_list")).content.decode()

    assert "Hidden until" in html
    assert "2/3" not in html


def test_another_learners_attempts_never_appear(learner_client, other_learner, question_set):
    answer_all(start_attempt(other_learner, question_set))

    response = learner_client.get(reverse("attempt_list"), {"question_set": question_set.pk})

    assert list(response.context["page"]) == []


def test_the_review_says_when_a_missed_question_was_answered_right_later(learner_client, learner, question_set):
    first = answer_all(start_attempt(learner, question_set), right=0)
    later = start_attempt(learner, question_set)
    slots = list(later.slots.order_by("position"))
    moment = timezone.now() + timedelta(minutes=5)
    answer_at(later, slots[0], right=True, at=moment)
    answer_at(later, slots[1], right=False, at=moment)
    answer_at(later, slots[2], right=False, at=moment)
    right_later = {slots[0].question_id}

    response = learner_client.get(reverse("attempt_results", args=[first.pk]))

    by_question = {slot.question_id: slot.later_right for slot in response.context["slots"]}
    assert {q for q, later_right in by_question.items() if later_right} == right_later
    assert "You answered it right later." in response.content.decode()
    assert "Time spent:" in response.content.decode()


def test_the_review_shows_only_the_learners_choices_while_answers_are_hidden(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    Attempt.objects.filter(pk=attempt.pk).update(reveal_at=timezone.now() + timedelta(days=1))
    attempt.refresh_from_db()
    answer_all(attempt, right=1)

    html = learner_client.get(reverse("attempt_results", args=[attempt.pk])).content.decode()

    assert "hidden until" in html
    assert "Your answer" in html
    for secret in ("You scored", "Correct answer", "Explanation", "Correct!", "Not quite", "right later"):
        assert secret not in html


def test_the_review_of_someone_elses_attempt_is_a_404(learner_client, other_learner, question_set):
    attempt = answer_all(start_attempt(other_learner, question_set))

    assert learner_client.get(reverse("attempt_results", args=[attempt.pk])).status_code == 404


def test_flashcard_history_lists_the_learners_cards_with_links_to_their_reviews(learner_client, learner, other_learner):
    mine, theirs = make_deck(cards=2).cards.all()
    rate_item(learner, mine, 3, timezone.now())
    rate_item(other_learner, theirs, 3, timezone.now())

    html = learner_client.get(reverse("card_history")).content.decode()

    assert reverse("card_info", args=[mine.pk]) in html
    assert reverse("card_info", args=[theirs.pk]) not in html


def _csv(client):
    response = client.get(reverse("download_history"))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_the_csv_holds_the_learners_answers_and_reviews(learner_client, learner, other_learner, question_set):
    answer_all(start_attempt(learner, question_set), right=2)
    answer_all(start_attempt(other_learner, question_set), right=0)
    card = make_deck(cards=1).cards.get()
    rate_item(learner, card, 4, timezone.now())

    rows = _csv(learner_client)

    answers = [row for row in rows if row["record"] == "answer"]
    reviews = [row for row in rows if row["record"] == "review"]
    assert [row["correct"] for row in answers] == ["yes", "yes", "no"]
    assert [(row["item_kind"], row["rating"], row["source"]) for row in reviews] == [("card", "Easy", "study")]
    assert list(rows[0]) == [
        "record", "when_utc", "item_kind", "set_or_deck", "item_key", "item_text", "attempt_id", "position",
        "chosen", "correct", "rating", "seconds", "source",
    ]


def test_the_csv_leaves_out_correctness_while_answers_are_hidden(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    Attempt.objects.filter(pk=attempt.pk).update(reveal_at=timezone.now() + timedelta(days=1))
    attempt.refresh_from_db()
    answer_all(attempt, right=1)

    rows = _csv(learner_client)

    assert [row["correct"] for row in rows] == ["hidden"] * 3


@pytest.mark.parametrize("name", ["attempt_list", "card_history", "download_history"])
def test_history_pages_need_a_login(client, db, name):
    assert client.get(reverse(name))["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("name", ["attempt_list", "card_history", "download_history"])
def test_history_pages_refuse_posts(learner_client, name):
    assert learner_client.post(reverse(name)).status_code == 405
