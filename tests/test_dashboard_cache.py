"""The dashboard kept per learner (quiz.progress.dashboard_cache): a visit with nothing new
reads a handful of small rows, and every change a learner or an instructor makes shows on the
very next visit, compared with a dashboard built afresh.

Content made in a test's own transaction is committed here through
`django_capture_on_commit_callbacks(execute=True)`: until its commit a change is invisible to
other connections, and the cache stays out of the way of the transaction that made it."""

import re
import threading
from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.db import connection, transaction
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.urls import reverse

from quiz.editor.changes import remove_item
from quiz.lib.content_changes import GENERATION_KEY, content_unsettled, page_cache, writes_content
from quiz.middleware import ContentChangesMiddleware
from quiz.models import Assignment, Attempt, Deck, MemoryState, QuestionSet, ReviewLog, User
from quiz.progress.dashboard_cache import CSRF_PLACEHOLDER
from quiz.study.answers import submit_answer
from quiz.study.catch_up import finish_and_release
from quiz.study.queue import Scope
from quiz.study.scheduling import undo_last
from quiz.teaching import rules
from tests.class_factories import make_assignment, make_classroom, make_instructor, make_pool
from tests.factories import make_deck, make_question_set, make_user, start_attempt
from tests.helpers import AUTH, correct_number, count_queries, rate_item

NOW = datetime(2025, 3, 4, 12, 0, tzinfo=UTC)
HOME = "/"
# A visit served from the cache: whether the learner's attempts need bringing up to date with
# the clock (quiz.study.catch_up), the learner's stamp, the entry with the content generation.
CACHED_HOME_QUERIES = 3


@pytest.fixture
def clock():
    moment = {"now": NOW}
    with mock.patch("django.utils.timezone.now", side_effect=lambda: moment["now"]):
        yield moment


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Run a block's writes as if committed: their on-commit work (a new content generation) runs."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


@pytest.fixture
def setup(db, clock, committed):
    with committed():
        learner = make_user("alice")
        question_set = make_question_set("Routing", questions=3)
        deck = make_deck("Ports", cards=3)
        make_deck("Spare", cards=1)
        rate_item(learner, deck.cards.order_by("pk").first(), 3, NOW - timedelta(days=1))
    client = Client()
    client.force_login(learner)
    return {"learner": learner, "client": client, "set": question_set, "deck": deck}


def body(response):
    """The page's main content, the visitor's CSRF tokens left out (each page gets its own)."""
    assert response.status_code == 200
    html = response.content.decode()
    main = html.split("<main", 1)[1].split("</main>", 1)[0]
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "TOKEN", main)


def visit(client):
    return body(client.get(HOME))


def fresh(client, settings):
    """The dashboard built afresh, as it would be with no cache at all."""
    settings.DASHBOARD_CACHE_SECONDS = 0
    try:
        return visit(client)
    finally:
        settings.DASHBOARD_CACHE_SECONDS = 60


def test_a_second_visit_with_nothing_new_is_served_from_the_cache(setup, settings):
    client = setup["client"]
    first = visit(client)

    assert count_queries(client, HOME) == AUTH + CACHED_HOME_QUERIES
    assert visit(client) == first == fresh(client, settings)
    assert "Ports" in first and "Routing" in first


def test_building_and_keeping_the_page_runs_the_same_queries_whatever_the_history(setup, committed):
    # The first visit after study builds the page and stores it: a fixed number of queries too.
    with committed():
        veteran = make_user("veteran")
    for minutes in range(300):
        rate_item(veteran, setup["deck"].cards.order_by("pk")[minutes % 3], 1 + minutes % 4, NOW - timedelta(minutes=minutes))
    counts = []
    for user in (setup["learner"], veteran):
        client = Client()
        client.force_login(user)
        client.get(HOME)  # the first visit of the day stores the days that ended
        rate_item(user, setup["deck"].cards.order_by("pk")[2], 3, NOW)  # study: the next visit builds afresh
        counts.append(count_queries(client, HOME))

    assert counts[0] == counts[1] > AUTH + CACHED_HOME_QUERIES


