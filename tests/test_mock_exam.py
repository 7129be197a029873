"""The mock exam: a timed attempt drawn over the topics in proportion to the bank, stable on
resume, with the memory model's prediction set beside the actual score afterwards."""

import random
from collections import Counter
from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest
from django.test import override_settings
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from quiz.lib.days import moment_text
from quiz.models import Attempt, ExamBlueprint, MemoryState, MockExam, Visibility
from quiz.study import scheduling
from quiz.study.mock_exam import Choices, draw, spread, start_mock_exam
from tests.class_factories import make_classroom, make_instructor
from tests.factories import make_question_set, make_topic, make_user
from tests.helpers import AUTH, HTMX, answer_all, logged_in, rate_item

NOW = datetime(2025, 3, 3, 9, 0, tzinfo=UTC)


@pytest.fixture
def clock():
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        yield NOW


def tagged_bank(sizes):
    """A library set whose questions carry topics: {"Routing": 6, ...} questions each."""
    total = sum(sizes.values())
    question_set = make_question_set("Bank", questions=total)
    questions = iter(question_set.questions.order_by("position"))
    for name, size in sizes.items():
        topic = make_topic(name)
        for _ in range(size):
            next(questions).topics.add(topic)
    return question_set


# --- The spread: pure arithmetic ------------------------------------------------------------------

def test_the_spread_follows_the_bank_by_largest_remainder():
    # 10 of 20 questions: half of each topic; 7 of 20 with 10/6/4: quotas 3.5/2.1/1.4 -> 4/2/1.
    assert spread({"a": 10, "b": 6, "c": 4}, 10) == {"a": 5, "b": 3, "c": 2}
    assert spread({"a": 10, "b": 6, "c": 4}, 7) == {"a": 4, "b": 2, "c": 1}


def test_exactly_tied_remainders_go_to_the_topic_listed_first():
    # 6 of 18 over 8/5/3/2: quotas 2 2/3, 1 2/3, 1, 2/3; three remainders tie at 2/3, and the two
    # questions left go to the first two topics listed (the untagged bucket is listed last).
    assert spread({"a": 8, "b": 5, "c": 3, None: 2}, 6) == {"a": 3, "b": 2, "c": 1}
    assert spread({"a": 1, "b": 1, "c": 1}, 2) == {"a": 1, "b": 1}
    assert spread({"a": 10, "b": 10}, 5, weights={"a": 1, "b": 1}) == {"a": 3, "b": 2}


def test_instructor_weights_decide_the_spread_and_a_short_topic_gives_its_share_to_the_others():
    # Weights 1:1, but topic "b" has only 2 questions: the rest goes to "a".
    assert spread({"a": 10, "b": 2}, 8, weights={"a": 1, "b": 1}) == {"a": 6, "b": 2}
    # A topic weighted 0 gets nothing; weights on topics with no questions are ignored.
    assert spread({"a": 10, "b": 10}, 6, weights={"a": 2, "b": 0, "zzz": 5}) == {"a": 6}


def test_asking_for_more_than_the_bank_draws_the_whole_bank():
    assert spread({"a": 3, None: 2}, 40) == {"a": 3, None: 2}


@settings(max_examples=200, deadline=None)
@given(
    available=st.dictionaries(st.integers(0, 8), st.integers(0, 30), min_size=1, max_size=8),
    count=st.integers(0, 120),
    weights=st.one_of(st.none(), st.dictionaries(st.integers(0, 10), st.integers(0, 5), max_size=8)),
)
def test_the_spread_never_overdraws_and_always_fills_what_it_can(available, count, weights):
    shares = spread(available, count, weights)
    assert all(0 < n <= available[topic] for topic, n in shares.items())
    # With weights, only the weighted topics are drawn from (unless none of them has a question).
    weighted = {t for t, w in (weights or {}).items() if w > 0 and available.get(t, 0)}
    drawable = sum(available[t] for t in weighted) if weighted else sum(available.values())
    assert sum(shares.values()) == min(count, drawable)
    assert not weighted or set(shares) <= weighted


def test_a_draw_is_spread_by_topic_has_no_repeats_and_is_reproducible():
    bank = [(pk, "net" if pk <= 30 else "sec" if pk <= 45 else None) for pk in range(1, 61)]
    first = draw(bank, 20, rng=random.Random(7))
    assert len(first) == len(set(first)) == 20
    topics = Counter(dict(bank)[pk] for pk in first)
    assert topics == {"net": 10, "sec": 5, None: 5}  # 30/15/15 of 60
    assert draw(bank, 20, rng=random.Random(7)) == first


