"""'Delete my account' (quiz.accounts.deletion, docs/accounts-deletion.md): no row names the
learner afterwards, instructors' class statistics do not change, others' history of shared
content stays (by "Deleted author"), and an instructor's active classes are handed over or
archived first.

Actors: zoe, the learner who deletes her account (a distinctive username and email, so the walk
over every table can look for them); bob, another learner; the teacher; and a second instructor."""

import logging
import smtplib
from datetime import date, timedelta

import pytest
from django.apps import apps
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core import mail
from django.db import models
from django.test import Client
from django.urls import reverse

from quiz.accounts import deletion
from quiz.content.pending import stage_import
from quiz.lib.content_version import page_cache
from quiz.models import (
    AssignmentOverride,
    Attempt,
    Deck,
    Enrollment,
    MemoryState,
    QuestionPool,
    QuestionSet,
    ReminderSent,
    ReviewLog,
    SourceDocument,
    StudyDay,
    Topic,
    User,
    Visibility,
)
from quiz.study import personal
from quiz.teaching.gradebook import build_gradebook
from quiz.teaching.item_analysis import analyse_items
from tests.class_factories import NOW, make_assignment, make_classroom, make_instructor, make_pool, take
from tests.factories import PASSWORD, make_deck, make_question_set, make_topic, make_user, start_attempt
from tests.helpers import AUTH, answer_all, count_queries, logged_in, rate_item

USERNAME, EMAIL = "zqxdeleteme7", "zqx7@example.org"
TOPIC = "Zoe Quixote diary"  # a topic only her private deck carries: its name is hers
DELETE = reverse("delete_account")


@pytest.fixture
def zoe(db):
    return make_user(USERNAME, email=EMAIL, first_name="Zoe", last_name="Quixote")


@pytest.fixture
def zoe_client(zoe):
    return logged_in(zoe)


@pytest.fixture
def course(teacher, zoe, other_learner):
    """The teacher's class with zoe and bob in it, and an assignment both took."""
    classroom = make_classroom(teacher, learners=[zoe, other_learner])
    assignment = make_assignment(classroom, make_pool(teacher, make_question_set(questions=3).questions.all()))
    take(assignment, zoe, [0, 1, 0])
    take(assignment, other_learner, [0, 0, 0])
    return classroom, assignment


def delete(client, confirmation=PASSWORD):
    return client.post(DELETE, {"confirmation": confirmation})


def rows_naming(user_id, needles):
    """Every row of every installed model that points at the user or holds one of `needles`."""
    found = []
    for model in apps.get_models(include_auto_created=True):
        for field in model._meta.concrete_fields:
            if field.is_relation and field.related_model is get_user_model():
                if model._base_manager.filter(**{field.attname: user_id}).exists():
                    found.append(f"{model._meta.label}.{field.name} -> user {user_id}")
            elif isinstance(field, models.CharField | models.TextField | models.JSONField):
                for value in model._base_manager.exclude(**{field.attname: None}).values_list(field.attname, flat=True):
                    if any(needle in str(value).lower() for needle in needles):
                        found.append(f"{model._meta.label}.{field.name} = {str(value)[:80]!r}")
    return found


# --- Nothing names the learner afterwards -----------------------------------------------------------