def test_the_cached_page_has_no_placeholder_and_its_forms_carry_a_token_that_works(setup):
    learner = setup["learner"]
    client = Client(enforce_csrf_checks=True)
    client.force_login(learner)
    client.get(HOME)
    html = client.get(HOME).content.decode()  # from the cache

    assert str(CSRF_PLACEHOLDER) not in html
    token = re.search(r'action="/dashboard/exam/".*?name="csrfmiddlewaretoken" value="([^"]+)"', html, re.S).group(1)
    form = {"exam_date": "2025-06-01", "target_retention": "0.9", "csrfmiddlewaretoken": token}
    response = client.post(reverse("exam_settings"), form)
    assert response.status_code == 302
    learner.refresh_from_db()
    assert str(learner.exam_date) == "2025-06-01"


# --- The learner's own study shows at once -------------------------------------------------------
# Each: (what comes before the visits that fill the cache, the change the next visit must show).

def _open_attempt(feedback):
    def start(s):
        s["attempt"] = start_attempt(s["learner"], s["set"], feedback=feedback)
    return start


def _answer(s):
    slot = s["attempt"].slots.order_by("position").first()
    submit_answer(attempt=s["attempt"], slot=slot, number=correct_number(slot), now=NOW)


def _rate_a_new_card(s):
    rate_item(s["learner"], s["deck"].cards.order_by("pk")[1], 3, NOW)


def _rate_the_studied_card_again(s):
    rate_item(s["learner"], s["deck"].cards.order_by("pk").first(), 1, NOW)


def _undo_the_last_rating(s):
    undone = undo_last(user=s["learner"], sources=(ReviewLog.Source.STUDY,), scope=Scope(kinds=(MemoryState.Kind.CARD,)))
    assert undone is not None


def _start_a_quiz(s):
    start_attempt(s["learner"], s["set"])


def _finish_the_quiz(s):
    finish_and_release(s["attempt"], now=NOW)


def _set_an_exam_date(s):
    User.objects.filter(pk=s["learner"].pk).update(exam_date=NOW.date() + timedelta(days=30))


def _move_to_a_time_zone_where_it_is_tomorrow(s):
    User.objects.filter(pk=s["learner"].pk).update(time_zone="Pacific/Kiritimati")  # UTC+14


def _lower_the_new_cards_a_day(s):
    User.objects.filter(pk=s["learner"].pk).update(new_cards_per_day=1)


def _know_a_card_well(s):
    rate_item(s["learner"], s["deck"].cards.order_by("pk")[2], 4, NOW - timedelta(days=3))  # Easy: in review at once


def _adopt_new_fsrs_parameters(s):
    # What adopting an optimised schedule writes on the learner's row (quiz.study.personal).
    User.objects.filter(pk=s["learner"].pk).update(fsrs_parameters=[
        0.5, 1.5, 4.0, 12.0, 6.0, 0.6, 1.2, 0.01, 1.4, 0.15, 0.9, 1.8, 0.1, 0.35, 2.0, 0.25, 2.8, 0.4, 0.5, 0.12, 0.3,
    ])


def _answer_and_open(feedback):
    def prepare(s):
        _open_attempt(feedback)(s)
        _answer(s)
    return prepare


LEARNER_WRITES = [
    (None, _rate_a_new_card),
    (None, _rate_the_studied_card_again),
    (_rate_a_new_card, _undo_the_last_rating),
    (None, _start_a_quiz),
    (_open_attempt(Attempt.Feedback.IMMEDIATE), _answer),
    (_open_attempt(Attempt.Feedback.DEFERRED), _answer),  # held back: counted as study, not graded
    (_answer_and_open(Attempt.Feedback.DEFERRED), _finish_the_quiz),
    (None, _set_an_exam_date),
    (None, _move_to_a_time_zone_where_it_is_tomorrow),
    (None, _lower_the_new_cards_a_day),
    (_know_a_card_well, _adopt_new_fsrs_parameters),  # its recall in 7 days follows the new forgetting curve
]