# --- Starting, resuming, finishing ----------------------------------------------------------------

def test_a_mock_exam_is_timed_deferred_and_spread_over_the_topics_of_the_bank(db, clock):
    learner = make_user("alice")
    tagged_bank({"Routing": 12, "Security": 6, "Cabling": 2})

    attempt, created = start_mock_exam(user=learner, choices=Choices(10, 45, 70), now=NOW, rng=random.Random(1))

    assert created
    assert attempt.purpose == MockExam.PURPOSE and attempt.feedback == Attempt.Feedback.DEFERRED
    assert attempt.deadline == NOW + timedelta(minutes=45)
    assert attempt.slots.count() == 10
    topics = Counter(slot.question.topics.get().name for slot in attempt.slots.select_related("question"))
    assert topics == {"Routing": 6, "Security": 3, "Cabling": 1}
    assert sorted(attempt.mock_exam.topic_counts.values()) == [1, 3, 6]


def test_resuming_gives_the_same_draw_and_a_new_exam_draws_again(db, clock):
    learner = make_user("alice")
    tagged_bank({"Routing": 30, "Security": 30})
    client = logged_in(learner)
    form = {"questions": 12, "minutes": 30, "pass_percent": 70}

    first = client.post(reverse("mock_exam"), form)
    attempt = Attempt.objects.get(user=learner, purpose=MockExam.PURPOSE)
    drawn = list(attempt.slots.values_list("question_id", "shown_choices"))
    again = client.post(reverse("mock_exam"), {**form, "questions": 40})

    assert first.url == again.url == attempt.get_absolute_url()
    assert Attempt.objects.filter(user=learner, purpose=MockExam.PURPOSE).count() == 1
    assert list(attempt.slots.values_list("question_id", "shown_choices")) == drawn
    assert "in progress" in client.get(reverse("mock_exam")).content.decode()

    answer_all(attempt, right=0, now=NOW)
    attempt.finish(now=NOW)
    client.post(reverse("mock_exam"), form)
    assert Attempt.objects.filter(user=learner, purpose=MockExam.PURPOSE).count() == 2


def test_the_draw_takes_only_questions_the_learner_may_see(db, clock):
    learner, stranger = make_user("alice"), make_user("mallory")
    mine = make_question_set("Mine", questions=3, owner=learner)
    make_question_set("Private to someone else", questions=20, owner=stranger, visibility=Visibility.PRIVATE)

    attempt, _ = start_mock_exam(user=learner, choices=Choices(40, 60, 70), now=NOW)

    assert set(attempt.slots.values_list("question__question_set", flat=True)) == {mine.pk}
    assert attempt.question_count == 3  # the whole visible bank, not 40
    assert attempt.deadline == NOW + timedelta(minutes=5)  # 60 * 3 / 40 = 4.5, rounded up


def test_without_any_question_the_page_says_so_and_starts_nothing(db, clock):
    learner = make_user("alice")
    response = logged_in(learner).post(reverse("mock_exam"), {"questions": 10, "minutes": 10, "pass_percent": 50}, follow=True)
    assert "no question you can practise" in response.content.decode()
    assert not Attempt.objects.filter(user=learner).exists()


@pytest.mark.parametrize("bad", [
    {"questions": 0, "minutes": 10, "pass_percent": 50},
    {"questions": 10, "minutes": "", "pass_percent": 50},
    {"questions": 10, "minutes": 10, "pass_percent": 101},
    {"questions": "ten", "minutes": 10, "pass_percent": 50},
])
def test_bad_rules_are_refused_with_a_message_and_start_nothing(db, clock, bad):
    learner = make_user("alice")
    make_question_set(questions=5)
    response = logged_in(learner).post(reverse("mock_exam"), bad)
    assert response.status_code == 400
    assert 'class="error"' in response.content.decode()
    assert not Attempt.objects.filter(user=learner).exists()


