"""Launches from an LMS (quiz.lti) against the LTI 1.3 platform the tests run on 127.0.0.1
(tests/lti_platform.py): a learner's and an instructor's first launch, accounts made or linked,
the course as a class, and every check a bad or replayed launch fails, changing nothing."""

import re
from html import unescape
from urllib.parse import parse_qsl, urlsplit

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from lti_tool.models import Key, LtiDeployment, LtiRegistration, LtiUser

from quiz.models import Classroom, Enrollment, LtiClass, LtiNonce, User
from tests.factories import PASSWORD, make_user
from tests.lti_platform import Platform

LAUNCH_URL = "http://testserver/lti/launch/"


@pytest.fixture
def platform():
    with Platform(name="Moodle of Testing") as platform:
        yield platform


def register(platform):
    """The platform registered in the admin, with its deployment, as an administrator does, and
    the tool's first key: the LtiRegistration."""
    Key.objects.generate()
    registration = LtiRegistration.objects.create(
        name="Moodle of Testing", issuer=platform.issuer, client_id=platform.client_id, auth_url=platform.auth_url,
        token_url=platform.token_url, keyset_url=platform.keyset_url,
    )
    LtiDeployment.objects.create(registration=registration, deployment_id=platform.deployment_id, is_active=True)
    return registration


@pytest.fixture
def registration(db, platform):
    return register(platform)


def start_launch(client, platform, registration, claims):
    """The OIDC login: the platform's initiation, the tool's redirect to the platform's login.
    Returns the query of that redirect, which the platform answers with the id_token."""
    fields = platform.login_initiation(target_link_uri=LAUNCH_URL, login_hint=claims["sub"])
    response = client.post(reverse("lti_login", args=[registration.uuid]), fields)
    assert response.status_code == 302 and response.url.startswith(platform.auth_url), response.content[:500]
    return dict(parse_qsl(urlsplit(response.url).query))


def launch(client, platform, registration, claims, **tamper):
    """A whole launch as a browser makes it; the tool's answer."""
    form = platform.authentication_response(start_launch(client, platform, registration, claims), claims, **tamper)
    return client.post(reverse("lti_launch"), form)


def learner_claims(platform, user_id="student-1", **fields):
    return platform.resource_link_claims(user_id=user_id, name="Lee Learner", **fields)


def instructor_claims(platform, user_id="teacher-1", **fields):
    return platform.resource_link_claims(user_id=user_id, name="Ines Instructor", roles=("Instructor",), **fields)


def state():
    return (User.objects.count(), LtiUser.objects.count(), Classroom.objects.count(), Enrollment.objects.count(),
            LtiNonce.objects.count(), LtiDeployment.objects.count())


# --- First launches --------------------------------------------------------------------------------

def test_the_first_instructor_makes_the_courses_class_and_learners_join_it(platform, registration):
    teacher = Client()
    response = launch(teacher, platform, registration, instructor_claims(platform, context_title="Networking 101"))
    assert response.status_code == 302 and response.url == reverse("lti_welcome")
    response = teacher.post(reverse("lti_welcome"), {"choice": "new"})

    classroom = Classroom.objects.get()
    assert response.status_code == 302 and response.url == classroom.get_absolute_url()
    assert classroom.name == "Networking 101" and classroom.owner.is_instructor
    assert not classroom.owner.has_usable_password()
    assert LtiClass.objects.get().classroom == classroom
    assert teacher.get(response.url).status_code == 200  # signed in, their class

    learner = Client()
    launch(learner, platform, registration, learner_claims(platform))
    response = learner.post(reverse("lti_welcome"), {"choice": "new"}, follow=True)
    account = LtiUser.objects.get(sub="student-1").auth_user
    assert list(classroom.enrollments.values_list("learner", flat=True)) == [account.pk]
    assert not account.is_instructor
    assert "You are in Networking 101." in response.content.decode()

    # The next launch goes straight in: no second choice, no second account.
    again = Client()
    response = launch(again, platform, registration, learner_claims(platform))
    assert response.status_code == 302 and response.url == reverse("my_classes")
    assert User.objects.count() == 2 and int(again.session["_auth_user_id"]) == account.pk