def test_it_leaves_no_row_that_names_the_learner_in_any_table(
    zoe, zoe_client, other_learner, teacher, course, settings, django_capture_on_commit_callbacks
):
    settings.DASHBOARD_CACHE_SECONDS = 60
    classroom, assignment = course
    AssignmentOverride.objects.create(assignment=assignment, learner=zoe, due_at=NOW + timedelta(days=3))
    # Self-study: a quiz on the library, flashcards, her own private deck, a set she shared that bob studied.
    answer_all(start_attempt(zoe, make_question_set(questions=2)))
    library_deck = make_deck(cards=2)
    rate_item(zoe, library_deck.cards.first(), 3)
    private_deck = make_deck("Zoe's private deck", owner=zoe)
    private_deck.cards.first().topics.add(make_topic(TOPIC))
    rate_item(zoe, private_deck.cards.first(), 3)
    shared = make_question_set("Zoe's shared set", owner=zoe, visibility=Visibility.EVERYONE)
    answer_all(start_attempt(other_learner, shared))
    # Sign-ins: a successful and then a failed login through the form (a success resets the failures),
    # a failed one typed with her email address (in other letter case), her session, and her dashboard kept.
    Client().post(reverse("login"), {"username": USERNAME, "password": PASSWORD})
    Client().post(reverse("login"), {"username": USERNAME, "password": "wrong"})
    Client().post(reverse("login"), {"username": EMAIL.upper(), "password": "wrong"})
    assert zoe_client.get(reverse("home")).status_code == 200
    # The rest of what an account accumulates.
    stage_import(owner=zoe, files=[("notes", b"::q:: Which? {=a ~b}\n")])
    personal.optimise(zoe)
    StudyDay.objects.create(user=zoe, day=date(2026, 5, 1), time_zone="UTC", reviews=1, correct=1)
    ReminderSent.objects.create(user=zoe, kind=ReminderSent.Kind.DIGEST, key="2026-05-01")
    LogEntry.objects.create(
        user=teacher, content_type=ContentType.objects.get_for_model(User), object_id=str(zoe.pk),
        object_repr=str(zoe), action_flag=CHANGE, change_message="Changed email.",
    )
    # Her identity at an LMS, linked to the account by a launch (with the email the platform sent).
    from lti_tool.models import LtiRegistration, LtiUser

    platform = LtiRegistration.objects.create(name="Moodle", issuer="https://lms.example", client_id="tool",
                                              auth_url="https://lms.example/auth", token_url="https://lms.example/token",
                                              keyset_url="https://lms.example/jwks")
    LtiUser.objects.create(registration=platform, sub="u-77", name="Zoe Quixote", email=EMAIL, auth_user=zoe)
    needles = (USERNAME, EMAIL, TOPIC.lower())
    before = rows_naming(zoe.pk, needles)
    # The walk sees what it must clear: every kind of row above names her (or points at her) now.
    for table in ("AccessAttempt", "AccessLog", "AccessFailureLog", "admin.LogEntry", "qsessions.Session",
                  "quiz.Attempt", "quiz.MemoryState", "quiz.ReviewLog", "quiz.ScheduleFit", "quiz.StudyDay",
                  "quiz.PendingImport", "quiz.ReminderSent", "quiz.Enrollment", "quiz.AssignmentOverride", "quiz.Deck",
                  "quiz.Topic", "lti_tool.LtiUser"):
        assert any(table in row for row in before), table
    assert any("AccessAttempt.username" in row and EMAIL in row.lower() for row in before)
    assert page_cache().get(f"dashboard:{zoe.pk}") is not None

    with django_capture_on_commit_callbacks(execute=True):
        response = delete(zoe_client)

    assert response.status_code == 302
    assert rows_naming(zoe.pk, needles) == []
    about_her = LogEntry.objects.filter(content_type=ContentType.objects.get_for_model(User), object_id=str(zoe.pk))
    assert not about_her.exists()
    assert page_cache().get(f"dashboard:{zoe.pk}") is None


def test_the_walk_finds_a_username_stored_in_any_text_column(zoe):
    # A future model (an LMS link, say) that copies the username or the email is caught.
    SourceDocument.objects.create(owner=None, file_name=f"export of {USERNAME.upper()}.csv", kind="quiz", title="t", checksum="0")

    assert rows_naming(zoe.pk, (USERNAME, EMAIL)) != []


# --- Class history stays, anonymous ------------------------------------------------------------------

def statistics(classroom, assignment):
    """The assignment's figures in the gradebook and item analysis, the learners' names left out."""
    book = build_gradebook(classroom=classroom, now=NOW)
    columns = [(c.average, c.median, c.completion) for c in book.columns if c.assignment == assignment]
    scores = sorted(
        (cell.score, cell.status, cell.attempts) for _, cells in book.rows for cell in cells if cell.assignment == assignment
    )
    items = [(i.question.pk, i.answered, i.facility, i.discrimination, i.point_biserial) for i in analyse_items(assignment=assignment)]
    return columns, scores, items


