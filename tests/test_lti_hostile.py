# ruff: noqa: F811  (the fixtures `platform` and `registration` come from tests.test_lti)
"""Hostile launches and LMS failures an independent review tried against the LTI tool
(quiz.lti), each refused or survived as it must, against the test platform (tests/lti_platform.py)."""

import base64
import json
import socket
import threading
import time

import pytest
from django.test import Client
from django.urls import reverse
from lti_tool.models import LtiUser

from quiz.models import Assignment, Classroom, Enrollment, User
from tests.factories import PASSWORD, make_user
from tests.test_lti import (  # noqa: F401
    deep_linked_assignment,
    instructor_claims,
    launch,
    learner_claims,
    picker_launch,
    platform,
    registration,
    start_launch,
    state,
)

CONTEXT = "https://purl.imsglobal.org/spec/lti/claim/context"
RESOURCE_LINK = "https://purl.imsglobal.org/spec/lti/claim/resource_link"
AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
TOOL_PLATFORM = "https://purl.imsglobal.org/spec/lti/claim/tool_platform"


def b64(obj):
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()


def test_an_unsigned_token_whose_payload_is_a_list_is_refused(platform, registration):
    client = Client(raise_request_exception=False)
    query = start_launch(client, platform, registration, learner_claims(platform))
    token = f"{b64({'alg': 'RS256', 'kid': 'x'})}.{b64([1, 2])}.sig"
    response = client.post(reverse("lti_launch"), {"id_token": token, "state": query["state"]})
    assert response.status_code == 400, response.status_code


@pytest.mark.parametrize("claim,value", [
    (RESOURCE_LINK, "link-1"),
    (CONTEXT, "course-1"),
    (AGS, ["x"]),
    (TOOL_PLATFORM, "moodle"),
])
def test_signed_claims_of_the_wrong_shape_are_refused(platform, registration, claim, value):
    claims = learner_claims(platform)
    claims[claim] = value
    response = launch(Client(raise_request_exception=False), platform, registration, claims)
    assert response.status_code == 400, response.status_code


def test_a_launch_naming_no_course_is_refused(platform, registration):
    teacher_claims = instructor_claims(platform)
    del teacher_claims[CONTEXT]
    teacher = Client()
    launch(teacher, platform, registration, teacher_claims)
    teacher.post(reverse("lti_welcome"), {"choice": "new"})
    learner = learner_claims(platform, user_id="stranger")
    del learner[CONTEXT]
    c = Client()
    launch(c, platform, registration, learner)
    c.post(reverse("lti_welcome"), {"choice": "new"})
    assert not Enrollment.objects.exists(), "a learner with no course joined the no-course class"


def test_a_waiting_first_launch_ends_when_someone_signs_in(platform, registration):
    bob = make_user("bob")
    browser = Client()
    launch(browser, platform, registration, learner_claims(platform, user_id="s-alice"))  # alice walks away
    response = browser.post(reverse("login"), {"username": "bob", "password": PASSWORD})
    assert response.status_code == 302 and int(browser.session["_auth_user_id"]) == bob.pk
    # bob, signed in as himself, cannot finish alice's launch (link her LMS identity to his account)
    assert browser.get(reverse("lti_welcome")).status_code == 400
    browser.post(reverse("lti_welcome"), {"choice": "link", "username": "bob", "password": PASSWORD})
    assert LtiUser.objects.get(sub="s-alice").auth_user != bob


def test_the_welcome_sign_in_counts_in_the_address_limit(platform, registration, settings):
    settings.LOGIN_FAILURES_PER_ADDRESS = 3
    for name in ("v1", "v2", "v3", "v4", "target"):
        make_user(name)
    browser = Client()
    launch(browser, platform, registration, learner_claims(platform, user_id="s-x"))
    for name in ("v1", "v2", "v3"):
        assert browser.post(reverse("lti_welcome"), {"choice": "link", "username": name, "password": "wrong"}).status_code == 422
    assert Client().post(reverse("login"), {"username": "target", "password": PASSWORD}).status_code == 429  # the site's login: held back
    response = browser.post(reverse("lti_welcome"), {"choice": "link", "username": "target", "password": PASSWORD})
    assert response.status_code == 429, f"welcome still checks passwords from this address: {response.status_code}"