@override_settings(MOCK_EXAM_QUESTIONS=25, MOCK_EXAM_MINUTES=50, MOCK_EXAM_PASS_PERCENT=80)
def test_the_form_starts_from_the_defaults_in_settings(db):
    html = logged_in(make_user("alice")).get(reverse("mock_exam")).content.decode()
    assert 'name="questions" value="25"' in html
    assert 'name="minutes" value="50"' in html
    assert 'name="pass_percent" value="80"' in html


def test_the_results_set_the_prediction_beside_the_actual_score(db, clock):
    learner = make_user("alice")
    question_set = make_question_set("Bank", questions=4)
    studied = list(question_set.questions.order_by("position")[:2])
    for question in studied:
        rate_item(learner, question, 3, NOW - timedelta(days=4))
    states = list(MemoryState.objects.filter(user=learner))
    expected = [scheduling.retrievability(m, NOW) for m in states]

    attempt, _ = start_mock_exam(user=learner, choices=Choices(4, 30, 50), now=NOW)
    mock_exam = attempt.mock_exam
    assert mock_exam.predictions == pytest.approx({str(m.question_id): r for m, r in zip(states, expected)})

    answer_all(attempt, right=3, now=NOW)
    attempt.finish(now=NOW)
    html = logged_in(learner).get(reverse("attempt_results", args=[attempt.pk])).content.decode()

    whole = round(sum(expected) / 4 * 100)
    assert 'data-testid="mock-exam-result"' in html
    assert f"<td>4</td>\n        <td>{whole}%</td><td>75%</td>" in html
    assert "Pass mark 50%:\n    <strong>passed</strong>" in html
    past = logged_in(learner).get(reverse("mock_exam")).content.decode()
    assert f"<td>{whole}%</td>" in past and "75%" in past


def test_an_unfinished_mock_exam_shows_no_prediction_or_score_and_others_cannot_open_it(db, clock):
    learner, other = make_user("alice"), make_user("bob")
    make_question_set(questions=5)
    attempt, _ = start_mock_exam(user=learner, choices=Choices(5, 30, 50), now=NOW)

    assert logged_in(other).get(reverse("attempt_results", args=[attempt.pk])).status_code == 404
    response = logged_in(learner).get(reverse("attempt_results", args=[attempt.pk]))
    assert response.status_code == 302  # not finished: back to the exam
    assert "mock-exam-result" not in logged_in(other).get(reverse("mock_exam")).content.decode()


def test_the_mock_exam_page_runs_a_fixed_number_of_queries(db, clock, django_assert_max_num_queries):
    learner = make_user("alice")
    make_question_set(questions=8)
    for _ in range(6):
        attempt, _ = start_mock_exam(user=learner, choices=Choices(8, 30, 50), now=NOW)
        answer_all(attempt, right=4, now=NOW)
        attempt.finish(now=NOW)
    client = logged_in(learner)
    # catching up (two reads), the open exam, the bank (what the numbers give), the class
    # exams, a page of past exams
    with django_assert_max_num_queries(AUTH + 6):
        assert client.get(reverse("mock_exam")).status_code == 200


# --- A bank smaller than the exam: said before it starts, the time in proportion ------------------

def test_fewer_questions_than_asked_get_proportionally_less_time_rounded_up_to_the_minute():
    asked = Choices(40, 60, 70)
    assert asked.for_count(7) == Choices(7, 11, 70)  # 60 * 7 / 40 = 10.5
    assert asked.for_count(20) == Choices(20, 30, 70)  # exact: not rounded up
    assert asked.for_count(1) == Choices(1, 2, 70)  # 1.5
    assert asked.for_count(40) is asked and asked.for_count(90) is asked


def test_a_short_bank_starts_an_exam_of_what_it_has_on_a_clock_cut_to_match(db, clock):
    learner = make_user("alice")
    make_question_set(questions=7)

    attempt, _ = start_mock_exam(user=learner, choices=Choices(40, 60, 70), now=NOW)

    assert attempt.question_count == 7
    assert attempt.deadline == NOW + timedelta(minutes=11)
    assert attempt.mock_exam.minutes == 11
    answer_all(attempt, right=7, now=NOW)
    attempt.finish(now=NOW)
    results = logged_in(learner).get(reverse("attempt_results", args=[attempt.pk])).content.decode()
    assert "Time limit 11 min.</p>" in results  # the limit it had, not the 60 minutes asked for


