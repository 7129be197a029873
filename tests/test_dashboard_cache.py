"""The dashboard kept per learner (quiz.progress.dashboard_cache): a visit with nothing new
reads a handful of small rows, and every change a learner or an instructor makes shows on the
very next visit, compared with a dashboard built afresh. What is kept is the data, not the
HTML, so forms and their CSRF tokens are always the visitor's own.

Content is changed here through the app's services, which renew the content version when their
transaction commits (`django_capture_on_commit_callbacks(execute=True)` runs that commit's work
inside a test's own transaction)."""

import re
from datetime import UTC, datetime, timedelta
from unittest import mock

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse

from quiz.content import import_documents
from quiz.editor.changes import duplicate_set, remove_item, save_question
from quiz.lib.content_version import CONTENT_VERSION_KEY, page_cache
from quiz.models import Assignment, Attempt, MemoryState, ReviewLog, User
from quiz.study.answers import submit_answer
from quiz.study.catch_up import finish_and_release
from quiz.study.queue import Scope
from quiz.study.scheduling import undo_last
from quiz.teaching import rules
from tests.class_factories import make_assignment, make_classroom, make_instructor, make_pool
from tests.factories import make_deck, make_question_set, make_user, start_attempt
from tests.helpers import AUTH, correct_number, count_queries, logged_in, rate_item
from tests.importing import QUIZ

NOW = datetime(2025, 3, 4, 12, 0, tzinfo=UTC)
HOME = "/"
# A visit served from the cache: whether the learner's attempts need bringing up to date with
# the clock (quiz.study.catch_up), the entry with the content version, the learner's stamp (3).
CACHED_HOME_QUERIES = 5
# The first visit after the learner studied: the same, the dashboard built (HOME_QUERIES of
# tests/test_dashboard.py but the catch-up, counted above) and the entry stored (the database
# cache counts its rows, then a savepoint pair around reading the key and writing it).
BUILT_HOME_QUERIES = CACHED_HOME_QUERIES + 14 + 5


@pytest.fixture(autouse=True)
def dashboards_kept(settings):
    settings.DASHBOARD_CACHE_SECONDS = 60


