"""History: "My attempts" with filters, the gated attempt review, flashcard history and the CSV."""

import csv
import io
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from quiz.lib.csv_export import csv_chunks
from quiz.models import Attempt, MemoryState, ReviewLog
from quiz.study import scheduling
from tests.factories import make_deck, make_question_set, make_user, start_attempt
from tests.helpers import AUTH, answer_all, answer_at, rate_item


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


@pytest.fixture
def tokyo_learner(db):
    return make_user("taro", time_zone="Asia/Tokyo")  # ahead of UTC: 0001-01-01 00:00 there is before year 1 in UTC


@pytest.mark.parametrize("query", [{"end": "9999-12-31"}, {"start": "0001-01-01"}, {"start": "1899-12-31"}])
def test_dates_beyond_what_the_calendar_can_convert_are_refused_not_a_500(client, tokyo_learner, query):
    client.force_login(tokyo_learner)

    response = client.get(reverse("attempt_list"), query)

    assert response.status_code == 400
    assert "Pick a date between 1900-01-01 and 9998-12-31." in response.content.decode()


def test_the_first_and_last_days_allowed_filter_normally(client, tokyo_learner, question_set):
    answer_all(start_attempt(tokyo_learner, question_set))
    client.force_login(tokyo_learner)

    response = client.get(reverse("attempt_list"), {"start": "1900-01-01", "end": "9998-12-31"})

    assert response.status_code == 200
    assert len(response.context["page"]) == 1


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

    assert "are hidden for now: you see them" in html
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


def test_the_csv_lists_answers_in_the_order_given_across_attempts_read_apart(learner_client, learner, monkeypatch):
    from quiz.progress import history

    monkeypatch.setattr(history, "ATTEMPTS_PER_READ", 1)  # each attempt's answers read on their own, then merged
    first = start_attempt(learner, make_question_set("First", questions=2))
    second = start_attempt(learner, make_question_set("Second", questions=2))
    now = timezone.now() - timedelta(hours=1)
    for minute, (attempt, position) in enumerate([(first, 1), (second, 1), (first, 2), (second, 2)]):
        answer_at(attempt, position, right=attempt is first, at=now + timedelta(minutes=minute))

    answers = [row for row in _csv(learner_client) if row["record"] == "answer"]

    assert [(row["set_or_deck"], row["position"], row["correct"]) for row in answers] == [
        ("First", "1", "yes"), ("Second", "1", "no"), ("First", "2", "yes"), ("Second", "2", "no")
    ]


def _answer_in_a_review_session(learner, question, right, at):
    choice = question.choices.filter(is_correct=right).order_by("position").first()
    scheduling.rate(
        user=learner, kind=MemoryState.Kind.QUESTION, item=question, rating=3 if right else 1,
        source=ReviewLog.Source.REVIEW, now=at, chosen_choice=choice,
    )
    return choice


def test_the_csv_names_the_choice_picked_in_a_review_session(learner_client, learner, question_set):
    first, second = question_set.questions.order_by("position")[:2]
    now = timezone.now()
    wrong = _answer_in_a_review_session(learner, first, right=False, at=now - timedelta(minutes=2))
    right = _answer_in_a_review_session(learner, second, right=True, at=now - timedelta(minutes=1))

    rows = _csv(learner_client)

    assert [(row["source"], row["chosen"], row["correct"]) for row in rows] == [
        ("review", wrong.text, "no"), ("review", right.text, "yes")
    ]


def test_the_csv_names_each_reviewed_item_by_its_set_or_deck_key_and_text(learner_client, learner, other_learner):
    question = make_question_set("Storage", questions=1).questions.get()
    first, second = make_deck("Myths", cards=2).cards.order_by("position")
    now = timezone.now()
    rate_item(learner, question, 3, now - timedelta(minutes=3))
    rate_item(learner, first, 3, now - timedelta(minutes=2))
    rate_item(learner, second, 1, now - timedelta(minutes=1), kind=MemoryState.Kind.MYTH)
    rate_item(other_learner, first, 4, now)  # another learner's memory of the same card: not in this CSV

    rows = _csv(learner_client)

    assert [(row["item_kind"], row["set_or_deck"], row["item_key"], row["item_text"], row["rating"]) for row in rows] == [
        ("question", "Storage", question.key, question.stem, "Good"),
        ("card", "Myths", "c1", "Front 1", "Good"),
        ("myth", "Myths", "c2", "Myth 2", "Again"),
    ]


def test_the_csv_runs_the_same_queries_however_many_review_answers(learner_client, learner):
    questions = list(make_question_set(questions=12).questions.order_by("position"))
    now = timezone.now()
    _answer_in_a_review_session(learner, questions[0], right=True, at=now)
    few = _csv_queries(learner_client)
    for minutes, question in enumerate(questions[1:], start=1):
        _answer_in_a_review_session(learner, question, right=False, at=now - timedelta(minutes=minutes))

    # anything to catch up (an expired attempt to close, answers to release: one query); the
    # learner's attempts (none here, so no read of their answers); the items the learner studied
    # (memory states); the reviews with their chosen choice
    assert _csv_queries(learner_client) == few == AUTH + 4


def test_the_csv_runs_the_same_queries_however_many_quiz_answers(learner_client, learner):
    answer_all(start_attempt(learner, make_question_set("First", questions=2)))
    few = _csv_queries(learner_client)
    for number in range(3):
        answer_all(start_attempt(learner, make_question_set(f"More {number}", questions=5)))

    # As above, and the answers of the learner's attempts (one read per 5,000 attempts).
    assert _csv_queries(learner_client) == few == AUTH + 5


def _csv_queries(client):
    with CaptureQueriesContext(connection) as queries:
        _csv(client)
    return len(queries)


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


def test_a_long_csv_streams_in_chunks_of_many_rows_each_row_written_once():
    # One chunk a row made a 20k-row download pay for 20k trips through the response.
    rows = [["n", "text"]] + [[n, f"=row {n}" if n % 7 == 0 else f"row {n}"] for n in range(1, 1201)]
    chunks = list(csv_chunks(iter(rows)))
    assert len(chunks) == 3  # 1,201 lines: 500, 500 and the last 201
    parsed = list(csv.reader(io.StringIO("".join(chunks))))
    assert parsed[0] == ["n", "text"] and len(parsed) == 1201
    assert parsed[7] == ["7", "'=row 7"] and parsed[8] == ["8", "row 8"]
