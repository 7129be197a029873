"""Which class an LMS course is. The first instructor who launches from a course makes its class
here, named after the course and owned by them; learners who launch from it join that class (no
join code). Roles are read from the launch's own claim each time, never from an earlier launch:
an LMS that made someone a learner since makes them a learner here."""

from dataclasses import dataclass
from urllib.parse import urlsplit

from django.db import transaction
from lti_tool.lti_core.constants import ContextRole
from lti_tool.lti_core.utils import normalize_role
from lti_tool.models import LtiContext, LtiRegistration

from ..models import Classroom, LtiClass

# Those who run a course in the LMS: its instructors, its content developers and its administrators.
TEACHING_ROLES = {ContextRole.INSTRUCTOR.value, ContextRole.CONTENT_DEVELOPER.value, ContextRole.ADMINISTRATOR.value}
MAX_NAME = Classroom._meta.get_field("name").max_length


LEARNER_ROLE = ContextRole.LEARNER.value
LEARNER_SUB_ROLES = "http://purl.imsglobal.org/vocab/lis/v2/membership/Learner#"


def course_id(context_claim):
    """The course's id on its platform from a launch's context claim, or "" when the launch names
    none (the claim is optional in LTI; without it there is no course to be a class)."""
    value = context_claim.get("id") if isinstance(context_claim, dict) else None
    return value if isinstance(value, str) else ""


def learns(roles_claim):
    """Whether the launch's roles claim makes its user a learner of the course (the Learner
    context role, or one of its sub-roles). A mentor, an observer, an administrator of the whole
    LMS with no course role: not learners, so never enrolled, graded or sent scores for."""
    roles = roles_claim if isinstance(roles_claim, list) else []
    return any(isinstance(role, str) and (normalize_role(role) == LEARNER_ROLE or role.startswith(LEARNER_SUB_ROLES))
               for role in roles)


def teaches(roles_claim):
    """Whether the launch's roles claim (a list of role URIs or short names) says its user runs
    the course. A sub-role (a teaching assistant, `.../Instructor#TeachingAssistant`) does not."""
    roles = roles_claim if isinstance(roles_claim, list) else []
    return any(isinstance(role, str) and normalize_role(role) in TEACHING_ROLES for role in roles)


@dataclass
class Arrival:
    """Where a launch leads: `classroom` (or None) and how the account stands in it: "owner",
    "learner", "another instructor's" (the course's class is run by the instructor who first
    launched), "not set up" (no instructor launched yet), "archived", or "no role" (neither a
    learner's nor an instructor's role in the course: not enrolled)."""

    classroom: Classroom | None
    standing: str


def enter_course(account, context, *, teaching, learning=True):
    """The Arrival of `account` launching from the course `context` (django-lti's LtiContext)."""
    with transaction.atomic():
        LtiContext.objects.select_for_update().filter(pk=context.pk).first()  # one first launch makes the class
        link = LtiClass.objects.select_related("classroom").filter(context=context).first()
        if teaching:
            return _enter_as_instructor(account, context, link)
        if link is not None and link.classroom.owner_id == account.pk:
            return Arrival(link.classroom, "owner")  # its instructor, launching once as a learner
        if not learning:
            return Arrival(None, "no role")
        if link is None:
            return Arrival(None, "not set up")
        if link.classroom.archived_at:
            return Arrival(link.classroom, "archived")
        link.classroom.join(account)
        return Arrival(link.classroom, "learner")


def _enter_as_instructor(account, context, link):
    if not account.is_instructor:
        account.is_instructor = True
        account.save(update_fields=["is_instructor"])
    if link is None:
        name = (context.title or context.label or "Course from your LMS")[:MAX_NAME]
        classroom = Classroom.objects.create(owner=account, name=name)
        LtiClass.objects.create(context=context, classroom=classroom)
        return Arrival(classroom, "owner")
    if link.classroom.owner_id == account.pk:
        return Arrival(link.classroom, "owner")
    return Arrival(link.classroom, "another instructor's")


def platform_origins():
    """The origins (scheme://host[:port]) of every active registered platform's issuer and
    login URL: who may frame the tool's pages that an LMS shows in its own."""
    origins = set()
    for urls in LtiRegistration.objects.active().values_list("issuer", "auth_url"):
        for url in urls:
            parts = urlsplit(url)
            if parts.scheme in ("http", "https") and parts.netloc:
                origins.add(f"{parts.scheme}://{parts.netloc}")
    return sorted(origins)