@pytest.fixture
def clock():
    moment = {"now": NOW}
    with mock.patch("django.utils.timezone.now", side_effect=lambda: moment["now"]):
        yield moment


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """Run a block's writes as if committed: their on-commit work (a new content version) runs."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


@pytest.fixture
def setup(db, clock, committed):
    with committed():
        learner = make_user("alice")
        question_set = make_question_set("Routing", questions=3)
        deck = make_deck("Ports", cards=3)
        make_deck("Spare", cards=1)
        rate_item(learner, deck.cards.order_by("pk").first(), 3, NOW - timedelta(days=1))
    return {"learner": learner, "client": logged_in(learner), "set": question_set, "deck": deck}


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
        client = logged_in(user)
        client.get(HOME)  # the first visit of the day stores the days that ended
        rate_item(user, setup["deck"].cards.order_by("pk")[2], 3, NOW)  # study: the next visit builds afresh
        counts.append(count_queries(client, HOME))

    assert counts[0] == counts[1] == AUTH + BUILT_HOME_QUERIES


def test_a_kept_dashboards_forms_carry_the_visitors_own_token_and_it_works(setup):
    learner = setup["learner"]
    client = Client(enforce_csrf_checks=True)
    client.force_login(learner)
    client.get(HOME)
    html = client.get(HOME).content.decode()  # from the cache

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
    # Study is most of the writes: were it to renew the content version, every answer would
    # throw away every learner's kept dashboard.
    if prepare:
        prepare(setup)
    setup["client"].get(HOME)
    version = page_cache().get(CONTENT_VERSION_KEY)
    with committed():
        change(setup)

    assert page_cache().get(CONTENT_VERSION_KEY) == version


# --- Content, classes and assignments show at once, through the services that change them ---------

def _import_a_new_set(s):
    import_documents([QUIZ])


def _add_a_question(s):
    save_question(question_set=s["set"], stem="Which layer routes?", explanation="",
                  choices=[("Network", True), ("Link", False)], topics=[])


def _share_a_private_set(s):
    own = make_question_set("Alice's own", questions=1, owner=s["learner"])
    client = logged_in(s["learner"])
    client.post(reverse("share_set", args=[own.pk]), {"visibility": "everyone"})


def _duplicate_a_set(s):
    duplicate_set(s["set"], owner=s["learner"], now=NOW)


def _retire_a_question(s):
    remove_item(s["set"].questions.order_by("pk").first(), now=NOW)  # answered, so retired (an UPDATE)


def _assign_work_to_the_learners_class(s):
    teacher = make_instructor()
    classroom = make_classroom(teacher, learners=[s["learner"]])
    pool = make_pool(teacher, questions=s["set"].questions.all())
    form = {"title": "Week 1", "pool": pool.pk, "opens_at": "2025-03-04T11:00", "due_at": "2025-03-06T11:00",
            "grading": "best", "feedback_timing": "immediate"}
    assert logged_in(teacher).post(reverse("new_assignment", args=[classroom.pk]), form).status_code == 302


def _join_a_class_with_work(s):
    teacher = make_instructor()
    classroom = make_classroom(teacher)
    make_assignment(classroom, make_pool(teacher, questions=s["set"].questions.all()), opens_at=NOW - timedelta(hours=1),
                    due_at=NOW + timedelta(days=2))
    classroom.join(s["learner"])


CONTENT_WRITES = [
    (None, _import_a_new_set), (None, _add_a_question), (None, _share_a_private_set), (None, _duplicate_a_set),
    (None, _retire_a_question), (None, _assign_work_to_the_learners_class), (None, _join_a_class_with_work),
]


@pytest.mark.parametrize("prepare, write", CONTENT_WRITES, ids=lambda f: f.__name__.strip("_") if f else "")
def test_content_changes_show_on_the_next_visit_once_committed(setup, settings, committed, prepare, write):
    client = setup["client"]
    before = visit(client)
    with committed():
        write(setup)
    after = visit(client)

    assert after == fresh(client, settings)
    assert after != before


def test_every_service_that_changes_what_a_dashboard_shows_renews_the_content_version(setup, committed):
    """Each may change what some learner's dashboard shows, whether or not this learner's does."""
    def renews(write):
        version = page_cache().get(CONTENT_VERSION_KEY)
        with committed():
            write()
        return page_cache().get(CONTENT_VERSION_KEY) != version

    teacher = make_instructor()
    classroom = make_classroom(teacher, learners=[setup["learner"]])
    pool = make_pool(teacher, questions=setup["set"].questions.all()[:1])
    assignment = make_assignment(classroom, pool)
    question = setup["set"].questions.order_by("pk").last()
    setup["client"].get(HOME)

    assert renews(lambda: pool.add_questions([question.pk]))
    assert renews(lambda: pool.move_entry(pool.entries.order_by("position").last(), "up"))
    assert renews(lambda: assignment.exclude_question(question, by=teacher))
    assert renews(lambda: assignment.include_question(question))
    assert renews(lambda: rules.save_override(assignment=assignment, learner=setup["learner"], rules={}))
    assert renews(lambda: rules.delete_override(assignment.overrides.get()))
    assert renews(lambda: classroom.archive())
    assert renews(lambda: classroom.restore())
    assert renews(lambda: classroom.remove_learner(setup["learner"]))
    assert renews(lambda: assignment.delete_or_archive())


def test_a_rolled_back_change_leaves_the_version_alone(setup, committed):
    version = page_cache().get(CONTENT_VERSION_KEY)
    with committed(), pytest.raises(RuntimeError), transaction.atomic():
        import_documents([QUIZ])
        raise RuntimeError

    assert page_cache().get(CONTENT_VERSION_KEY) == version


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

    assert 'data-testid="no-progress"' in visit(logged_in(newcomer))
    assert 'data-testid="no-progress"' not in visit(setup["client"])


def test_a_card_falling_due_shows_within_the_time_an_entry_lasts(setup, clock, settings):
    client = setup["client"]
    due = MemoryState.objects.get(user=setup["learner"]).due
    clock["now"] = due - timedelta(seconds=1)
    not_yet = visit(client)
    clock["now"] = due + timedelta(seconds=1)
    assert visit(client) == not_yet  # still the kept data: nothing the learner did changed

    clock["now"] = due + timedelta(seconds=settings.DASHBOARD_CACHE_SECONDS)
    assert visit(client) == fresh(client, settings) != not_yet


@pytest.mark.django_db(transaction=True)
def test_with_real_commits_a_change_through_a_service_shows_on_the_next_visit(clock, settings):
    # No test transaction around it: the service's transaction commits as a request's does.
    learner = make_user("carol")
    make_question_set("Switching", questions=2)
    client = logged_in(learner)
    assert "Switching" in visit(client)
    assert count_queries(client, HOME) == AUTH + CACHED_HOME_QUERIES

    import_documents([QUIZ])
    page = visit(client)
    assert "Multi-GPU Computing" in page
    assert page == fresh(client, settings)


def test_a_page_cache_that_cannot_take_the_version_never_fails_the_change_that_committed(db, committed, caplog):
    # (No cache table yet, or SQLite busy past its timeout: the content is saved already.)
    from django.db import OperationalError

    with mock.patch.object(type(page_cache()), "set", side_effect=OperationalError("no such table: django_cache_pages")):
        with committed():
            import_documents([QUIZ])

    assert User.objects.count() == 0 and "could not take a new version" in caplog.text