def test_welcome_form_needs_csrf(platform, registration):
    browser = Client(enforce_csrf_checks=True)
    launch(browser, platform, registration, learner_claims(platform))
    assert browser.post(reverse("lti_welcome"), {"choice": "new"}).status_code == 403
    assert not User.objects.exists()


def test_a_picker_whose_request_expired_makes_no_assignment(platform, registration):
    from django.core.cache import cache

    from tests.class_factories import make_pool
    from tests.test_lti import make_question_set_for_pool

    teacher = Client()
    launch(teacher, platform, registration, platform.deep_linking_claims(user_id="teacher-1"))
    teacher.post(reverse("lti_welcome"), {"choice": "new"})
    pool = make_pool(LtiUser.objects.get(sub="teacher-1").auth_user, make_question_set_for_pool())
    cache.clear()  # the stored deep-linking launch expired (a day)
    fields = {"kind": "assignment", "pool": pool.pk, "title": "Ports", "opens_at": "2026-01-01T09:00",
              "due_at": "2099-01-01T09:00", "grading": "best", "feedback_timing": "immediate"}
    for _ in range(3):
        response = teacher.post(reverse("lti_deep_link"), fields)
        assert response.status_code == 400
    assert Assignment.objects.count() == 0, f"{Assignment.objects.count()} assignments made by refused answers"


def test_two_pickers_each_add_to_their_own_course(platform, registration):
    from tests.class_factories import make_pool
    from tests.test_lti import make_question_set_for_pool

    teacher = Client()
    launch(teacher, platform, registration, platform.deep_linking_claims(user_id="teacher-1", context_id="course-A",
                                                                         context_title="Course A"))
    first_tab = teacher.post(reverse("lti_welcome"), {"choice": "new"})
    assert "Course A" in teacher.get(first_tab.url).content.decode()  # tab 1 shows course A's picker
    launch(teacher, platform, registration, platform.deep_linking_claims(user_id="teacher-1", context_id="course-B",
                                                                         context_title="Course B"))
    pool = make_pool(LtiUser.objects.get(sub="teacher-1").auth_user, make_question_set_for_pool())
    teacher.post(reverse("lti_deep_link"), {  # submitted from tab 1 (course A)
        "launch": picker_launch(first_tab), "kind": "assignment", "pool": pool.pk, "title": "Ports", "opens_at": "2026-01-01T09:00",
        "due_at": "2099-01-01T09:00", "grading": "best", "feedback_timing": "immediate"})
    assert Assignment.objects.get().classroom.name == "Course A"


def test_scores_the_lms_keeps_refusing_never_hold_back_the_others(platform, registration, monkeypatch):
    from django.utils import timezone

    from quiz.lti import grades
    from quiz.models import GradeSend, LtiGradeLink
    from tests.class_factories import make_assignment

    alive, link, _ = deep_linked_assignment(platform, registration)
    LtiGradeLink.objects.create(assignment=alive, line_item_url=link["line_item"]["id"])
    dead = make_assignment(alive.classroom, alive.pool)  # another assignment of the same LMS course
    LtiGradeLink.objects.create(assignment=dead, line_item_url="https://lms.example/li/dead")
    for n in range(2):
        GradeSend.objects.create(assignment=dead, learner=make_user(f"gone{n}"), score=50, status="submitted",
                                 changed_at=timezone.now())
    GradeSend.objects.create(assignment=alive, learner=make_user("fine"), score=90, status="submitted",
                             changed_at=timezone.now())
    sent = []

    def post(send, services):
        if send.assignment_id == dead.pk:
            raise ValueError("the learner has no identity at this LMS any more")
        sent.append(send.pk)

    monkeypatch.setattr(grades, "BATCH", 2)
    monkeypatch.setattr(grades, "_post", post)
    for _ in range(3):  # three runs of the timer
        grades.catch_up_grades()
    assert sent == [GradeSend.objects.get(assignment=alive).pk]
    # And one the LMS keeps refusing is tried ever more rarely, never dropped: not again at once, but
    # after its back-off, still waiting.
    from datetime import timedelta

    def dead_sends():
        return GradeSend.objects.filter(assignment=dead)

    assert [(send.waiting, send.tries, send.retry_after > timezone.now()) for send in dead_sends()] == [(True, 1, True)] * 2
    assert grades.send_waiting() == (0, 0)
    later = timezone.now() + timedelta(days=2)
    assert grades.send_waiting(now=later) == (0, 2)
    assert [(send.waiting, send.tries, send.retry_after > later) for send in dead_sends()] == [(True, 2, True)] * 2