def test_class_statistics_are_the_same_after_a_learner_deletes_their_account(zoe, zoe_client, teacher):
    learners = [zoe] + [make_user() for _ in range(4)]
    classroom = make_classroom(teacher, learners=learners)
    assignment = make_assignment(classroom, make_pool(teacher, make_question_set(questions=4).questions.all()))
    for picks, learner in zip([[0, 1, 2, 3], [0, 0, 0, 0], [1, 1, 2, 3], [0, 1, 0, 3], [3, 2, 1, 0]], learners):
        take(assignment, learner, picks)
    take(assignment, zoe, [0, 0, 0, 0])  # a second attempt: per-learner counts must not merge
    before = statistics(classroom, assignment)

    assert delete(zoe_client).status_code == 302

    assert statistics(classroom, assignment) == before
    names = [learner.username for learner, _ in build_gradebook(classroom=classroom, now=NOW).rows]
    placeholder = next(name for name in names if name.startswith("Deleted learner "))
    assert USERNAME not in names and len(names) == 5
    assert Attempt.objects.filter(user__username=placeholder, assignment=assignment).count() == 2


def completions(classroom):
    return {column.assignment.title: column.completion for column in build_gradebook(classroom=classroom, now=NOW).columns}


def test_an_assignment_set_after_she_left_does_not_count_her_and_past_ones_do_not_change(zoe, teacher, other_learner):
    classroom = make_classroom(teacher, learners=[zoe, other_learner])
    answered = make_assignment(classroom, make_pool(teacher, make_question_set(questions=3).questions.all()), title="Answered")
    missed = make_assignment(classroom, title="Missed", opens_at=NOW - timedelta(days=3), due_at=NOW - timedelta(days=2))
    still_open = make_assignment(classroom, title="Open")
    take(answered, zoe, [0, 1, 0])
    for assignment in (answered, missed, still_open):
        take(assignment, other_learner, [0, 0, 0])
    before = statistics(classroom, answered)
    assert completions(classroom) == {"Answered": 100, "Missed": 50, "Open": 50}

    deletion.delete_account(zoe, now=NOW)
    later = make_assignment(classroom, title="Set later", opens_at=NOW + timedelta(hours=1), due_at=NOW + timedelta(days=2))
    take(later, other_learner, [0, 0, 0], start=NOW + timedelta(hours=2))

    assert statistics(classroom, answered) == before
    # She missed "Missed" before leaving: that stays history. "Open" and "Set later" she can never do.
    assert completions(classroom) == {"Missed": 50, "Answered": 100, "Open": 100, "Set later": 100}
    assert [item.answered for item in analyse_items(assignment=later)] == [1, 1, 1]


def test_a_learner_with_no_answers_in_a_class_leaves_it_and_no_placeholder_is_made(zoe, zoe_client, teacher):
    classroom = make_classroom(teacher, learners=[zoe])
    AssignmentOverride.objects.create(assignment=make_assignment(classroom), learner=zoe, due_at=NOW + timedelta(days=3))
    assert "nothing of yours stays in a class, and you leave the classes you joined" in zoe_client.get(DELETE).content.decode()

    assert delete(zoe_client).status_code == 302

    assert not User.objects.filter(is_placeholder=True).exists()
    assert not Enrollment.objects.filter(classroom=classroom).exists()
    assert not AssignmentOverride.objects.exists()


def test_the_placeholder_stays_only_where_she_answered(zoe, zoe_client, teacher, course):
    classroom, answered = course
    elsewhere = make_classroom(teacher, name="Security 201", learners=[zoe])
    unanswered = make_assignment(classroom, title="Week 2")
    for assignment in (answered, unanswered):
        AssignmentOverride.objects.create(assignment=assignment, learner=zoe, due_at=NOW + timedelta(days=3))

    delete(zoe_client)

    placeholder = User.objects.get(username__startswith="Deleted learner ")
    assert list(Enrollment.objects.filter(learner=placeholder).values_list("classroom", flat=True)) == [classroom.pk]
    assert not Enrollment.objects.filter(classroom=elsewhere).exists()
    assert list(AssignmentOverride.objects.values_list("assignment", "learner")) == [(answered.pk, placeholder.pk)]