def test_a_learner_before_any_instructor_is_told_and_joins_once_the_class_exists(platform, registration):
    learner = Client()
    launch(learner, platform, registration, learner_claims(platform))
    response = learner.post(reverse("lti_welcome"), {"choice": "new"}, follow=True)
    assert "has not opened it here yet" in response.content.decode()
    assert not Classroom.objects.exists()

    launch(Client(), platform, registration, instructor_claims(platform))
    launch(learner, platform, registration, learner_claims(platform))

    assert Enrollment.objects.filter(classroom__lti_course__isnull=False).count() == 0  # the teacher has not chosen yet
    teacher = Client()
    launch(teacher, platform, registration, instructor_claims(platform))
    teacher.post(reverse("lti_welcome"), {"choice": "new"})
    launch(learner, platform, registration, learner_claims(platform))
    assert Enrollment.objects.get().learner.lti_users.get().sub == "student-1"


def test_an_existing_account_is_linked_by_signing_in_once_and_only_to_one_platform_user(platform, registration):
    ann = make_user("ann")
    first = Client()
    launch(first, platform, registration, learner_claims(platform, user_id="s-ann"))

    wrong = first.post(reverse("lti_welcome"), {"choice": "link", "username": "ann", "password": "nope"})
    assert wrong.status_code == 422 and LtiUser.objects.get().auth_user is None
    right = first.post(reverse("lti_welcome"), {"choice": "link", "username": "ann", "password": PASSWORD})
    assert right.status_code == 302
    assert LtiUser.objects.get(sub="s-ann").auth_user == ann and int(first.session["_auth_user_id"]) == ann.pk

    # Another user of the same platform cannot take ann's account.
    other = Client()
    launch(other, platform, registration, learner_claims(platform, user_id="s-mallory"))
    refused = other.post(reverse("lti_welcome"), {"choice": "link", "username": "ann", "password": PASSWORD})
    assert refused.status_code == 422 and "already linked to another user" in refused.content.decode()
    assert LtiUser.objects.get(sub="s-mallory").auth_user is None


# --- Roles -----------------------------------------------------------------------------------------

def test_no_launch_makes_anyone_the_instructor_of_a_class_they_do_not_own(platform, registration):
    owner = Client()
    launch(owner, platform, registration, instructor_claims(platform))
    owner.post(reverse("lti_welcome"), {"choice": "new"})
    classroom = Classroom.objects.get()

    # A second instructor of the same course: told who runs it, not made its owner.
    other = Client()
    launch(other, platform, registration, instructor_claims(platform, user_id="teacher-2"))
    response = other.post(reverse("lti_welcome"), {"choice": "new"}, follow=True)
    assert "is run here by" in response.content.decode()
    classroom.refresh_from_db()
    assert classroom.owner.lti_users.get().sub == "teacher-1"
    assert other.get(classroom.get_absolute_url()).status_code == 404

    # A teaching assistant's sub-role is not the course's instructor role; roles come from each launch.
    assistant = Client()
    launch(assistant, platform, registration, platform.resource_link_claims(
        user_id="ta-1", roles=("TeachingAssistant",), context_id="course-2", context_title="Course 2"))
    assistant.post(reverse("lti_welcome"), {"choice": "new"})
    assert not Classroom.objects.filter(name="Course 2").exists()
    assert not LtiUser.objects.get(sub="ta-1").auth_user.is_instructor


# --- Bad launches --------------------------------------------------------------------------------------

DEPLOYMENT = "https://purl.imsglobal.org/spec/lti/claim/deployment_id"
MESSAGE_TYPE = "https://purl.imsglobal.org/spec/lti/claim/message_type"
VERSION = "https://purl.imsglobal.org/spec/lti/claim/version"


@pytest.mark.parametrize("tamper", [
    pytest.param({"wrong_key": True}, id="signed by a key not in the platform's key set"),
    pytest.param({"alg": "none"}, id="unsigned"),
    pytest.param({"alg": "HS256"}, id="HMAC with the public key"),
    pytest.param({"kid": "no-such-key"}, id="unknown key id"),
    pytest.param({"iss": "https://evil.example"}, id="another issuer"),
    pytest.param({"aud": "another-tool"}, id="another audience"),
    pytest.param({"exp_offset": -3600}, id="expired"),
    pytest.param({"nonce": "made-up"}, id="a nonce no login issued"),
    pytest.param({"drop": [DEPLOYMENT]}, id="no deployment id"),
    pytest.param({"drop": [MESSAGE_TYPE]}, id="no message type"),
    pytest.param({"drop": [VERSION]}, id="no version"),
])
def test_a_bad_launch_is_refused_with_a_page_and_changes_nothing(platform, registration, tamper):
    client = Client()
    before = state()

    response = launch(client, platform, registration, learner_claims(platform), **tamper)

    assert response.status_code == 400
    assert "This launch from your course did not work" in response.content.decode()
    assert state() == before and "_auth_user_id" not in client.session


