"""A class's roster synced from its LMS course (quiz.lti.roster) against the LTI 1.3 platform the
tests run on 127.0.0.1 (tests/lti_platform.py), whose Names and Role Provisioning service pages
its members and wants an access token the tool gets with a client assertion signed by its key.

Classes are made as in the LMS: the course's instructor launches (tests/test_lti.py's helpers)."""

import html
import re
import socket

import pytest
from django.test import Client
from django.urls import reverse
from lti_tool.models import Key, LtiContext, LtiDeployment, LtiMembership, LtiRegistration, LtiUser

from quiz.lti import roster
from quiz.models import Classroom, Enrollment
from tests.class_factories import make_assignment, make_classroom, make_instructor
from tests.factories import make_user
from tests.helpers import AUTH, count_queries
from tests.lti_platform import Platform
from tests.test_lti import instructor_claims, launch, learner_claims

PLATFORM = "Moodle of Testing"
TEACHER = {"user_id": "teacher-1", "name": "Ines Instructor", "roles": ["Instructor"]}


@pytest.fixture
def lms():
    with Platform(name=PLATFORM) as platform:
        yield platform


@pytest.fixture
def registration(db, lms):
    Key.objects.generate()
    lms.tool_jwks = Key.objects.as_jwks()  # no live server: the platform reads the tool's keys from here
    registration = LtiRegistration.objects.create(
        name=PLATFORM, issuer=lms.issuer, client_id=lms.client_id, auth_url=lms.auth_url,
        token_url=lms.token_url, keyset_url=lms.keyset_url,
    )
    LtiDeployment.objects.create(registration=registration, deployment_id=lms.deployment_id, is_active=True)
    return registration


def learners(count, prefix="s", **fields):
    return [{"user_id": f"{prefix}{n}", "name": f"Learner {prefix}{n:02d}", "email": f"{prefix}{n}@example.org",
             **fields} for n in range(count)]


def course_class(lms, registration, context_id="course-1"):
    """The course's instructor launches (choosing a new account the first time): their client,
    signed in, and the class the course became."""
    teacher = Client()
    claims = instructor_claims(lms, context_id=context_id, context_title=context_id)
    response = launch(teacher, lms, registration, claims)
    if response.url == reverse("lti_welcome"):
        teacher.post(reverse("lti_welcome"), {"choice": "new"})
    return teacher, Classroom.objects.get(lti_course__context__id_on_platform=context_id)


def learner_launches(lms, registration, user_id, name, context_id="course-1"):
    """A learner's launch from the course, a new account at the first; their account."""
    client = Client()
    claims = lms.resource_link_claims(user_id=user_id, name=name, context_id=context_id, context_title=context_id)
    response = launch(client, lms, registration, claims)
    if response.url == reverse("lti_welcome"):
        client.post(reverse("lti_welcome"), {"choice": "new"})
    return LtiUser.objects.get(sub=user_id).auth_user


def sync(teacher, classroom):
    """The instructor's "Sync roster" button; the message on the class's page it leads back to."""
    response = teacher.post(reverse("sync_roster", args=[classroom.pk]), follow=True)
    assert response.redirect_chain == [(classroom.get_absolute_url(), 302)]
    return html.unescape(re.search(r"<li class=\"message[^\"]*\">(.*?)</li>", response.content.decode(), re.DOTALL).group(1))


def gradebook(teacher, classroom):
    return teacher.get(reverse("gradebook", args=[classroom.pk])).content.decode()


def not_launched(html):
    return re.findall(r'data-testid="not-launched">\s*<th scope="row">(.*?) <span', html)


def learner_rows(html):
    body = html.partition("<tbody>")[2].partition("</tbody>")[0]
    return re.findall(r'<tr>\s*<th scope="row">([^<]*)', body)


def lms_state():
    return (
        sorted(LtiUser.objects.values_list("sub", "name", "auth_user_id")),
        sorted(LtiMembership.objects.values_list("user__sub", "is_active", "is_learner", "is_instructor")),
        sorted(Enrollment.objects.values_list("classroom_id", "learner_id")),
    )


# --- Syncing ---------------------------------------------------------------------------------------