def test_each_deleted_learner_gets_a_placeholder_that_cannot_sign_in(course, zoe_client, other_learner):
    delete(zoe_client)
    delete(logged_in(other_learner))

    placeholders = User.objects.filter(username__startswith="Deleted learner ")
    assert placeholders.count() == 2
    for placeholder in placeholders:
        assert placeholder.is_placeholder and not placeholder.is_active and not placeholder.has_usable_password()
        assert (placeholder.email, placeholder.first_name, placeholder.last_name) == ("", "", "")
    client = Client()
    client.post(reverse("login"), {"username": placeholders[0].username, "password": ""})
    assert "_auth_user_id" not in client.session


def test_the_page_says_the_class_answers_stay_as_a_deleted_learner(course, zoe_client):
    page = zoe_client.get(DELETE).content.decode()

    assert "anonymous “Deleted learner”: their gradebook and item analysis do not change" in page


# --- Content ----------------------------------------------------------------------------------------

def test_a_shared_set_someone_studied_passes_to_deleted_author_with_their_history(zoe, zoe_client, other_learner):
    document = SourceDocument.objects.create(owner=zoe, file_name="notes.csv", kind="quiz", title="Notes", checksum="0")
    shared = make_question_set("Routing drills", owner=zoe, visibility=Visibility.EVERYONE, source=document)
    attempt = answer_all(start_attempt(other_learner, shared), right=2)
    studied_deck = make_deck("Subnet cards", owner=zoe, visibility=Visibility.EVERYONE)
    rate_item(other_learner, studied_deck.cards.first(), 3)
    history = (attempt.score, attempt.slots.count(), MemoryState.objects.filter(user=other_learner).count(),
               ReviewLog.objects.filter(user=other_learner).count())
    page = zoe_client.get(DELETE).content.decode()
    assert "Routing drills" in page and "Subnet cards" in page

    delete(zoe_client)

    shared.refresh_from_db()
    studied_deck.refresh_from_db()
    attempt.refresh_from_db()
    assert shared.owner.username == studied_deck.owner.username == "Deleted author"
    assert shared.owner.is_placeholder and not shared.owner.is_active and not shared.owner.has_usable_password()
    assert shared.visibility == studied_deck.visibility == Visibility.EVERYONE
    assert (attempt.score, attempt.slots.count(), MemoryState.objects.filter(user=other_learner).count(),
            ReviewLog.objects.filter(user=other_learner).count()) == history
    document.refresh_from_db()
    assert document.owner == shared.owner and document.file_name == f"{document.pk} notes.csv"


def test_two_deleted_authors_share_one_placeholder_even_with_the_same_file_name(zoe, zoe_client, other_learner, teacher):
    for owner in (zoe, other_learner):
        document = SourceDocument.objects.create(owner=owner, file_name="notes.csv", kind="quiz", title="N", checksum="0")
        shared = make_question_set(owner=owner, visibility=Visibility.EVERYONE, source=document)
        answer_all(start_attempt(teacher, shared))

    delete(zoe_client)
    delete(logged_in(other_learner))

    assert User.objects.filter(username="Deleted author").count() == 1
    assert SourceDocument.objects.filter(owner__username="Deleted author").count() == 2


def test_private_and_unused_content_is_deleted(zoe, zoe_client, teacher):
    document = SourceDocument.objects.create(owner=zoe, file_name="mine.csv", kind="quiz", title="Mine", checksum="0")
    private = make_question_set("My private set", owner=zoe, source=document)
    answer_all(start_attempt(zoe, private))  # her own use does not keep it
    unused_shared = make_question_set("Shared, never used", owner=zoe, visibility=Visibility.EVERYONE)
    deck = make_deck("My private deck", owner=zoe)
    rate_item(zoe, deck.cards.first(), 3)
    unused_pool = make_pool(zoe, private.questions.all(), title="Unused pool")

    assert delete(zoe_client).status_code == 302

    assert not QuestionSet.objects.filter(pk__in=[private.pk, unused_shared.pk]).exists()
    assert not Deck.objects.filter(pk=deck.pk).exists()
    assert not SourceDocument.objects.filter(pk=document.pk).exists()
    assert not QuestionPool.objects.filter(pk=unused_pool.pk).exists()
    assert not User.objects.filter(username="Deleted author", owned_questionsets__isnull=False).exists()