def test_welcome_link_respects_account_lockout(platform, registration):
    make_user("target")
    browser = Client()
    launch(browser, platform, registration, learner_claims(platform, user_id="s-x"))
    for _ in range(5):
        browser.post(reverse("lti_welcome"), {"choice": "link", "username": "target", "password": "wrong"})
    response = browser.post(reverse("lti_welcome"), {"choice": "link", "username": "target", "password": PASSWORD})
    assert response.status_code != 302 and LtiUser.objects.get(sub="s-x").auth_user is None


class Server:
    """A TCP server on 127.0.0.1: `mode` "drip" answers an NRPS page one byte every `every` seconds;
    "hang" accepts and never answers. Counts connections."""

    def __init__(self, mode, total=8, every=0.5):
        self.mode, self.total, self.every, self.connections = mode, total, every, 0
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(50)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.open = []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            self.open.append(conn)
            if self.mode == "drip":
                threading.Thread(target=self.drip, args=(conn,), daemon=True).start()

    def drip(self, conn):
        try:
            conn.recv(65536)
            body = b'{"members": []}'
            body = body + b" " * (self.total - len(body)) if len(body) < self.total else body
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/vnd.ims.lti-nrps.v2.membershipcontainer+json\r\n"
                         b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n")
            for byte in body:
                conn.sendall(bytes([byte]))
                time.sleep(self.every)
            conn.close()
        except OSError:
            pass

    def close(self):
        self.sock.close()
        for conn in self.open:
            conn.close()


def test_a_hung_lms_is_waited_for_once(platform, registration, monkeypatch,
                                                              django_capture_on_commit_callbacks):
    from django.utils import timezone

    from quiz.lti import grades
    from quiz.models import GradeSend

    assignment, link, teacher = deep_linked_assignment(platform, registration)
    from quiz.models import LtiGradeLink
    LtiGradeLink.objects.update_or_create(assignment=assignment, defaults={"line_item_url": link["line_item"]["id"]})
    for n in range(6):
        account = make_user(f"l{n}")
        assignment.classroom.join(account)
        LtiUser.objects.create(registration=registration, sub=f"sub-{n}", auth_user=account)
        GradeSend.objects.create(assignment=assignment, learner=account, score=50, status="submitted",
                                 changed_at=timezone.now())
    hung = Server("hang")
    registration.token_url = hung.url + "/token"
    registration.save()
    monkeypatch.setattr(grades, "TIMEOUT", 0.3)
    grades.grades_changed(assignment_id=assignment.pk)  # as after exclude_question's commit
    grades.send_waiting()  # the timer's run: one wait for the hung LMS, not one per learner
    hung.close()
    assert hung.connections <= 1


@pytest.mark.parametrize("custom", [{"assignment": "\u00b2"}, {"deck": "\u00b9\u00b2"},
                                    {"assignment": "1", "available": "0001-01-01T00:00:00+01:00"}])
def test_odd_custom_values_open_the_class_page(platform, registration, custom):
    from tests.class_factories import make_assignment

    teacher = Client()
    launch(teacher, platform, registration, instructor_claims(platform))
    teacher.post(reverse("lti_welcome"), {"choice": "new"})
    classroom = Classroom.objects.get()
    assignment = make_assignment(classroom)
    custom = {k: (str(assignment.pk) if k == "assignment" and v == "1" else v) for k, v in custom.items()}
    learner = Client(raise_request_exception=False)
    launch(learner, platform, registration, learner_claims(platform, custom=custom))
    response = learner.post(reverse("lti_welcome"), {"choice": "new"})
    assert response.status_code in (302, 200), response.status_code