def test_an_unregistered_or_switched_off_deployment_is_refused_and_not_recorded(platform, registration):
    claims = learner_claims(platform)
    claims[DEPLOYMENT] = "deployment-nobody-registered"
    before = state()
    assert launch(Client(), platform, registration, claims).status_code == 400
    assert state() == before

    LtiDeployment.objects.update(is_active=False)
    assert launch(Client(), platform, registration, learner_claims(platform)).status_code == 400
    assert state() == before


def test_the_same_launch_posted_again_is_refused(platform, registration):
    client = Client()
    claims = learner_claims(platform)
    form = platform.authentication_response(start_launch(client, platform, registration, claims), claims)
    assert client.post(reverse("lti_launch"), form).status_code == 302
    before = state()

    again = client.post(reverse("lti_launch"), form)

    assert again.status_code == 400 and "used already" in again.content.decode()
    assert state() == before


def test_a_launch_whose_state_is_not_this_browsers_is_refused(platform, registration):
    claims = learner_claims(platform)
    form = platform.authentication_response(start_launch(Client(), platform, registration, claims), claims)
    before = state()

    response = Client().post(reverse("lti_launch"), form)  # another browser: no state cookie

    assert response.status_code == 400 and state() == before


def test_a_platform_key_rotation_keeps_launches_working(platform, registration):
    platform.rotate_key(keep_old=True)
    assert launch(Client(), platform, registration, learner_claims(platform)).status_code == 302


def test_a_login_without_a_target_or_for_an_unknown_registration_is_refused(platform, registration):
    client = Client()
    fields = platform.login_initiation(target_link_uri=LAUNCH_URL, login_hint="s-1")
    assert client.post(reverse("lti_login", args=["6f1c1b8e-0000-4000-8000-000000000000"]), fields).status_code == 400
    del fields["target_link_uri"]
    assert client.post(reverse("lti_login", args=[registration.uuid]), fields).status_code == 400


# --- The tool's keys and configuration ---------------------------------------------------------------------

def test_the_key_set_keeps_the_old_key_after_a_rotation_and_the_configuration_page_lists_the_urls(registration):
    first = Key.objects.get()
    call_command("rotate_keys", stdout=None)
    kids = [key["kid"] for key in Client().get(reverse("lti_jwks")).json()["keys"]]
    assert len(kids) == 2 and str(first) in kids

    staff = make_user("admin", is_staff=True)
    client = Client()
    client.force_login(staff)
    page = client.get(reverse("lti_configuration")).content.decode()
    assert f"http://testserver/lti/login/{registration.uuid}/" in page
    assert "http://testserver/lti/launch/" in page and "http://testserver/.well-known/jwks.json" in page


def test_the_lti_key_command_makes_one_key_only_when_there_is_none(db):
    call_command("lti_key", stdout=None)
    call_command("lti_key", stdout=None)
    assert Key.objects.count() == 1


# --- Deep linking -----------------------------------------------------------------------------------