def test_only_her_topics_that_nothing_else_carries_go(zoe, zoe_client, other_learner):
    deck = make_deck("Diary", owner=zoe)
    private_set = make_question_set("Diary questions", owner=zoe)
    shared_set = make_question_set("Kept", owner=zoe, visibility=Visibility.EVERYONE)
    answer_all(start_attempt(other_learner, shared_set))
    library_set = make_question_set()
    hers, on_library, on_kept, unused = (make_topic(name) for name in (TOPIC, "Subnetting", "Routing", "Nobody's"))
    deck.cards.first().topics.add(hers, on_library)
    private_set.questions.first().topics.add(hers)
    library_set.questions.first().topics.add(on_library)
    shared_set.questions.first().topics.add(on_kept)

    delete(zoe_client)

    # Hers goes; one the library also carries, one on her set that stays, and one unused but not hers stay.
    assert set(Topic.objects.values_list("name", flat=True)) == {"Subnetting", "Routing", "Nobody's"}
    assert unused.pk in Topic.objects.values_list("pk", flat=True)


def test_the_page_says_content_shared_with_classes_only_is_no_longer_offered(zoe, zoe_client, other_learner):
    shared = make_question_set("Class drills", owner=zoe, visibility=Visibility.CLASSES)
    answer_all(start_attempt(other_learner, shared))

    page = zoe_client.get(DELETE).content.decode()

    assert "Class drills <span class=\"muted\">(question set, shared with your classes only)" in page
    assert "stays for the history of those who\n    used it, but is no longer offered to new learners" in page


def test_a_set_in_another_instructors_pool_stays_even_if_nobody_answered_it(zoe, zoe_client, teacher):
    shared = make_question_set("Pooled", owner=zoe, visibility=Visibility.EVERYONE)
    make_pool(teacher, shared.questions.all())

    delete(zoe_client)

    shared.refresh_from_db()
    assert shared.owner.username == "Deleted author"


# --- Confirmation -----------------------------------------------------------------------------------

def test_a_wrong_password_shows_the_form_again_and_changes_nothing(zoe, zoe_client, course):
    response = delete(zoe_client, "not my password")

    assert response.status_code == 400
    assert "That is not your password." in response.content.decode()
    assert User.objects.filter(pk=zoe.pk).exists()
    assert Attempt.objects.filter(user=zoe).count() == 1
    assert zoe_client.get(reverse("study_settings")).status_code == 200


def test_guesses_at_the_password_are_limited_per_account(zoe, zoe_client):
    for _ in range(5):
        assert delete(zoe_client, "guess").status_code == 400

    response = delete(zoe_client)

    assert response.status_code == 429
    assert User.objects.filter(pk=zoe.pk).exists()


def test_an_account_without_a_usable_password_types_its_username(zoe):
    zoe.set_unusable_password()  # as an LMS launch makes it
    zoe.save()
    zoe_client = logged_in(zoe)
    assert "Your username" in zoe_client.get(DELETE).content.decode()

    assert delete(zoe_client, PASSWORD).status_code == 400
    assert delete(zoe_client, USERNAME).status_code == 302

    assert not User.objects.filter(pk=zoe.pk).exists()


def test_it_signs_out_says_so_and_logs_the_id_only(zoe, zoe_client, caplog):
    with caplog.at_level(logging.INFO, logger="quiz.security"):
        response = zoe_client.post(DELETE, {"confirmation": PASSWORD}, follow=True)

    assert "Your account and your data are deleted." in response.content.decode()
    assert "_auth_user_id" not in zoe_client.session
    (record,) = [r for r in caplog.records if getattr(r, "event", None) == "account_deleted"]
    assert record.user_id == zoe.pk
    assert USERNAME not in str(vars(record)) and EMAIL not in str(vars(record))