def test_the_page_says_what_the_bank_gives_before_the_exam_starts(db, clock):
    learner = make_user("alice")
    make_question_set(questions=7)

    html = logged_in(learner).get(reverse("mock_exam")).content.decode()

    # The defaults (40 in 60 minutes) against a bank of 7, with the numbers the form sends back.
    assert "You can practise 7 questions now, so this exam asks\n    7, not 40" in html
    assert '<strong data-testid="mock-plan-numbers">7 questions in 11 min</strong>' in html
    assert '<input type="hidden" name="plan" value="7,11">' in html


def test_a_start_with_the_numbers_the_page_showed_begins_at_once(db, clock):
    learner = make_user("alice")
    make_question_set(questions=7)

    response = logged_in(learner).post(reverse("mock_exam"), {"questions": 40, "minutes": 60, "pass_percent": 70, "plan": "7,11"})

    attempt = Attempt.objects.get(user=learner)
    assert response.status_code == 302 and response.url == attempt.get_absolute_url()
    assert attempt.deadline == NOW + timedelta(minutes=11)


def test_without_javascript_other_numbers_the_bank_cannot_fill_are_shown_before_the_clock_starts(db, clock):
    learner = make_user("alice")
    make_question_set(questions=7)
    client = logged_in(learner)
    # The learner changed 40 in 60 to 10 in 20, but the page (no JavaScript) had shown 7 in 11.
    form = {"questions": 10, "minutes": 20, "pass_percent": 70, "plan": "7,11"}

    shown = client.post(reverse("mock_exam"), form)

    assert shown.status_code == 200 and not Attempt.objects.filter(user=learner).exists()
    html = shown.content.decode()
    assert "Check the numbers before you start" in html
    assert '<strong data-testid="mock-plan-numbers">7 questions in 14 min</strong>' in html  # 20 * 7 / 10
    assert 'name="questions" value="10"' in html  # the learner's own numbers, kept

    client.post(reverse("mock_exam"), {**form, "plan": "7,14"})
    assert Attempt.objects.get(user=learner).deadline == NOW + timedelta(minutes=14)


def test_numbers_the_bank_can_fill_start_at_once_whatever_the_page_showed(db, clock):
    learner = make_user("alice")
    make_question_set(questions=7)

    logged_in(learner).post(reverse("mock_exam"), {"questions": 5, "minutes": 20, "pass_percent": 70, "plan": "7,11"})

    attempt = Attempt.objects.get(user=learner)
    assert (attempt.question_count, attempt.deadline) == (5, NOW + timedelta(minutes=20))


@pytest.mark.parametrize("query, expected", [
    ({"questions": 10, "minutes": 20}, "7 questions in 14 min"),
    ({"questions": 5, "minutes": 90}, "5 questions in 1 h 30 min"),
])
def test_as_the_learner_types_htmx_gets_only_the_note_for_their_numbers(db, clock, query, expected):
    learner = make_user("alice")
    make_question_set(questions=7)

    response = logged_in(learner).get(reverse("mock_exam"), query, **HTMX)

    html = response.content.decode()
    assert response.status_code == 200 and "<h1>" not in html and "Past mock exams" not in html
    assert f'<strong data-testid="mock-plan-numbers">{expected}</strong>' in html
    assert "HX-Request" in response["Vary"]


@pytest.mark.parametrize("query", [{"questions": "ten"}, {"questions": 0}, {"minutes": 10**30}, {"minutes": "-5"}])
def test_numbers_that_make_no_sense_give_the_rule_not_an_error(db, clock, query):
    learner = make_user("alice")
    make_question_set(questions=7)

    for headers in ({}, HTMX):
        response = logged_in(learner).get(reverse("mock_exam"), query, **headers)
        assert response.status_code == 200
        assert "An exam asks at most the 7 questions you can practise now" in response.content.decode()


def test_an_instructors_exam_says_what_the_bank_gives_for_its_topics(db, clock):
    instructor = make_instructor("teacher")
    learner = make_user("alice")
    classroom = make_classroom(instructor, learners=[learner])
    tagged_bank({"Routing": 3, "Security": 30})
    routing = make_topic("Routing")
    ExamBlueprint.objects.create(classroom=classroom, questions=40, minutes=60, pass_percent=70, topic_weights={str(routing.pk): 1})
    client = logged_in(learner)

    page = client.get(reverse("mock_exam")).content.decode()
    client.post(reverse("mock_exam"), {"classroom": classroom.pk})

    assert "Your instructor set 40 questions in 1 h;" in page
    assert '<strong data-testid="class-mock-plan">3 questions in 5 min</strong>' in page  # 60 * 3 / 40 = 4.5
    attempt = Attempt.objects.get(user=learner)
    assert (attempt.question_count, attempt.deadline) == (3, NOW + timedelta(minutes=5))