def test_an_instructor_adds_an_assignment_from_the_lms_picker_and_learners_launch_straight_into_it(
        platform, registration):
    import requests

    from quiz.models import Assignment
    from tests.class_factories import make_pool

    teacher = Client()
    launch(teacher, platform, registration, platform.deep_linking_claims(user_id="teacher-1", name="Ines"))
    response = teacher.post(reverse("lti_welcome"), {"choice": "new"})
    assert response.url.startswith(reverse("lti_deep_link") + "?launch=")
    picking = picker_launch(response)
    owner = LtiUser.objects.get(sub="teacher-1").auth_user
    pool = make_pool(owner, make_question_set_for_pool(), title="Ports quiz")
    assert "Ports quiz" in teacher.get(response.url).content.decode()

    page = teacher.post(reverse("lti_deep_link"), {"launch": picking,
        "kind": "assignment", "pool": pool.pk, "title": "Ports, week 1", "opens_at": "2026-12-01T09:00",
        "due_at": "2026-12-08T09:00", "grading": "best", "feedback_timing": "immediate",
    })
    assert page.status_code == 200, page.content.decode()[:3000]
    html = page.content.decode()
    action = unescape(re.search(r'<form method="post" action="([^"]+)" data-submit-on-load>', html)[1])
    jwt = re.search(r'name="JWT" value="([^"]+)"', html)[1]
    assert action.startswith(platform.base_url) and f"form-action 'self' {platform.base_url}" in page["Content-Security-Policy"]
    platform.tool_jwks = Key.objects.as_jwks()
    assert requests.post(action, data={"JWT": jwt}, timeout=10).status_code == 200  # the browser's post

    assignment = Assignment.objects.get()
    [answer] = platform.deep_link_responses
    [link] = answer["links"]
    item = link["content_item"]
    assert item["url"] == LAUNCH_URL and item["title"] == "Ports, week 1"
    assert item["custom"]["assignment"] == str(assignment.pk)
    assert item["lineItem"]["scoreMaximum"] == 100 and link["line_item"] is not None
    assert assignment.classroom.lti_course.context.id_on_platform == "course-1"

    # The instructor launches the new link: the LMS fills in the activity's dates, which become the
    # assignment's; a learner's launch (the LMS may give a learner their own extension) changes none.
    custom = {**item["custom"], "available": "2026-12-02T08:00:00Z", "due": "2026-12-20T17:00:00Z"}
    response = launch(teacher, platform, registration, instructor_claims(
        platform, user_id="teacher-1", resource_link_id=link["resource_link_id"], custom=custom))
    assert response.url == reverse("assignment", args=[assignment.pk])
    learner = Client()
    extension = {**custom, "due": "2027-01-31T17:00:00Z"}
    launch(learner, platform, registration, learner_claims(
        platform, resource_link_id=link["resource_link_id"], custom=extension))
    response = learner.post(reverse("lti_welcome"), {"choice": "new"})
    assert response.url == reverse("learner_assignment", args=[assignment.pk])
    assignment.refresh_from_db()
    assert (assignment.opens_at.isoformat(), assignment.due_at.isoformat()) == (
        "2026-12-02T08:00:00+00:00", "2026-12-20T17:00:00+00:00")


def picker_launch(response):
    """The deep-linking launch a redirect to the picker names."""
    return dict(parse_qsl(urlsplit(response.url).query))["launch"]


def make_question_set_for_pool():
    from tests.factories import make_question_set

    return make_question_set(questions=3).questions.all()


def test_a_learner_cannot_add_activities_and_a_link_to_another_class_opens_nothing_of_it(platform, registration):
    from quiz.models import Assignment
    from tests.class_factories import make_assignment, make_classroom, make_instructor, make_pool

    before = state()
    refused = launch(Client(), platform, registration, platform.deep_linking_claims(user_id="s-1", roles=("Learner",)))
    assert refused.status_code == 400 and "instructors add activities from this tool" in refused.content.decode()
    assert state() == before

    elsewhere = make_instructor("elsewhere")
    other = make_assignment(make_classroom(elsewhere), make_pool(elsewhere, make_question_set_for_pool()))
    teacher = Client()
    launch(teacher, platform, registration, instructor_claims(platform))
    teacher.post(reverse("lti_welcome"), {"choice": "new"})
    learner = Client()
    launch(learner, platform, registration, learner_claims(platform, custom={"assignment": str(other.pk)}))
    response = learner.post(reverse("lti_welcome"), {"choice": "new"})
    assert response.url == reverse("my_classes")  # the course's class, not the other class's assignment
    assert Assignment.objects.get(pk=other.pk).classroom.owner == elsewhere
    assert learner.get(reverse("learner_assignment", args=[other.pk])).status_code == 404


def test_a_practice_link_opens_the_set_or_deck_when_the_learner_may_see_it(platform, registration):
    import requests

    from tests.factories import make_deck, make_question_set

    library_set = make_question_set("Subnetting drills", questions=2)
    teacher = Client()
    launch(teacher, platform, registration, platform.deep_linking_claims(user_id="teacher-1"))
    picking = picker_launch(teacher.post(reverse("lti_welcome"), {"choice": "new"}))
    owner = LtiUser.objects.get(sub="teacher-1").auth_user
    private_deck = make_deck("Ines's private deck", owner=owner)

    page = teacher.post(reverse("lti_deep_link"), {"launch": picking, "kind": "set", "set": library_set.pk}).content.decode()
    platform.tool_jwks = Key.objects.as_jwks()
    action = re.search(r'action="([^"]+)" data-submit-on-load', page)[1].replace("&amp;", "&")
    requests.post(action, data={"JWT": re.search(r'name="JWT" value="([^"]+)"', page)[1]}, timeout=10)
    custom = platform.deep_link_responses[0]["links"][0]["content_item"]["custom"]
    assert custom == {"set": str(library_set.pk)}

    learner = Client()
    launch(learner, platform, registration, learner_claims(platform, custom=custom))
    response = learner.post(reverse("lti_welcome"), {"choice": "new"})
    assert response.url == reverse("browse") + "?q=Subnetting+drills"

    # A deck the learner may not see (the instructor's private one): the class page instead.
    launch(learner, platform, registration, learner_claims(platform, custom={"deck": str(private_deck.pk)}))
    assert learner.post(reverse("lti_launch"), {}).status_code == 400  # and a bare post is refused
    again = Client()
    response = launch(again, platform, registration, learner_claims(platform, custom={"deck": str(private_deck.pk)}))
    assert response.url == reverse("my_classes")