def test_the_deleted_accounts_other_devices_are_signed_out(zoe, zoe_client):
    other_device = logged_in(zoe)

    delete(zoe_client)

    response = other_device.get(reverse("study_settings"))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_a_failure_partway_changes_nothing(zoe, zoe_client, course, other_learner):
    # An account already holding the placeholder's name (only the ORM can make one: the name has a
    # space) makes the deletion fail when her shared set passes on, after her class history was moved
    # and her own study deleted: all of it is undone.
    shared = make_question_set(owner=zoe, visibility=Visibility.EVERYONE)
    answer_all(start_attempt(other_learner, shared))
    User.objects.create_user("Deleted author")
    memories = MemoryState.objects.filter(user=zoe).count()

    response = delete(zoe_client)

    assert response.status_code == 409
    assert User.objects.filter(pk=zoe.pk).exists()
    assert Attempt.objects.filter(user=zoe).count() == 1 and MemoryState.objects.filter(user=zoe).count() == memories
    assert not User.objects.filter(username__startswith="Deleted learner").exists()
    shared.refresh_from_db()
    assert shared.owner == zoe


def test_no_deleted_author_is_made_when_nothing_passes_to_it(zoe, zoe_client):
    make_question_set(owner=zoe)

    delete(zoe_client)

    assert not User.objects.filter(is_placeholder=True).exists()


def test_the_page_renders_for_a_learner_and_an_instructor(zoe_client, teacher_client, teacher):
    classes = [make_classroom(teacher, name="Networking 101"), make_classroom(teacher, name="Security 201")]

    learner_page = zoe_client.get(DELETE)
    teacher_page = teacher_client.get(DELETE)

    assert learner_page.status_code == teacher_page.status_code == 200
    assert "Your password" in learner_page.content.decode()
    html = teacher_page.content.decode()
    for classroom in classes:
        assert classroom.name in html and reverse("archive_classroom", args=[classroom.pk]) in html
        assert f'id="id_class-{classroom.pk}-username"' in html  # one form each, ids apart


def test_the_page_costs_the_same_queries_whatever_the_classes_and_content(teacher, other_learner):
    for number in range(3):
        make_classroom(teacher, name=f"Class {number}")
        start_attempt(other_learner, make_question_set(owner=teacher, visibility=Visibility.EVERYONE))
        rate_item(other_learner, make_deck(owner=teacher, visibility=Visibility.EVERYONE).cards.first(), 3)

    # The session and the user (AUTH); the active classes; the shared sets; the shared decks; whether
    # class history stays (answers in assignments); the archived classes.
    assert count_queries(logged_in(teacher), DELETE) == AUTH + 1 + 1 + 1 + 1 + 1


def test_a_visitor_is_sent_to_sign_in(db):
    response = Client().get(DELETE)

    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


# --- An instructor's classes ------------------------------------------------------------------------

@pytest.fixture
def second_instructor(db):
    return make_instructor("carol")


def hand_over(client, classroom, username="carol"):
    """The second, confirming POST (the first, with the username alone, asks)."""
    return client.post(reverse("hand_over_class", args=[classroom.pk]), {"username": username, "confirm": "1"})


@pytest.fixture
def two_classes(teacher, zoe, other_learner):
    """Two active classes of the teacher's, each with an assignment its learner took."""
    classes = []
    for name, learner in (("Networking 101", zoe), ("Security 201", other_learner)):
        classroom = make_classroom(teacher, name=name, learners=[learner])
        own_set = make_question_set(f"{name} questions", questions=2, owner=teacher)  # private: only her pool shows it
        assignment = make_assignment(classroom, make_pool(teacher, own_set.questions.all(), title=name))
        take(assignment, learner, [0, 1])
        classes.append(classroom)
    return classes