# --- An instructor's mock exam for a class -----------------------------------------------------------

def test_an_instructor_weights_the_topics_and_a_learner_of_the_class_takes_that_exam(db, clock):
    instructor = make_instructor("teacher")
    learner, outsider = make_user("alice"), make_user("mallory")
    classroom = make_classroom(instructor, learners=[learner])
    tagged_bank({"Routing": 30, "Security": 10, "Cabling": 10})
    routing, security = make_topic("Routing"), make_topic("Security")

    saved = logged_in(instructor).post(reverse("class_mock_exam", args=[classroom.pk]), {
        "questions": 10, "minutes": 20, "pass_percent": 60,
        f"topic_{routing.pk}": 1, f"topic_{security.pk}": 4,  # Cabling left at 0: not drawn
    })
    assert saved.status_code == 302
    assert ExamBlueprint.objects.get(classroom=classroom).weights == {routing.pk: 1, security.pk: 4}

    page = logged_in(learner).get(reverse("mock_exam")).content.decode()
    assert 'data-testid="class-mock-exam"' in page and "10 questions in 20 min</strong>,\n    pass mark 60%" in page
    logged_in(learner).post(reverse("mock_exam"), {"classroom": classroom.pk})
    attempt = Attempt.objects.get(user=learner, purpose=MockExam.PURPOSE)
    topics = Counter(slot.question.topics.get().name for slot in attempt.slots.select_related("question"))
    assert topics == {"Routing": 2, "Security": 8}
    assert attempt.deadline == NOW + timedelta(minutes=20)
    assert attempt.mock_exam.pass_percent == 60 and attempt.mock_exam.classroom == classroom

    # Someone outside the class can neither see nor start it.
    assert "class-mock-exam" not in logged_in(outsider).get(reverse("mock_exam")).content.decode()
    refused = logged_in(outsider).post(reverse("mock_exam"), {"classroom": classroom.pk}, follow=True)
    assert "That class has no mock exam" in refused.content.decode()
    assert not Attempt.objects.filter(user=outsider).exists()


def test_a_bad_blueprint_is_refused_with_a_message_and_saves_nothing(db):
    instructor = make_instructor("teacher")
    classroom = make_classroom(instructor)
    topic = make_topic("Routing")
    tagged_bank({"Routing": 3})
    response = logged_in(instructor).post(reverse("class_mock_exam", args=[classroom.pk]), {
        "questions": 10, "minutes": 20, "pass_percent": 60, f"topic_{topic.pk}": -1,
    })
    assert response.status_code == 400 and 'class="error"' in response.content.decode()
    assert not ExamBlueprint.objects.exists()


def test_a_mock_exam_whose_time_ran_out_is_submitted_and_the_next_start_draws_a_new_one(db):
    learner = make_user("alice")
    make_question_set(questions=6)
    client = logged_in(learner)
    form = {"questions": 4, "minutes": 5, "pass_percent": 50}
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        client.post(reverse("mock_exam"), form)
    first = Attempt.objects.get(user=learner, purpose=MockExam.PURPOSE)

    with mock.patch("django.utils.timezone.now", return_value=NOW + timedelta(hours=2)):
        page = client.get(reverse("mock_exam")).content.decode()
        client.post(reverse("mock_exam"), form)

    first.refresh_from_db()
    assert first.finished_at == first.deadline
    assert 'data-testid="mock-in-progress"' not in page
    assert Attempt.objects.filter(user=learner, purpose=MockExam.PURPOSE).count() == 2


def test_a_mock_exam_in_progress_says_when_its_time_is_up(db):
    learner = make_user("bea")
    make_question_set(questions=6)
    client = logged_in(learner)
    client.post(reverse("mock_exam"), {"questions": 4, "minutes": 30, "pass_percent": 50})
    exam = Attempt.objects.get(user=learner, purpose=MockExam.PURPOSE)

    page = client.get(reverse("mock_exam")).content.decode()

    assert f"time is up {moment_text(exam.deadline)}." in page  # "at 14:30" today, the day too otherwise