@pytest.mark.parametrize("prepare, change", LEARNER_WRITES, ids=[
    "rate a new card", "rate a card again", "undo", "start a quiz", "answer", "answer held back", "finish a quiz",
    "exam date", "time zone", "new cards a day", "new FSRS parameters",
])
def test_the_learners_own_study_shows_on_the_next_visit(setup, settings, prepare, change):
    client = setup["client"]
    if prepare:
        prepare(setup)
    visit(client)
    before = visit(client)  # from the cache

    change(setup)
    after = visit(client)

    assert after == fresh(client, settings)
    assert after != before


def test_an_undo_then_a_release_at_the_due_date_show_though_they_balance_the_counts(setup, clock, committed, settings):
    # The undo takes a card's only rating back (one memory row and one review fewer); the
    # release brings a held-back answer in, dated when it was given (one of each more): the
    # newest review's id is what tells the two states apart.
    learner, client = setup["learner"], setup["client"]
    with committed():
        teacher = make_instructor()
        classroom = make_classroom(teacher, learners=[learner])
        pool = make_pool(teacher, questions=make_question_set("Assigned", questions=1).questions.all())
        assignment = make_assignment(classroom, pool, opens_at=NOW - timedelta(hours=1), due_at=NOW + timedelta(minutes=10),
                                     feedback_timing=Assignment.FeedbackTiming.AFTER_DUE)
    attempt = rules.start_attempt(user=learner, seen=rules.get_learner_assignment(user=learner, assignment_id=assignment.pk,
                                                                                  now=NOW), now=NOW)
    slot = attempt.slots.get()
    submit_answer(attempt=attempt, slot=slot, number=correct_number(slot), now=NOW)
    finish_and_release(Attempt.objects.get(pk=attempt.pk), now=NOW)
    _rate_a_new_card(setup)
    rate_item(learner, setup["set"].questions.order_by("pk").first(), 3, NOW + timedelta(minutes=2))
    clock["now"] = NOW + timedelta(minutes=9, seconds=30)
    visit(client)
    before = visit(client)

    clock["now"] = NOW + timedelta(minutes=9, seconds=35)
    _undo_the_last_rating(setup)
    clock["now"] = NOW + timedelta(minutes=10, seconds=1)  # past the due date: this visit releases the answer
    after = visit(client)

    assert MemoryState.objects.filter(user=learner, question=slot.question).exists()
    assert after == fresh(client, settings) != before


@pytest.mark.parametrize("prepare, change", LEARNER_WRITES)
def test_a_learners_study_leaves_everyone_elses_kept_dashboard_alone(setup, committed, prepare, change):
    # Study is most of the writes: were it to count as a content change, every answer would
    # throw away every learner's kept page.
    if prepare:
        prepare(setup)
    setup["client"].get(HOME)
    generation = page_cache().get(GENERATION_KEY)
    with committed():
        change(setup)

    assert page_cache().get(GENERATION_KEY) == generation


# --- Content, classes and assignments show at once, however they are written ---------------------

def _share_a_new_set(s):
    make_question_set("Subnetting", questions=2)


def _rename_a_set_in_bulk(s):
    QuestionSet.objects.filter(pk=s["set"].pk).update(title="Routing, revised")  # no signal is sent


def _delete_a_deck(s):
    Deck.objects.filter(title="Spare").delete()


def _assign_work_to_the_learners_class(s):
    teacher = make_instructor()
    classroom = make_classroom(teacher, learners=[s["learner"]])
    make_assignment(classroom, make_pool(teacher, questions=s["set"].questions.all()), opens_at=NOW - timedelta(hours=1),
                    due_at=NOW + timedelta(days=2))


def _retire_a_question(s):
    remove_item(s["set"].questions.order_by("pk").first(), now=NOW)  # answered, so retired (an UPDATE)