def test_a_sync_reads_every_page_and_the_gradebook_lists_who_has_not_launched(lms, registration):
    # Three pages of ten. Those who run the course are not its learners, whatever else they are.
    lms.members = [TEACHER, {"user_id": "t2", "name": "Co Teacher", "roles": ["Instructor", "Learner"]},
                   {"user_id": "m1", "name": "Mo Mentor", "roles": ["Mentor"]}, *learners(25)]
    teacher, classroom = course_class(lms, registration)
    make_assignment(classroom, title="Week 1")
    asked_before = len(lms.requests_to("/memberships"))  # by the instructor's launch, once it syncs too

    message = sync(teacher, classroom)

    assert message == f"Roster synced from {PLATFORM}: 28 members, 25 not launched yet."
    pages = lms.requests_to("/memberships")[asked_before:]
    assert [(r.query.get("page", "1"), r.status) for r in pages] == [("1", 200), ("2", 200), ("3", 200)]
    html = gradebook(teacher, classroom)
    assert not_launched(html) == [f"Learner s{n:02d}" for n in range(25)]
    assert "Co Teacher" not in html and "Mo Mentor" not in html and learner_rows(html) == []
    assert html.count('<td class="grade-cell">—</td>') == 25  # a dash in each cell, one assignment
    assert not Enrollment.objects.exists() and LtiUser.objects.filter(auth_user__isnull=True).count() == 27


def test_a_member_who_launches_takes_their_entry_over_and_shows_once(lms, registration):
    lms.members = [TEACHER, {"user_id": "student-1", "name": "Lee Learner"},
                   {"user_id": "student-2", "name": "Ann Other"}]
    teacher, classroom = course_class(lms, registration)
    make_assignment(classroom, title="Week 1")
    sync(teacher, classroom)
    assert not_launched(gradebook(teacher, classroom)) == ["Ann Other", "Lee Learner"]

    account = learner_launches(lms, registration, "student-1", "Lee Learner")  # their first launch makes the account

    html = gradebook(teacher, classroom)
    assert not_launched(html) == ["Ann Other"]
    assert learner_rows(html) == [account.username] and "Lee Learner" not in html
    assert LtiUser.objects.filter(sub="student-1").count() == 1  # the roster's entry is now theirs
    assert list(classroom.enrollments.values_list("learner", flat=True)) == [account.pk]
    assert sync(teacher, classroom) == f"Roster synced from {PLATFORM}: 3 members, 1 not launched yet."


def test_members_with_an_account_join_the_class_but_not_an_archived_one(lms, registration):
    # student-9 has an account from a launch in another course of the same LMS.
    teacher, classroom = course_class(lms, registration)
    other_course = launch(Client(), lms, registration,
                          learner_claims(lms, user_id="student-9", context_id="course-2", context_title="course-2"))
    assert other_course.url == reverse("lti_welcome")
    lms.members = [TEACHER, {"user_id": "student-9", "name": "Nine"}]
    assert sync(teacher, classroom).endswith("1 not launched yet.")  # no account yet: they never chose one

    account = learner_launches(lms, registration, "student-9", "Nine")  # course-1: joins at launch...
    classroom.remove_learner(account)  # ...and the instructor takes them out here
    archived = Classroom.objects.get(pk=classroom.pk)
    archived.archive()
    sync(teacher, archived)
    assert not classroom.enrollments.exists()  # an archived class takes no one

    archived.restore()
    message = sync(teacher, classroom)

    assert message == f"Roster synced from {PLATFORM}: 2 members, 0 not launched yet; 1 joined the class."
    assert list(classroom.enrollments.values_list("learner", flat=True)) == [account.pk]
    assert not classroom.enrollments.filter(learner=classroom.owner).exists()


def test_inactive_members_and_those_who_left_are_not_listed_and_learners_stay(lms, registration):
    teacher, classroom = course_class(lms, registration)
    make_assignment(classroom, title="Week 1")
    account = learner_launches(lms, registration, "student-1", "Lee Learner")
    lms.members = [
        TEACHER, {"user_id": "student-1", "name": "Lee Learner"},
        {"user_id": "a", "name": "Active Al"}, {"user_id": "b", "name": "Inactive Bo", "status": "Inactive"},
        {"user_id": "c", "name": "Deleted Cy", "status": "Deleted"},
    ]
    assert sync(teacher, classroom) == f"Roster synced from {PLATFORM}: 3 members, 1 not launched yet."
    html = gradebook(teacher, classroom)
    assert not_launched(html) == ["Active Al"] and 'data-testid="left-lms"' not in html

    lms.members = [TEACHER]  # Al and Lee leave the course

    message = sync(teacher, classroom)
    assert message == f"Roster synced from {PLATFORM}: 1 members, 0 not launched yet; 2 no longer in the course."
    html = gradebook(teacher, classroom)
    assert not_launched(html) == []
    # Lee stays a learner of the class (removing would submit their work), shown as gone from the LMS.
    assert list(classroom.enrollments.values_list("learner", flat=True)) == [account.pk]
    assert f'{account.username} <span class="muted" data-testid="left-lms">no longer in the LMS course' in html

    lms.members = [TEACHER, {"user_id": "student-1", "name": "Lee Learner"}]  # and comes back
    sync(teacher, classroom)
    assert 'data-testid="left-lms"' not in gradebook(teacher, classroom)