def test_an_instructor_with_active_classes_is_refused_until_they_are_handed_over_or_archived(
    teacher, teacher_client, two_classes, second_instructor, other_learner
):
    handed, archived = two_classes

    refused = delete(teacher_client)

    assert refused.status_code == 409
    assert "Hand over or archive your active classes first" in refused.content.decode()
    assert User.objects.filter(pk=teacher.pk).exists()

    assert hand_over(teacher_client, handed).status_code == 302
    assert teacher_client.post(reverse("archive_classroom", args=[archived.pk])).status_code == 302

    assert delete(teacher_client).status_code == 302

    handed.refresh_from_db()
    archived.refresh_from_db()
    assert handed.owner == second_instructor and handed.archived_at is None
    assert QuestionPool.objects.get(assignments__classroom=handed).owner == second_instructor
    assert archived.owner.username == "Deleted author" and archived.archived_at is not None
    assert QuestionPool.objects.get(assignments__classroom=archived).owner == archived.owner
    assert Attempt.objects.filter(assignment__classroom=archived, user=other_learner).count() == 1
    # The sets behind both pools (carol's now, and the archived class's) stay, by "Deleted author".
    owners = set(QuestionSet.objects.filter(title__endswith=" questions").values_list("owner__username", flat=True))
    assert owners == {"Deleted author"}


def test_handing_over_keeps_a_pool_another_class_of_the_giver_still_uses(teacher, teacher_client, second_instructor):
    pool = make_pool(teacher, draw_count=2)
    given, kept = make_classroom(teacher, name="Given"), make_classroom(teacher, name="Kept")
    given_assignment, kept_assignment = make_assignment(given, pool), make_assignment(kept, pool)

    hand_over(teacher_client, given)

    given.refresh_from_db()
    pool.refresh_from_db()
    given_assignment.refresh_from_db()
    kept_assignment.refresh_from_db()
    assert given.owner == second_instructor and pool.owner == teacher and kept_assignment.pool == pool
    # The class's assignment uses a copy of carol's: the same questions in the same order, the same draw.
    copy = given_assignment.pool
    assert copy != pool and copy.owner == second_instructor
    assert (copy.title, copy.draw_count) == (pool.title, pool.draw_count)
    entries = [list(p.entries.order_by("position").values_list("question", "position")) for p in (copy, pool)]
    assert entries[0] == entries[1]