CONTENT_WRITES = [_share_a_new_set, _rename_a_set_in_bulk, _delete_a_deck, _assign_work_to_the_learners_class,
                  _retire_a_question]


@pytest.mark.parametrize("write", CONTENT_WRITES, ids=lambda f: f.__name__.strip("_"))
def test_content_changes_show_on_the_next_visit_once_committed(setup, settings, committed, write):
    client = setup["client"]
    before = visit(client)
    with committed():
        write(setup)
    after = visit(client)

    assert after == fresh(client, settings)
    assert after != before


def test_a_transaction_that_changed_content_neither_reads_nor_fills_the_cache(setup):
    client = setup["client"]
    visit(client)
    make_question_set("Uncommitted", questions=1)  # in this test's open transaction

    assert content_unsettled()
    assert "Uncommitted" in visit(client)
    assert count_queries(client, HOME) > AUTH + CACHED_HOME_QUERIES


def test_a_rolled_back_change_leaves_nothing_unsettled(setup, committed):
    generation = page_cache().get(GENERATION_KEY)
    with pytest.raises(RuntimeError), transaction.atomic():
        QuestionSet.objects.update(title="Never")
        assert content_unsettled()
        raise RuntimeError

    assert not content_unsettled()
    assert page_cache().get(GENERATION_KEY) == generation


def test_every_write_to_a_content_table_counts_and_no_read_or_study_write_does():
    assert writes_content('INSERT INTO "quiz_question" ("text") VALUES (%s)')
    assert writes_content('UPDATE "quiz_questionset" SET "title" = %s')
    assert writes_content('DELETE FROM "quiz_enrollment" WHERE 1')
    assert writes_content("update quiz_assignment set due_at = now()")
    assert writes_content('INSERT OR IGNORE INTO "quiz_question_topics" ("question_id") VALUES (%s)')
    assert writes_content('TRUNCATE "quiz_attempt", "quiz_question"')
    assert not writes_content('SELECT * FROM "quiz_question"')
    assert not writes_content('UPDATE "quiz_memorystate" SET "reps" = 2')
    assert not writes_content('INSERT INTO "quiz_reviewlog" ("rating") VALUES (3)')
    assert not writes_content('UPDATE "quiz_attempt" SET "last_answered_at" = %s')
    assert not writes_content('INSERT INTO "django_cache" ("cache_key") VALUES (%s)')
    # Writes in turn (quiz.lib.prepared.InTurn): one statement of data-modifying parts.
    assert not writes_content('WITH write_0 AS (UPDATE "quiz_attempt" SET "x" = 1 RETURNING "id" AS id), '
                              'write_1 AS (INSERT INTO "quiz_reviewlog" ("rating") SELECT 3 FROM write_0) SELECT 1')
    assert writes_content('WITH write_0 AS (UPDATE "quiz_attempt" SET "x" = 1 RETURNING "id" AS id), '
                          'write_1 AS (UPDATE "quiz_question" SET "stem" = %s) SELECT 1')
    assert not writes_content('WITH recent AS (SELECT * FROM "quiz_question") SELECT * FROM recent')


# --- What is never kept, and for how long ----------------------------------------------------------

def test_later_pages_of_the_lists_are_never_cached(setup):
    client = setup["client"]
    page_cache().delete(f"dashboard:{setup['learner'].pk}")
    client.get(HOME + "?sets=2")

    assert page_cache().get(f"dashboard:{setup['learner'].pk}") is None


def test_each_learner_gets_their_own_dashboard(setup, committed):
    with committed():
        newcomer = make_user("bob")
    visit(setup["client"])
    other = Client()
    other.force_login(newcomer)

    assert 'data-testid="no-progress"' in visit(other)
    assert 'data-testid="no-progress"' not in visit(setup["client"])


