"""Grades back to the LMS (LTI Assignment and Grade Services). An assignment added through deep
linking has a gradebook column there (LtiGradeLink, recorded from the launches of its link). Each
learner's counted score (quiz.teaching.standing: the grading rule, exclusions, overrides) is kept
as a GradeSend: `queue_scores` makes a new version when it changed, `send_waiting` posts the
waiting ones to the line item's scores with pylti1p3 (an access token from the LMS, signed with
the tool's key), as the learner's platform user id, with the moment the score changed. A failed
call stays waiting with its error; `manage.py catch_up` queues every change it finds (a regrade,
an exclusion, an override, an attempt closed at its deadline) and sends what waits.
"""

import logging
import re
from collections import defaultdict

import requests
from django.db.models import F, Q
from django.dispatch import receiver
from django.utils import timezone
from lti_tool.models import LtiUser
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.exception import LtiException
from pylti1p3.grade import Grade
from pylti1p3.service_connector import ServiceConnector

from ..lib.scores import scores_changed
from ..models import AssignmentOverride, Attempt, GradeSend, LtiGradeLink
from ..teaching.standing import Status, standing_of

log = logging.getLogger("quiz.lti")
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
TIMEOUT = 10  # seconds for any call to an LMS: a slow LMS must not hold a worker
BATCH = 200


def record_line_item(assignment, ags_claim):
    """Remember the line item the LMS names for `assignment`'s link (a launch's AGS claim)."""
    url = ags_claim.get("lineitem") if isinstance(ags_claim, dict) else None
    scopes = ags_claim.get("scope") if isinstance(ags_claim, dict) else None
    if not isinstance(url, str) or not url.startswith(("https://", "http://")) or len(url) > 500:
        return None
    if not isinstance(scopes, list) or SCORE_SCOPE not in scopes:
        return None
    # The first link launched keeps the column: a copy of the activity in the LMS (another link
    # naming the same assignment) must not move the scores to its own column.
    link, _ = LtiGradeLink.objects.get_or_create(assignment=assignment, defaults={"line_item_url": url})
    return link


def queue_scores(*, assignments=None, learner=None, now=None):
    """Make a new GradeSend version for each linked assignment's learner whose counted score or
    status changed: every linked assignment (or those given), every learner with a platform
    identity in its course (or `learner`). Returns how many changed."""
    now = now or timezone.now()
    links = LtiGradeLink.objects.select_related("assignment__classroom__lti_course__context__deployment")
    if assignments is not None:
        links = links.filter(assignment__in=assignments)
    changed = 0
    for link in links:
        changed += _queue_assignment(link.assignment, learner, now)
    return changed


def _queue_assignment(assignment, learner, now):
    identities = _identities(assignment)
    if learner is not None:
        identities = {learner.pk: identities[learner.pk]} if learner.pk in identities else {}
    if not identities:
        return 0
    attempts = defaultdict(list)
    rows = Attempt.objects.filter(assignment=assignment, user__in=list(identities)).with_exclusions()
    for attempt in rows.order_by("started_at", "pk"):
        attempts[attempt.user_id].append(attempt)
    overrides = {o.learner_id: o for o in AssignmentOverride.objects.filter(assignment=assignment)}
    sends = {send.learner_id: send for send in GradeSend.objects.filter(assignment=assignment, learner__in=list(identities))}
    changed = 0
    for learner_id in identities:
        standing = standing_of(attempts=attempts[learner_id], rules=assignment.rules_for(overrides.get(learner_id)),
                               grading=assignment.grading, now=now)
        if standing.score is None and standing.status != Status.IN_PROGRESS:
            continue  # nothing to say to the LMS yet (not started, missed: its own gradebook shows that)
        send = sends.get(learner_id)
        if send is None:
            GradeSend.objects.create(assignment=assignment, learner_id=learner_id, score=standing.score,
                                     status=standing.status, changed_at=now)
            changed += 1
        elif (send.score, send.status) != (standing.score, standing.status):
            GradeSend.objects.filter(pk=send.pk).update(score=standing.score, status=standing.status, changed_at=now,
                                                        version=F("version") + 1)
            changed += 1
    return changed


def _identities(assignment):
    """{account id: platform user id} of the learners of the assignment's class who launched from
    its course (linked accounts of that platform)."""
    course = getattr(assignment.classroom, "lti_course", None)
    if course is None:
        return {}
    registration_id = course.context.deployment.registration_id
    learners = assignment.classroom.enrollments.values("learner")
    return dict(LtiUser.objects.filter(registration_id=registration_id, auth_user__in=learners)
                .values_list("auth_user", "sub"))