def test_the_owner_launching_as_a_learner_is_not_enrolled(platform, registration):
    teacher = Client()
    launch(teacher, platform, registration, instructor_claims(platform))
    teacher.post(reverse("lti_welcome"), {"choice": "new"})
    launch(teacher, platform, registration, learner_claims(platform, user_id="teacher-1"))
    classroom = Classroom.objects.get()
    assert not Enrollment.objects.filter(classroom=classroom, learner=classroom.owner).exists()


def test_a_switched_off_account_is_refused_not_replaced(platform, registration):
    c = Client()
    launch(c, platform, registration, learner_claims(platform))
    c.post(reverse("lti_welcome"), {"choice": "new"})
    User.objects.update(is_active=False)
    again = Client()
    launch(again, platform, registration, learner_claims(platform))
    again.post(reverse("lti_welcome"), {"choice": "new"})
    assert "_auth_user_id" not in again.session, "a switched-off learner is signed in to a new account"


def test_the_first_launched_link_keeps_the_gradebook_column(platform, registration, django_capture_on_commit_callbacks):
    from lti_tool.models import Key

    from tests.class_factories import take

    assignment, link, teacher = deep_linked_assignment(platform, registration)
    platform.tool_jwks = Key.objects.as_jwks()
    copy = platform.add_line_item(label="Ports (copy)", resource_link_id="link-copy")  # a copy of the activity
    custom = link["content_item"]["custom"]
    a = Client()
    launch(a, platform, registration, learner_claims(platform, user_id="s-a", resource_link_id=link["resource_link_id"],
                                                     custom=custom))
    a.post(reverse("lti_welcome"), {"choice": "new"})
    b = Client()
    launch(b, platform, registration, learner_claims(platform, user_id="s-b", resource_link_id="link-copy", custom=custom))
    b.post(reverse("lti_welcome"), {"choice": "new"})
    with django_capture_on_commit_callbacks(execute=True):
        take(assignment, LtiUser.objects.get(sub="s-a").auth_user, [0, 1, 2])
    assert platform.scores[-1]["lineItem"] == link["line_item"]["id"] != copy["id"]


@pytest.mark.parametrize("roles", [("Mentor",), ("TeachingAssistant",), ()])
def test_roles_other_than_learner_do_not_join_the_class(platform, registration, roles):
    teacher = Client()
    launch(teacher, platform, registration, instructor_claims(platform))
    teacher.post(reverse("lti_welcome"), {"choice": "new"})
    other = Client()
    launch(other, platform, registration, platform.resource_link_claims(user_id="someone", roles=roles))
    other.post(reverse("lti_welcome"), {"choice": "new"})
    assert not Enrollment.objects.exists(), f"roles {roles} made a learner of the class"


def test_no_activity_is_added_to_an_archived_class(platform, registration):
    from tests.class_factories import make_pool
    from tests.test_lti import make_question_set_for_pool

    teacher = Client()
    launch(teacher, platform, registration, instructor_claims(platform))
    teacher.post(reverse("lti_welcome"), {"choice": "new"})
    Classroom.objects.get().archive()
    picker = launch(teacher, platform, registration, platform.deep_linking_claims(user_id="teacher-1"))
    assert picker.url == Classroom.objects.get().get_absolute_url()  # told to restore it first, no picker
    pool = make_pool(LtiUser.objects.get(sub="teacher-1").auth_user, make_question_set_for_pool())
    response = teacher.post(reverse("lti_deep_link"), {
        "kind": "assignment", "pool": pool.pk, "title": "Ports", "opens_at": "2026-01-01T09:00",
        "due_at": "2099-01-01T09:00", "grading": "best", "feedback_timing": "immediate"})
    assert response.status_code == 400 and not Assignment.objects.exists()