# --- Grades back -------------------------------------------------------------------------------------

def deep_linked_assignment(platform, registration):
    """An instructor's class with an assignment added from the LMS's picker: (assignment, link)."""
    import requests

    from quiz.models import Assignment
    from tests.class_factories import make_pool

    teacher = Client()
    launch(teacher, platform, registration, platform.deep_linking_claims(user_id="teacher-1"))
    picking = picker_launch(teacher.post(reverse("lti_welcome"), {"choice": "new"}))
    owner = LtiUser.objects.get(sub="teacher-1").auth_user
    pool = make_pool(owner, make_question_set_for_pool())
    page = teacher.post(reverse("lti_deep_link"), {"launch": picking,
        "kind": "assignment", "pool": pool.pk, "title": "Ports", "opens_at": "2026-01-01T09:00",
        "due_at": "2099-01-01T09:00", "grading": "best", "feedback_timing": "immediate",
    }).content.decode()
    platform.tool_jwks = Key.objects.as_jwks()
    action = re.search(r'action="([^"]+)" data-submit-on-load', page)[1].replace("&amp;", "&")
    requests.post(action, data={"JWT": re.search(r'name="JWT" value="([^"]+)"', page)[1]}, timeout=10)
    [link] = platform.deep_link_responses[-1]["links"]
    return Assignment.objects.get(title="Ports"), link, teacher


def test_a_learners_counted_score_goes_to_the_lms_gradebook_and_a_failed_call_is_sent_later(
        platform, registration, django_capture_on_commit_callbacks):
    from datetime import timedelta

    import time_machine
    from django.utils import timezone

    from quiz.models import GradeSend
    from quiz.teaching import rules
    from tests.class_factories import take

    assignment, link, teacher = deep_linked_assignment(platform, registration)
    learner = Client()
    launch(learner, platform, registration, learner_claims(
        platform, resource_link_id=link["resource_link_id"], custom=link["content_item"]["custom"]))
    learner.post(reverse("lti_welcome"), {"choice": "new"})
    account = LtiUser.objects.get(sub="student-1").auth_user
    assert assignment.lti_grades.line_item_url == link["line_item"]["id"]  # named by the LMS at the launch

    with django_capture_on_commit_callbacks(execute=True):
        take(assignment, account, [0, 1, 0])  # two of three right (question N's right choice is N-1)
    [score] = platform.scores
    assert (score["userId"], score["scoreGiven"], score["scoreMaximum"]) == ("student-1", 67, 100)
    assert (score["activityProgress"], score["gradingProgress"]) == ("Completed", "FullyGraded")
    assert score["lineItem"] == link["line_item"]["id"]

    # The LMS fails: the better score waits, with its error, until the catch-up timer sends it.
    platform.fail_next(1)
    with django_capture_on_commit_callbacks(execute=True):
        take(assignment, account, [0, 1, 2])
    send = GradeSend.objects.get()
    assert send.waiting and send.score == 100 and send.tries == 1 and send.last_error
    page = teacher.get(reverse("assignment", args=[assignment.pk])).content.decode()
    assert "waiting (1 failed try:" in page
    call_command("catch_up", stdout=None)
    assert [s["scoreGiven"] for s in platform.scores] == [67]  # not again at once: after its back-off
    with time_machine.travel(timezone.now() + timedelta(minutes=3)):
        call_command("catch_up", stdout=None)
    assert [s["scoreGiven"] for s in platform.scores] == [67, 100]
    send.refresh_from_db()
    assert not send.waiting and send.sent_at and send.tries == 0

    # An exclusion changes the counted score: the new one goes too; nothing changed, nothing sent.
    question = assignment.pool.questions_for_attempt()[0]
    with django_capture_on_commit_callbacks(execute=True):
        assignment.exclude_question(question, by=assignment.classroom.owner)
    call_command("catch_up", stdout=None)
    assert len(platform.scores) == 2  # still 100%: the best attempt had that question right
    with django_capture_on_commit_callbacks(execute=True):
        rules.save_override(assignment=assignment, learner=account, rules={})
    assert len(platform.scores) == 2
    assert "100%" in teacher.get(reverse("assignment", args=[assignment.pk])).content.decode()