def send_waiting(*, assignments=None, learner=None, now=None):
    """Post every waiting score (of `assignments`, of `learner`) to its LMS: (sent, failed)."""
    now = now or timezone.now()
    # A score the LMS refused waits its back-off before the next try (its error stays on the page);
    # those that failed least go first, so one that always fails never holds the others back.
    waiting = GradeSend.objects.filter(Q(retry_after=None) | Q(retry_after__lte=now), version__gt=F("sent_version"),
                                       assignment__lti_grades__isnull=False)
    if assignments is not None:
        waiting = waiting.filter(assignment__in=assignments)
    if learner is not None:
        waiting = waiting.filter(learner=learner)
    waiting = waiting.select_related("assignment__lti_grades",
                                     "assignment__classroom__lti_course__context__deployment__registration")
    sent = failed = 0
    services, unreachable = {}, set()
    for send in waiting.order_by("tries", "pk")[:BATCH]:
        course = getattr(send.assignment.classroom, "lti_course", None)  # None: the class left its LMS course
        registration_id = course.context.deployment.registration_id if course else None
        try:
            if course is None:
                raise ValueError("the class is no LMS course's any more")
            if registration_id in unreachable:
                raise requests.ConnectionError("the LMS did not answer a moment ago")
            _post(send, services)
        except (LtiException, requests.RequestException, ValueError, KeyError) as error:
            failed += 1
            if isinstance(error, (requests.ConnectionError, requests.Timeout)):
                unreachable.add(registration_id)  # one wait for a hung LMS, not one per learner
            GradeSend.objects.filter(pk=send.pk).update(tries=F("tries") + 1, last_error=_said(error),
                                                        retry_after=now + GradeSend.back_off(send.tries + 1))
            log.warning("grade not sent", extra={"event": "lti_grade_failed", "assignment": send.assignment_id,
                                                 "learner": send.learner_id, "error": str(error)[:300]})
            continue
        sent += 1
        # Only the version that was sent: a newer score queued meanwhile stays waiting.
        GradeSend.objects.filter(pk=send.pk, sent_version__lt=send.version).update(
            sent_version=send.version, sent_at=now, tries=0, last_error="", retry_after=None)
    return sent, failed


def _said(error):
    """What the page shows of a failed call: its kind and the LMS's status, never the body of
    its answer (a platform could aim a line item URL at an address it should not read)."""
    status = getattr(getattr(error, "response", None), "status_code", None)
    if status is None and (found := re.search(r"\b([45]\d\d)\b", str(error))):
        status = found[1]
    return f"{type(error).__name__}" + (f" (HTTP {status})" if status else "")


def _post(send, services):
    link = send.assignment.lti_grades
    context = send.assignment.classroom.lti_course.context
    registration = context.deployment.registration
    sub = LtiUser.objects.filter(registration=registration, auth_user=send.learner_id).values_list("sub", flat=True).first()
    if sub is None:
        raise ValueError("the learner has no identity at this LMS any more")
    key = (registration.pk, link.line_item_url)
    if key not in services:
        connector = ServiceConnector(registration.to_registration(), requests_session=_session())
        services[key] = AssignmentsGradesService(connector, {"scope": [SCORE_SCOPE], "lineitem": link.line_item_url})
    grade = Grade().set_user_id(sub).set_timestamp(send.changed_at.isoformat())
    if send.score is None:
        grade.set_activity_progress("InProgress").set_grading_progress("NotReady")
    else:
        grade.set_score_given(send.score).set_score_maximum(100)
        grade.set_activity_progress("Completed").set_grading_progress("FullyGraded")
    services[key].put_grade(grade)


class _TimedSession(requests.Session):
    """requests waits for ever by default: every call to an LMS gets TIMEOUT."""

    def request(self, *args, **kwargs):
        kwargs.setdefault("timeout", TIMEOUT)
        return super().request(*args, **kwargs)


def _session():
    return _TimedSession()


@receiver(scores_changed)
def grades_changed(sender=None, *, assignment_id, learner_id=None, **kwargs):
    """After a commit that may change scores of `assignment_id` (an attempt finished, a regrade):
    queue and send them now; what fails waits for the catch-up timer. Never raises."""
    if not LtiGradeLink.objects.filter(assignment_id=assignment_id).exists():
        return
    try:
        learner = None if learner_id is None else _account(learner_id)
        queue_scores(assignments=[assignment_id], learner=learner)
        if learner is not None:  # one learner's score now; a whole class's goes with the catch-up timer
            send_waiting(assignments=[assignment_id], learner=learner)
    except Exception:  # noqa: BLE001 — a grade call must never break the learner's page
        log.exception("grades not queued", extra={"event": "lti_grade_failed", "assignment": assignment_id})


def catch_up_grades(*, now=None):
    """The timer's part: every linked assignment's changes queued, every waiting score sent."""
    queue_scores(now=now)
    sent = failed = 0
    while True:
        batch_sent, batch_failed = send_waiting(now=now)
        sent, failed = sent + batch_sent, failed + batch_failed
        if batch_sent + batch_failed < BATCH or batch_sent == 0:  # the failed ones are retried next run
            return sent, failed


def sent_grades(assignment):
    """For the assignment's page: {"grade_link": its LtiGradeLink or None, "grade_sends": what
    each learner's score is there, sent or waiting}. One query for an assignment of no LMS."""
    link = LtiGradeLink.objects.filter(assignment=assignment).first()
    if link is None:
        return {"grade_link": None, "grade_sends": []}
    sends = GradeSend.objects.filter(assignment=assignment).select_related("learner").order_by("learner__username")
    return {"grade_link": link, "grade_sends": list(sends)}


def _account(learner_id):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.get(pk=learner_id)