def test_a_roster_of_odd_entries_is_recorded_within_its_fields(lms, registration):
    teacher, classroom = course_class(lms, registration)
    lms.members = [TEACHER, {"user_id": "long", "name": "N" * 900, "email": "e" * 300 + "@example.org"},
                   {"user_id": "twice", "name": "First"}, {"user_id": "twice", "name": "Second"},
                   {"user_id": "nameless"}]

    sync(teacher, classroom)

    long = LtiUser.objects.get(sub="long")
    assert long.name == "N" * 500 and long.email == ""
    assert LtiUser.objects.get(sub="twice").name == "Second"
    names = [entry.name for entry in roster.lms_roster(classroom).not_launched]
    assert names == ["Member nameless", "N" * 500, "Second"]


# --- When the LMS fails ----------------------------------------------------------------------------

def silent_server():
    """An address that takes the connection and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    return server


@pytest.mark.parametrize("breakage, said", [
    pytest.param(lambda lms: lms.fail_next(1, 500), f"{PLATFORM} answered 500: it may be down or busy", id="500"),
    pytest.param(lambda lms: lms.fail_next(1, 503, include_token=True), f"{PLATFORM} answered 503", id="token 503"),
    pytest.param(lambda lms: setattr(lms, "tool_jwks", {"keys": []}),
                 f"{PLATFORM} answered 401: it refused the app's access", id="keys unknown to the LMS"),
    pytest.param(lambda lms: LtiContext.objects.update(memberships_url=lms.return_url), "is not a roster", id="HTML"),
    pytest.param(lambda lms: LtiContext.objects.update(memberships_url=lms.keyset_url), "is not a roster",
                 id="other JSON"),
    pytest.param(lambda lms: lms.members.append({"name": "No id"}), "is not a roster", id="a member without an id"),
    pytest.param(lambda lms: LtiContext.objects.update(memberships_url="http://127.0.0.1:9/lti/memberships"),
                 f"{PLATFORM} could not be reached", id="refused"),
    pytest.param(lambda lms: LtiContext.objects.update(memberships_url=""), "gave no roster service", id="no service"),
    pytest.param(lambda lms: LtiDeployment.objects.update(is_active=False), "is switched off", id="switched off"),
])
def test_an_lms_failure_gives_a_message_and_changes_nothing(lms, registration, breakage, said):
    lms.members = [TEACHER, *learners(3)]
    teacher, classroom = course_class(lms, registration)
    learner_launches(lms, registration, "s0", "Learner s00")
    sync(teacher, classroom)
    lms.members = [TEACHER, *learners(12, prefix="new")]  # what a sync would record, were it to work
    breakage(lms)
    before = lms_state()

    message = sync(teacher, classroom)

    assert message.startswith("The roster was not synced: ") and said in message
    assert message.endswith(". Nothing was changed.")
    assert lms_state() == before
    breakage(lms)  # again: a failure of the LMS's answers only the call it was asked for
    assert roster.sync_roster_quietly(classroom) is None and lms_state() == before


def test_an_lms_that_does_not_answer_is_given_up_on(lms, registration):
    _, classroom = course_class(lms, registration)
    server = silent_server()
    LtiContext.objects.update(memberships_url=f"http://127.0.0.1:{server.getsockname()[1]}/memberships")
    before = lms_state()
    try:
        with pytest.raises(roster.RosterError, match=f"{PLATFORM} did not answer within 1 seconds"):
            roster.sync_roster(classroom, seconds=1)
    finally:
        server.close()
    assert lms_state() == before


def test_a_class_that_is_no_courses_is_told_so(db):
    owner = make_instructor()
    classroom = make_classroom(owner)
    client = Client()
    client.force_login(owner)

    assert sync(client, classroom) == "This class is not linked to an LMS course."
    assert roster.sync_roster_quietly(classroom) is None
    assert 'data-testid="sync-roster"' not in client.get(classroom.get_absolute_url()).content.decode()


# --- On launch ---------------------------------------------------------------------------------------

def test_the_quiet_sync_for_a_launch_syncs_and_never_raises(lms, registration):
    lms.members = [TEACHER, *learners(2)]
    _, classroom = course_class(lms, registration)

    synced = roster.sync_roster_quietly(classroom)

    assert (synced.platform, synced.members, synced.not_launched) == (PLATFORM, 3, 2)
    Key.objects.all().delete()  # nothing to sign with: still no exception
    assert roster.sync_roster_quietly(classroom) is None


def test_an_instructors_launch_syncs_the_roster_and_an_lms_failure_does_not_stop_it(lms, registration):
    lms.members = [TEACHER, *learners(3)]
    teacher, classroom = course_class(lms, registration)  # the first launch: the class is made, then synced
    assert len(roster.lms_roster(classroom).not_launched) == 3

    lms.members = [TEACHER, *learners(4)]
    lms.fail_next(1, 500)
    response = launch(teacher, lms, registration, instructor_claims(lms, context_title="course-1"))
    assert response.status_code == 302 and response.url == classroom.get_absolute_url()
    assert len(roster.lms_roster(classroom).not_launched) == 3

    launch(teacher, lms, registration, instructor_claims(lms, context_title="course-1"))
    assert len(roster.lms_roster(classroom).not_launched) == 4


# --- Who may sync, the class's page, query counts ------------------------------------------------------

def test_only_the_classs_instructor_syncs_it(lms, registration):
    lms.members = [TEACHER, {"user_id": "student-1", "name": "Lee Learner"}]
    teacher, classroom = course_class(lms, registration)
    account = learner_launches(lms, registration, "student-1", "Lee Learner")
    learner = Client()
    learner.force_login(account)
    other = Client()
    other.force_login(make_instructor("someone_else"))
    url = reverse("sync_roster", args=[classroom.pk])
    asked_before = len(lms.requests_to("/memberships"))  # by the instructor's launch, once it syncs too

    assert learner.post(url).status_code == 403
    assert other.post(url).status_code == 404
    assert teacher.get(url).status_code == 405
    assert Client().post(url).status_code == 302  # to sign in
    assert len(lms.requests_to("/memberships")) == asked_before
    assert teacher.post(url).status_code == 302 and len(lms.requests_to("/memberships")) == asked_before + 1


def test_the_classs_page_offers_the_sync_for_an_lms_course(lms, registration, django_assert_num_queries):
    teacher, classroom = course_class(lms, registration)
    classroom.join(make_user("lee"))

    html = teacher.get(classroom.get_absolute_url()).content.decode()

    assert f'action="{reverse("sync_roster", args=[classroom.pk])}"' in html
    assert f"Sync roster from {PLATFORM}</button>" in html
    assert "Last synced " in html  # the instructor's launch synced it
    # The page's own (classroom; learner count; page of learners; assignments), then the class's LMS
    # course (LtiClass), its context, deployment and registration (for the platform's name).
    with django_assert_num_queries(AUTH + 4 + 4):
        teacher.get(classroom.get_absolute_url())


def test_the_gradebook_reads_the_roster_in_one_query_however_long(lms, registration, django_assert_num_queries):
    lms.members = [TEACHER, *learners(2, prefix="few")]
    teacher, few = course_class(lms, registration, "course-a")
    sync(teacher, few)
    lms.members = [TEACHER, *learners(30, prefix="many")]
    teacher, many = course_class(lms, registration, "course-b")
    sync(teacher, many)
    for classroom in (few, many):
        make_assignment(classroom, title="Week 1")
        context_id = classroom.lti_course.context.id_on_platform
        learner_launches(lms, registration, f"l-{context_id}", "Lee", context_id)  # joins at launch

    urls = [reverse("gradebook", args=[classroom.pk]) for classroom in (few, many)]
    assert count_queries(teacher, urls[0], ok=(200,)) == count_queries(teacher, urls[1], ok=(200,))
    # classroom; close expired attempts; learners; assignments; overrides; attempts; the LMS
    # course's roster entries (one query, however many)
    with django_assert_num_queries(AUTH + 7):
        html = teacher.get(reverse("gradebook", args=[many.pk])).content.decode()
    assert len(not_launched(html)) == 30 and len(not_launched(gradebook(teacher, few))) == 2