def test_grades_go_only_to_the_lms_of_a_linked_assignment(platform, registration, django_capture_on_commit_callbacks):
    from tests.class_factories import make_assignment, make_classroom, make_instructor, make_pool, take

    teacher = make_instructor("plain")
    learner = make_user("plain-learner")
    assignment = make_assignment(make_classroom(teacher, learners=[learner]), make_pool(teacher, make_question_set_for_pool()))
    with django_capture_on_commit_callbacks(execute=True):
        take(assignment, learner, [0, 1, 2])
    call_command("catch_up", stdout=None)
    assert platform.scores == [] and not platform.requests_to("/token")


def test_the_assignment_page_lists_sent_scores_in_fixed_queries(platform, registration):
    from django.utils import timezone

    from quiz.models import GradeSend, LtiGradeLink
    from tests.helpers import AUTH, count_queries

    assignment, link, teacher = deep_linked_assignment(platform, registration)
    LtiGradeLink.objects.create(assignment=assignment, line_item_url=link["line_item"]["id"])
    url = reverse("assignment", args=[assignment.pk])

    def add_learners(count):
        for _ in range(count):
            GradeSend.objects.create(assignment=assignment, learner=make_user(), score=50, status="submitted",
                                     changed_at=timezone.now())

    add_learners(1)
    few = count_queries(teacher, url, ok=(200,))
    add_learners(9)
    # assignment; learners to pick; overrides; the gradebook column; its scores with their learners
    assert few == count_queries(teacher, url, ok=(200,)) == AUTH + 5


# --- Inside the LMS's page ----------------------------------------------------------------------------

def test_a_launch_inside_the_lms_page_opens_in_a_new_window_framed_by_the_platform_only(platform, registration):
    client = Client()
    claims = learner_claims(platform)
    fields = platform.login_initiation(target_link_uri=LAUNCH_URL, login_hint=claims["sub"])
    login_url = reverse("lti_login", args=[registration.uuid])

    framed = client.post(login_url, fields, headers={"Sec-Fetch-Dest": "iframe"})

    assert framed.status_code == 200 and "X-Frame-Options" not in framed
    assert f"frame-ancestors {platform.base_url}" in framed["Content-Security-Policy"]
    new_window = unescape(re.search(r'href="([^"]+)" target="_blank"', framed.content.decode())[1])
    # The learner's click: the same login, top-level, in its own window; the launch then goes on.
    response = client.get(new_window)
    assert response.status_code == 302 and response.url.startswith(platform.auth_url)
    form = platform.authentication_response(dict(parse_qsl(urlsplit(response.url).query)), claims)
    assert client.post(reverse("lti_launch"), form).status_code == 302

    # Any other page of the app is never framed.
    other = client.get(reverse("home"))
    assert other["X-Frame-Options"] == "DENY" and "frame-ancestors 'none'" in other["Content-Security-Policy"]


def test_the_first_launch_page_and_the_picker_read_a_fixed_number_of_queries(platform, registration):
    from tests.class_factories import make_pool
    from tests.factories import make_deck, make_question_set
    from tests.helpers import AUTH, count_queries

    newcomer = Client()
    launch(newcomer, platform, registration, learner_claims(platform))
    # the launch's platform user (no session row: the anonymous session is read once)
    assert count_queries(newcomer, reverse("lti_welcome"), ok=(200,)) == 2

    teacher = Client()
    launch(teacher, platform, registration, platform.deep_linking_claims(user_id="teacher-1"))
    url = teacher.post(reverse("lti_welcome"), {"choice": "new"}).url
    owner = LtiUser.objects.get(sub="teacher-1").auth_user
    make_pool(owner, make_question_set_for_pool())
    few = count_queries(teacher, url, ok=(200,))
    for number in range(5):
        make_question_set(f"Set {number}", questions=1)
        make_deck(f"Deck {number}", cards=1)
        make_pool(owner, make_question_set_for_pool(), title=f"Pool {number}")
    # AUTH; the class; the form's pools (is there only one, to choose it; are there any; the options);
    # the sets and decks offered
    assert count_queries(teacher, url, ok=(200,)) == few == AUTH + 6
