"""Every page runs a small, fixed number of queries, whatever the amount of data.

Each test pins the page's exact count with django_assert_num_queries (a comment names each
query) and checks that the count is the same with little and with a lot of data.
"""

import pytest
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from quiz.models import Attempt, MemoryState, ReviewLog
from tests.factories import make_question_set, start_attempt
from tests.helpers import (
    AUTH,
    HTMX,
    answer_all,
    answer_at,
    correct_number,
    count_queries,
    logged_in,
    question_url,
    rate_item,
)

# Session + user lookups that every signed-in request makes.


def add_finished_attempts(user, question_set, how_many):
    now = timezone.now()
    Attempt.objects.bulk_create(
        Attempt(user=user, question_set=question_set, started_at=now, finished_at=now, question_count=3, correct_count=n % 4, score=n % 4)
        for n in range(how_many)
    )


def test_home_for_a_learner(learner_client, learner):
    sets = [make_question_set(questions=3) for _ in range(2)]
    add_finished_attempts(learner, sets[0], 1)
    learner_client.get(reverse("home"))  # the first visit of a day stores the days that ended
    few = count_queries(learner_client, reverse("home"))

    for _ in range(8):
        sets.append(make_question_set(questions=3))
    for question_set in sets:
        add_finished_attempts(learner, question_set, 100)
    many = count_queries(learner_client, reverse("home"))

    # The same as many attempts later; the count itself is pinned, query by query, in
    # test_dashboard.py::test_the_dashboard_runs_the_same_queries_with_10_and_10000_answers.
    assert few == many


def test_home_for_a_visitor(client, db, django_assert_num_queries):
    make_question_set()
    with django_assert_num_queries(2):  # sets with counts; decks
        client.get(reverse("home"))


def test_my_attempts(learner_client, learner, question_set, django_assert_num_queries):
    add_finished_attempts(learner, question_set, 1)
    few = count_queries(learner_client, reverse("attempt_list"))
    add_finished_attempts(learner, question_set, 999)
    many = count_queries(learner_client, reverse("attempt_list") + "?page=3")

    assert few == many
    # anything to catch up (an expired attempt to close, answers to release: one query); sets
    # for the filter form; count for the paginator; one page of attempts with sets
    with django_assert_num_queries(AUTH + 4):
        learner_client.get(reverse("attempt_list"))


@pytest.mark.parametrize("questions", [3, 30])
def test_question_page(learner_client, learner, questions, django_assert_num_queries):
    attempt = start_attempt(learner, make_question_set(questions=questions))
    add_finished_attempts(learner, attempt.question_set, 50)
    # the slot with its attempt, set and question
    with django_assert_num_queries(AUTH + 1):
        response = learner_client.get(reverse("attempt_question", args=[attempt.pk, 2]))
    assert response.status_code == 200


# What every answer runs after the session and the user: the slot with its attempt and question;
# whether an assignment holds the question back (a practice attempt); then one transaction (BEGIN
# and COMMIT, a savepoint pair inside the test's own transaction) holding a savepoint pair around
# the answer's record: the attempt's UPDATE while it is open (which locks it), the slot's while
# unanswered.
ANSWER = 1 + 1 + 2 + 2 + 2
# With feedback per question, also: is another question open (if not, the attempt is finished
# and scored: two more); the learner's memory of the question read and locked (new: the
# learner's row locked and the memory read again), written, and its log row inserted.
RATED_ANSWER = ANSWER + 1 + 1 + 1 + 1
FIRST_RATING = 2


@pytest.mark.parametrize("questions", [3, 30])
@pytest.mark.parametrize("studied", [False, True])
def test_answering(learner_client, learner, questions, studied, django_assert_num_queries):
    attempt = start_attempt(learner, make_question_set(questions=questions))
    slot = attempt.slots.select_related("question").get(position=1)
    if studied:
        rate_item(learner, slot.question, ReviewLog.Rating.GOOD)
    first = 0 if studied else FIRST_RATING
    with django_assert_num_queries(AUTH + RATED_ANSWER + first):
        response = learner_client.post(question_url(attempt, 1), {"choice": correct_number(slot)})
    assert response.status_code == 302
    assert MemoryState.objects.get(user=learner, question=slot.question).reps == 1 + studied
    # With htmx, the question's page in the same response: its slot read afresh, one query.
    slot = attempt.slots.get(position=2)
    with django_assert_num_queries(AUTH + RATED_ANSWER + FIRST_RATING + 1):
        response = learner_client.post(question_url(attempt, 2), {"choice": correct_number(slot)}, **HTMX)
    assert response.status_code == 200