def test_the_new_instructor_can_edit_an_assignment_whose_pool_the_giver_still_uses(
    teacher, teacher_client, second_instructor, zoe
):
    pool = make_pool(teacher, make_question_set(questions=3).questions.all())
    given = make_classroom(teacher, name="Given", learners=[zoe])
    make_assignment(make_classroom(teacher, name="Kept"), pool)
    assignment = make_assignment(given, pool)
    attempt = take(assignment, zoe, [0, 1, 0])
    before = statistics(given, assignment), list(attempt.slots.values_list("question", "chosen_index"))
    hand_over(teacher_client, given)
    assignment.refresh_from_db()
    carol = logged_in(second_instructor)
    edit = reverse("edit_assignment", args=[assignment.pk])
    form = {
        "pool": assignment.pool_id, "title": "Week 1, edited", "grading": "best", "feedback_timing": "immediate",
        "opens_at": (NOW - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M"),
        "due_at": (NOW + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M"),
    }

    assert carol.get(edit).status_code == 200
    assert carol.get(reverse("pool", args=[assignment.pool_id])).status_code == 200
    response = carol.post(edit, form)

    assert response.status_code == 302
    assignment.refresh_from_db()
    assert assignment.title == "Week 1, edited"
    # Attempts hold their questions, not the pool: her answers and the class's figures are as they were.
    assert (statistics(given, assignment), list(attempt.slots.values_list("question", "chosen_index"))) == before


def test_the_username_alone_asks_first_and_changes_nothing(teacher_client, teacher, second_instructor, course):
    classroom, _ = course
    make_assignment(classroom, title="Week 2")

    response = teacher_client.post(reverse("hand_over_class", args=[classroom.pk]), {"username": "carol"})

    assert response.status_code == 200
    html = response.content.decode()
    assert "Hand Networking 101 (2 learners, 2 assignments) over to carol? You will lose access." in html
    assert 'name="confirm" value="1"' in html and 'name="username" value="carol"' in html
    classroom.refresh_from_db()
    assert classroom.owner == teacher

    assert hand_over(teacher_client, classroom).status_code == 302
    classroom.refresh_from_db()
    assert classroom.owner == second_instructor


def test_the_new_instructor_is_emailed_only_at_a_verified_address(
    teacher_client, two_classes, second_instructor, django_capture_on_commit_callbacks
):
    verified, unverified = two_classes
    dave = make_instructor("dave", email="dave@example.org")  # not verified: nothing goes there
    User.objects.filter(pk=second_instructor.pk).update(email="carol@example.org", email_verified_at=NOW)

    with django_capture_on_commit_callbacks(execute=True):
        hand_over(teacher_client, verified)
        hand_over(teacher_client, unverified, dave.username)

    (message,) = mail.outbox
    assert message.to == ["carol@example.org"] and message.subject == "Networking 101 is now your class"
    assert "teacher handed the class Networking 101 over to you" in message.body
    assert reverse("classroom", args=[verified.pk]) in message.body


def test_a_mail_server_that_refuses_is_logged_and_the_hand_over_stands(
    teacher_client, two_classes, second_instructor, monkeypatch, caplog, django_capture_on_commit_callbacks
):
    User.objects.filter(pk=second_instructor.pk).update(email="carol@example.org", email_verified_at=NOW)

    def refuse(*args, **kwargs):
        raise smtplib.SMTPException("550 refused")

    monkeypatch.setattr(deletion, "send_mail", refuse)
    with caplog.at_level(logging.ERROR, logger="quiz.security"), django_capture_on_commit_callbacks(execute=True):
        response = hand_over(teacher_client, two_classes[0])

    assert response.status_code == 302
    two_classes[0].refresh_from_db()
    assert two_classes[0].owner == second_instructor
    assert [r.event for r in caplog.records if getattr(r, "event", None)] == ["email_failed"]


@pytest.mark.parametrize("typed, why", [
    # A learner's name and nobody's get the same words: the form tells nothing else about accounts.
    ("bob", "No active instructor has that username."),
    ("nobody", "No active instructor has that username."),
    ("teacher", "That is you"),
    ("Deleted author", "No active instructor has that username."),
    ("", "This field is required."),
])
def test_handing_over_to_anyone_but_another_active_instructor_is_refused(
    teacher, teacher_client, two_classes, other_learner, typed, why
):
    classroom = two_classes[0]
    User.objects.create_user("Deleted author", is_instructor=True, is_placeholder=True, is_active=False)

    response = hand_over(teacher_client, classroom, typed)

    assert response.status_code == 400
    assert why in response.content.decode()
    classroom.refresh_from_db()
    assert classroom.owner == teacher


def test_an_inactive_instructor_cannot_take_a_class(teacher_client, two_classes, second_instructor, teacher):
    User.objects.filter(pk=second_instructor.pk).update(is_active=False)
    classroom = two_classes[0]

    response = hand_over(teacher_client, classroom)

    assert response.status_code == 400
    classroom.refresh_from_db()
    assert classroom.owner == teacher


@pytest.mark.parametrize("actor", ["second_instructor", "other_learner"])
def test_nobody_else_can_hand_over_your_class(request, two_classes, teacher, actor):
    classroom = two_classes[0]
    client = logged_in(request.getfixturevalue(actor))

    for data in ({"username": "carol"}, {"username": "carol", "confirm": "1"}):
        assert client.post(reverse("hand_over_class", args=[classroom.pk]), data).status_code == 404
    classroom.refresh_from_db()
    assert classroom.owner == teacher


def test_handing_over_is_a_post_for_a_signed_in_owner(two_classes, teacher_client):
    url = reverse("hand_over_class", args=[two_classes[0].pk])

    assert teacher_client.get(url).status_code == 405
    response = Client().post(url, {})
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