def test_a_card_falling_due_shows_within_the_time_an_entry_lasts(setup, clock, settings):
    client = setup["client"]
    due = MemoryState.objects.get(user=setup["learner"]).due
    clock["now"] = due - timedelta(seconds=1)
    not_yet = visit(client)
    clock["now"] = due + timedelta(seconds=1)
    assert visit(client) == not_yet  # still the kept page: nothing the learner did changed

    clock["now"] = due + timedelta(seconds=settings.DASHBOARD_CACHE_SECONDS)
    assert visit(client) == fresh(client, settings) != not_yet


@pytest.mark.django_db(transaction=True)
def test_with_real_commits_a_change_made_outside_any_transaction_shows_on_the_next_visit(clock, settings):
    # No test transaction around it: each write commits on its own (autocommit), as a plain
    # save() or update() in a view does, and the dashboard is read as another request would.
    learner = make_user("carol")
    question_set = make_question_set("Switching", questions=2)
    client = Client()
    client.force_login(learner)
    assert "Switching" in visit(client)
    assert count_queries(client, HOME) == AUTH + CACHED_HOME_QUERIES

    QuestionSet.objects.filter(pk=question_set.pk).update(title="Switching, revised")
    assert "Switching, revised" in visit(client)

    question_set.title = "Switching, saved"
    question_set.save()
    make_deck("VLANs", cards=1)  # an INSERT that returns its id
    page = visit(client)
    assert "Switching, saved" in page and "VLANs" in page
    assert page == fresh(client, settings)


@pytest.mark.django_db(transaction=True)
def test_a_change_a_view_writes_outside_a_transaction_is_announced_before_its_response_leaves():
    # request_finished comes when the server closes the response, after the browser has it and
    # may already be asking for the next page (from another worker).
    owner = make_user("dana")
    own = make_question_set("Dana's set", questions=1, owner=owner, visibility="private")
    client = Client()
    client.force_login(owner)
    client.get(reverse("library"))  # a CSRF cookie
    cookies = "; ".join(f"{name}={morsel.value}" for name, morsel in client.cookies.items())
    environ = RequestFactory().post(
        reverse("share_set", args=[own.pk]), {"visibility": "everyone", "csrfmiddlewaretoken": client.cookies["csrftoken"].value},
        HTTP_COOKIE=cookies,
    ).environ
    generation, statuses = page_cache().get(GENERATION_KEY), []

    response = WSGIHandler()(environ, lambda status, headers, exc_info=None: statuses.append(status))
    b"".join(response)  # what the server sends before it calls close()

    assert statuses == ["302 Found"]
    assert QuestionSet.objects.get(pk=own.pk).visibility == "everyone"
    assert generation_elsewhere() != generation
    response.close()


@pytest.mark.django_db(transaction=True)
def test_a_change_that_is_a_views_last_statement_is_announced_by_the_middleware():
    question_set = make_question_set("Last words", questions=1)
    generation = page_cache().get(GENERATION_KEY)

    def view(request):
        QuestionSet.objects.filter(pk=question_set.pk).update(title="Last words, revised")  # nothing runs after it
        return HttpResponse("saved")

    ContentChangesMiddleware(view)(RequestFactory().get("/"))

    # Read as another server would, on a connection of its own: reading on this one would
    # itself announce the change first.
    assert generation_elsewhere() != generation


def generation_elsewhere():
    seen = {}

    def read():
        try:
            seen["generation"] = page_cache().get(GENERATION_KEY)
        finally:
            connection.close()

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()
    return seen["generation"]


def test_a_page_cache_that_cannot_take_the_generation_never_fails_the_write_that_committed(db, committed, caplog):
    # (No cache table yet, or SQLite busy past its timeout: the content is saved already.)
    from django.db import OperationalError

    with mock.patch.object(type(page_cache()), "set", side_effect=OperationalError("no such table: django_cache_pages")):
        with committed():
            make_question_set("Saved anyway", questions=1)

    assert QuestionSet.objects.filter(title="Saved anyway").exists()
    assert "could not take a new generation" in caplog.text