@override_settings(
    # As production runs with REDIS_URL set: a shared cache (here one per process) and sessions
    # read from it, written through to the database.
    CACHES={"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}},
    SESSION_ENGINE="qsessions.backends.cached_db",
)
def test_answering_with_a_shared_cache_reads_no_session_row(learner, django_assert_num_queries):
    client = logged_in(learner)  # the session is written to the cache as well
    attempt = start_attempt(learner, make_question_set(questions=3))
    slot = attempt.slots.get(position=1)
    # The user and the answer's; not the session.
    with django_assert_num_queries(1 + RATED_ANSWER + FIRST_RATING) as captured:
        response = client.post(question_url(attempt, 1), {"choice": correct_number(slot)})
    assert response.status_code == 302
    assert not any("qsessions_session" in query["sql"] for query in captured.captured_queries)
    assert attempt.slots.get(position=1).answered_at is not None


@pytest.mark.parametrize("questions", [3, 30])
def test_results_page(learner_client, learner, questions, django_assert_num_queries):
    attempt = answer_all(start_attempt(learner, make_question_set(questions=questions)))
    # attempt with its set and user; slots with their questions (for the explanations); the
    # questions' topics, for the score by topic (one prefetch, whatever the number of questions)
    with django_assert_num_queries(AUTH + 3):
        response = learner_client.get(reverse("attempt_results", args=[attempt.pk]))
    assert response.status_code == 200


def test_the_feedback_page_and_the_attempt_redirect(learner_client, learner, django_assert_num_queries):
    attempt = start_attempt(learner, make_question_set(questions=30))
    add_finished_attempts(learner, attempt.question_set, 200)
    answer_all(attempt, right=1)
    unfinished = start_attempt(learner, make_question_set(questions=30))
    # the slot with its attempt, set and question
    with django_assert_num_queries(AUTH + 1):
        assert learner_client.get(reverse("attempt_question", args=[attempt.pk, 1])).status_code == 200
    # the attempt with the position of its first open question; the deadline check needs none
    with django_assert_num_queries(AUTH + 1):
        response = learner_client.get(reverse("attempt", args=[unfinished.pk]))
    assert response.status_code == 302 and response["Location"] == reverse("attempt_question", args=[unfinished.pk, 1])


def test_starting_an_attempt(learner_client, learner, django_assert_num_queries):
    question_set = make_question_set(questions=30)
    add_finished_attempts(learner, question_set, 200)
    # the set (if visible); how many questions, how many held back by an assignment; open attempt?;
    # questions; their choices; savepoint, attempt, slots, release
    with django_assert_num_queries(AUTH + 9):
        assert learner_client.post(reverse("start_attempt", args=[question_set.pk])).status_code == 302


@pytest.mark.parametrize("name", ["login", "signup", "password_reset"])
def test_account_pages(client, db, name, django_assert_num_queries):
    with django_assert_num_queries(0):  # no session yet, no user, nothing to look up
        assert client.get(reverse(name)).status_code == 200


def test_answering_the_last_question_finishes_the_attempt_in_the_same_queries(learner_client, learner, django_assert_num_queries):
    attempt = start_attempt(learner, make_question_set(questions=3))
    slots = list(attempt.slots.order_by("position"))
    for slot in slots[:2]:
        answer_at(attempt, slot, right=True, at=timezone.now())
    number = correct_number(slots[2])

    # as any answer, and the right answers counted and the attempt's UPDATE that finishes it
    with django_assert_num_queries(AUTH + RATED_ANSWER + FIRST_RATING + 2):
        learner_client.post(reverse("attempt_question", args=[attempt.pk, 3]), {"choice": number})

    attempt.refresh_from_db()
    assert attempt.is_finished and attempt.correct_count == 3 and attempt.last_answered_at == attempt.finished_at


@pytest.mark.parametrize("questions", [5, 40])
def test_submitting_a_deferred_attempt_releases_every_answer_in_fixed_queries(
    learner_client, learner, questions, django_assert_num_queries
):
    attempt = start_attempt(learner, make_question_set(questions=questions), feedback=Attempt.Feedback.DEFERRED)
    slots = list(attempt.slots.select_related("question").order_by("position"))
    rate_item(learner, slots[0].question, ReviewLog.Rating.GOOD)  # one question studied before, the rest new
    for slot in slots:
        answer_at(attempt, slot, right=slot.position % 2 == 0, at=timezone.now())
    assert not ReviewLog.objects.filter(source=ReviewLog.Source.QUIZ).exists()
    # The last answer saved no more than any answer: it no longer finishes the attempt.
    attempt.refresh_from_db()
    assert not attempt.is_finished

    # The attempt; finishing it: a savepoint pair, the row locked, the right answers counted, its
    # UPDATE, and the row read back; then the release: anything pending, a savepoint pair, the
    # pending slots read and locked, claimed by one UPDATE; the learner's row locked, their
    # memory of their questions read and locked; one INSERT of the new memories, one UPDATE of
    # the studied one, one INSERT of the log rows.
    with django_assert_num_queries(AUTH + 1 + 6 + 1 + 2 + 7):
        learner_client.post(reverse("attempt_submit", args=[attempt.pk]))

    quiz_logs = ReviewLog.objects.filter(user=learner, source=ReviewLog.Source.QUIZ)
    assert quiz_logs.count() == questions == attempt.slots.filter(scheduled_at__isnull=False).count()
    assert MemoryState.objects.get(user=learner, question=slots[0].question).reps == 2
    assert quiz_logs.filter(was_new=True).count() == questions - 1


def test_the_last_answer_of_a_deferred_attempt_costs_what_any_answer_does(learner_client, learner, django_assert_num_queries):
    attempt = start_attempt(learner, make_question_set(questions=3), feedback=Attempt.Feedback.DEFERRED)
    slots = list(attempt.slots.order_by("position"))
    for slot in slots[:2]:
        answer_at(attempt, slot, right=True, at=timezone.now())

    # The answer's; nothing released: the learner submits later.
    with django_assert_num_queries(AUTH + ANSWER):
        learner_client.post(question_url(attempt, 3), {"choice": correct_number(slots[2])})

    assert attempt.slots.filter(answered_at__isnull=False).count() == 3


def test_changing_a_deferred_answer_costs_what_any_answer_does(learner_client, learner, django_assert_num_queries):
    attempt = start_attempt(learner, make_question_set(questions=3), feedback=Attempt.Feedback.DEFERRED)
    slot = attempt.slots.get(position=1)
    answer_at(attempt, slot, right=False, at=timezone.now())

    with django_assert_num_queries(AUTH + ANSWER):
        learner_client.post(question_url(attempt, 1), {"choice": correct_number(slot)})

    slot.refresh_from_db()
    assert slot.is_correct


def test_flagging_a_question_is_one_update(learner_client, learner, django_assert_num_queries):
    attempt = start_attempt(learner, make_question_set(questions=30), feedback=Attempt.Feedback.DEFERRED)
    # the slot's UPDATE, guarded by the learner and the attempt being open
    with django_assert_num_queries(AUTH + 1):
        learner_client.post(reverse("flag_question", args=[attempt.pk, 2]), {"flagged": "1"})
    assert attempt.slots.get(position=2).flagged


@pytest.mark.parametrize("questions", [3, 30])
def test_the_summary_before_submitting(learner_client, learner, questions, django_assert_num_queries):
    attempt = start_attempt(learner, make_question_set(questions=questions), feedback=Attempt.Feedback.DEFERRED)
    # the attempt with its set; its slots
    with django_assert_num_queries(AUTH + 2):
        assert learner_client.get(reverse("attempt_summary", args=[attempt.pk])).status_code == 200
    # the attempt with its set; its slots, to count them
    with django_assert_num_queries(AUTH + 2):
        assert learner_client.get(reverse("attempt_submit", args=[attempt.pk])).status_code == 200


@pytest.mark.parametrize("devices", [1, 6])
def test_the_account_page(db, devices, django_assert_num_queries):
    from tests.factories import make_user

    user = make_user("owner")
    clients = [logged_in(user) for _ in range(devices)]
    # the signed-in devices (their sessions), whatever their number
    with django_assert_num_queries(AUTH + 1):
        assert clients[0].get(reverse("account_settings")).status_code == 200


@pytest.mark.parametrize("decks", [1, 10])
def test_the_anki_history_progress_page(db, decks, django_assert_num_queries):
    from quiz.models import HistoryImport
    from tests.factories import make_deck, make_user

    user = make_user("mover")
    for number in range(decks):
        HistoryImport.objects.create(owner=user, deck=make_deck(f"Deck {number}", owner=user),
                                     reviews={"k": [[0, 3, 1000]]}, total=1, left=1, cards=1)
    client = logged_in(user)
    # the imports with their decks, without their reviews
    with django_assert_num_queries(AUTH + 1):
        assert client.get(reverse("import_history")).status_code == 200
