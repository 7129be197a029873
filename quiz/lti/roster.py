"""A class's roster from its LMS course (LTI Names and Role Provisioning Services 2.0).

`sync_roster(classroom)` reads the course's members from the platform, with pylti1p3's
NamesRolesProvisioningService and the registration django-lti keeps, and records them as
django-lti records a launch (LtiUser, LtiMembership). The gradebook then shows the course's
learners who have not launched yet: a roster entry (an LtiUser without an account), not an
account. Their first launch makes their account (quiz.lti.accounts), linked to that same LtiUser,
so the entry is taken over: the learner joins the class and shows once, as themselves.

The whole roster is read first, every page; only then is it recorded, in one transaction. An LMS
that fails (an HTTP error, a timeout, an answer that is not a roster) raises RosterError saying
so, and nothing has changed. What a sync records:

- each member listed: their name and email (LtiUser), their roles in the course and whether they
  are active (LtiMembership; NRPS's status, "Active" when it is left out);
- a membership the LMS no longer lists becomes inactive, as one it marks Inactive or Deleted.
  django-lti's LtiContext.update_memberships is not used for this: it leaves a membership that is
  no longer listed as it was (still active), refuses a member without a status (which NRPS
  allows), writes member by member (three queries each) and lets names longer than its fields
  through to the database;
- learners with an account here who are active learners of the course join the class
  (Classroom.join), as their next launch would make them: a learner removed here who is still in
  the LMS course is back at the next sync (remove them in the LMS). An archived class takes no one.

A learner who left the LMS course, or whom it marks Inactive, is NOT removed from the class here:
removing submits their unfinished attempts and takes them out of the gradebook, and LMSs drop
members for reasons that are not the instructor's decision about this class (a section change,
an enrolment that ends before grades are final, a roster that comes back short once). The
gradebook shows them as "no longer in the LMS course"; the instructor removes them by hand when
that is meant.
"""

import logging
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import requests
from django.db import transaction
from django.utils import timezone
from lti_tool.lti_core.constants import ContextRole
from lti_tool.lti_core.utils import normalize_role
from lti_tool.models import Key, LtiContext, LtiMembership, LtiUser
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.names_roles import NamesRolesProvisioningService
from pylti1p3.service_connector import REQUESTS_USER_AGENT, ServiceConnector

from ..models import LtiClass, User

log = logging.getLogger(__name__)

CONNECT_SECONDS = 5
READ_SECONDS = 20  # for each page; requests would wait for ever
SECONDS = 60  # for the whole roster, every page, when the instructor asked for it
QUIET_SECONDS = 10  # on an instructor's launch, who waits for their page meanwhile
MAX_PAGES = 1000  # a platform whose next page never ends is refused, not followed for ever
BATCH = 500  # ids in one IN (...): SQLite takes 999 parameters

# LtiUser's fields a member's NRPS entry fills in, with their lengths.
DETAILS = {"name": 500, "given_name": 500, "family_name": 500, "email": 254, "picture": 200}
FIELD_OF = {"picture": "picture_url"}
ROLE_FLAGS = {
    "is_administrator": ContextRole.ADMINISTRATOR, "is_content_developer": ContextRole.CONTENT_DEVELOPER,
    "is_instructor": ContextRole.INSTRUCTOR, "is_learner": ContextRole.LEARNER, "is_mentor": ContextRole.MENTOR,
}
TEACHING_FLAGS = ("is_administrator", "is_content_developer", "is_instructor")  # as quiz.lti.classes.teaches


class RosterError(Exception):
    """The roster could not be synced, and nothing changed; str() says why, for the instructor."""


class NotLinked(RosterError):
    def __init__(self):
        super().__init__("This class is not linked to an LMS course.")


class _Unreadable(ValueError):
    """The LMS answered something that is not a roster of NRPS 2.0."""


@dataclass(frozen=True)
class RosterEntry:
    """A learner of the LMS course who has no account here yet: they have not launched."""

    name: str
    sub: str


@dataclass
class LmsRoster:
    """The class's LMS course as the gradebook shows it: learners not launched yet (by name), and
    the accounts whose membership ended (no longer listed, or Inactive in the LMS)."""

    not_launched: list = field(default_factory=list)
    left: frozenset = frozenset()


@dataclass
class Synced:
    platform: str
    members: int  # active members of the course, every role
    not_launched: int
    enrolled: int = 0  # learners with an account who joined the class by this sync
    ended: int = 0  # memberships this sync made inactive

    def __str__(self):
        text = f"Roster synced from {self.platform}: {self.members} members, {self.not_launched} not launched yet"
        if self.enrolled:
            text += f"; {self.enrolled} joined the class"
        if self.ended:
            text += f"; {self.ended} no longer in the course"
        return text


def sync_roster(classroom, *, seconds=SECONDS, now=None):
    """Sync the class's roster from its LMS course (see the module's docstring); a Synced. Raises
    NotLinked for a class that is no LMS course's, RosterError when the LMS fails (nothing changed)."""
    link = LtiClass.objects.select_related("context__deployment__registration").filter(classroom=classroom).first()
    if link is None:
        raise NotLinked
    context = link.context
    registration = context.deployment.registration
    platform = registration.name
    if not (registration.is_active and context.deployment.is_active):
        raise RosterError(f"{platform} is switched off in the admin (its registration or its deployment)")
    if not context.memberships_url:
        raise RosterError(f"{platform} gave no roster service with this course's launches: turn on Names and Role "
                          f"Provisioning for the tool in {platform}, then launch from the course again")
    try:
        members = _members(_read_roster(context.memberships_url, registration, seconds=seconds))
    except (LtiException, requests.RequestException, Key.DoesNotExist, KeyError, TypeError, ValueError) as error:
        # KeyError...: pylti1p3 reading a token answer of the wrong shape; ValueError: _Unreadable.
        log.warning("roster not synced", extra={"event": "lti_roster_failed", "classroom": classroom.pk,
                                                "reason": f"{type(error).__name__}: {error}"[:500]})
        raise RosterError(_explained(platform, error, seconds)) from error
    now = now or timezone.now()
    with transaction.atomic():
        LtiContext.objects.select_for_update().filter(pk=context.pk).first()  # one writer per course, as enter_course
        users = _record_users(registration, members, now)
        ended = _record_memberships(context, members, users, now)
        enrolled = 0 if classroom.archived_at else _enroll(classroom, context)
        LtiClass.objects.filter(pk=link.pk).update(roster_synced_at=now)
    active = sum(1 for member in members.values() if member.active)
    synced = Synced(platform, active, len(lms_roster(classroom).not_launched), enrolled, ended)
    log.info("roster synced", extra={"event": "lti_roster_synced", "classroom": classroom.pk, "members": active})
    return synced


def sync_roster_quietly(classroom):
    """sync_roster for an instructor's launch: never raises (a launch does not fail because the
    LMS's roster service does; the failure is logged, and the instructor can sync from the class's
    page), and quicker to give up. The Synced, or None when nothing was synced."""
    try:
        return sync_roster(classroom, seconds=QUIET_SECONDS)
    except NotLinked:
        return None
    except RosterError:
        return None  # a failure of the LMS is logged by sync_roster; a switched-off platform needs no log
    except Exception:  # whatever it is, the launch goes on; the log has it
        log.exception("roster sync on launch failed", extra={"event": "lti_roster_failed", "classroom": classroom.pk})
        return None


def lms_roster(classroom):
    """The class's LmsRoster: one query (nothing found for a class that is no LMS course's).
    Learners only: a member with a teaching role (instructor, content developer, administrator)
    runs the course, as a launch reads roles (quiz.lti.classes.teaches)."""
    rows = LtiMembership.objects.filter(
        context__quiz_class__classroom=classroom, is_learner=True, **dict.fromkeys(TEACHING_FLAGS, False)
    ).values_list(
        "is_active", "user__auth_user_id", "user__auth_user__is_active",
        "user__sub", "user__name", "user__given_name", "user__family_name", "user__email",
    )
    entries, active_accounts, ended_accounts = [], set(), set()
    for active, account, account_active, sub, name, given, family, email in rows:
        if account is not None and account_active:
            (active_accounts if active else ended_accounts).add(account)
        elif active:  # no account, or one an administrator switched off: their next launch makes one
            shown = name or f"{given} {family}".strip() or email or f"Member {sub[:24]}"
            entries.append(RosterEntry(shown, sub))
    entries.sort(key=lambda entry: (entry.name.lower(), entry.sub))
    return LmsRoster(not_launched=entries, left=frozenset(ended_accounts - active_accounts))


# --- Reading the roster from the LMS ---------------------------------------------------------------

class _Session(requests.Session):
    """A session whose every call has a timeout (requests has none by default)."""

    timeout = (CONNECT_SECONDS, READ_SECONDS)

    def __init__(self):
        super().__init__()
        self.headers["User-Agent"] = REQUESTS_USER_AGENT

    def request(self, method, url, *args, **kwargs):
        kwargs.setdefault("timeout", self.timeout)
        return super().request(method, url, *args, **kwargs)


def _read_roster(url, registration, *, seconds):
    """Every member entry of every page, as the LMS sent them. Only pages on the roster's own
    origin are followed: the next page's URL comes from the LMS's answer, and the access token
    goes with each request."""
    started = time.monotonic()
    session = _Session()
    nrps = NamesRolesProvisioningService(ServiceConnector(registration.to_registration(), session),
                                         {"context_memberships_url": url})
    origin, seen, entries = _origin(url), set(), []
    while url:
        remaining = seconds - (time.monotonic() - started)
        if remaining <= 0:
            raise requests.Timeout(f"the roster took more than {seconds} seconds")
        if url in seen or len(seen) >= MAX_PAGES or _origin(url) != origin:
            raise _Unreadable(f"the next page {url!r} is one already read, one too many, or on another site")
        seen.add(url)
        session.timeout = (CONNECT_SECONDS, min(READ_SECONDS, remaining))
        page = nrps.get_nrps_data(url)
        body = page["body"]
        if not isinstance(body, dict) or not isinstance(body.get("members"), list):
            raise _Unreadable("no list of members")
        entries.extend(body["members"])
        url = page["next_page_url"]
    return entries


def _origin(url):
    # pylti1p3 lower-cases the next page's URL (it reads the Link header in lower case).
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


@dataclass(frozen=True)
class _Member:
    details: dict  # LtiUser fields, those the LMS gave
    flags: dict  # LtiMembership's role flags and is_active

    @property
    def active(self):
        return self.flags["is_active"]


def _members(entries):
    """{sub: _Member} of the LMS's entries (a member listed twice, as a page shifting under a
    roster that changes can, counts once). A member without a user id makes the whole roster
    unreadable: recorded without them, they would look as if they had left."""
    members = {}
    for entry in entries:
        if not isinstance(entry, dict):
            raise _Unreadable("a member that is not an object")
        sub = entry.get("user_id")
        if not isinstance(sub, str) or not sub or len(sub) > 255:
            raise _Unreadable("a member without a user id")
        roles = entry.get("roles")
        roles = {normalize_role(role) for role in roles if isinstance(role, str)} if isinstance(roles, list) else set()
        flags = {flag: role.value in roles for flag, role in ROLE_FLAGS.items()}
        flags["is_active"] = entry.get("status", "Active") == "Active"
        members[sub] = _Member(_details(entry), flags)
    return members


def _details(entry):
    """The LtiUser fields of a member's entry: names cut to their fields' length; an email or a
    picture URL that does not fit is left out rather than cut into a wrong one."""
    details = {}
    for name, length in DETAILS.items():
        value = entry.get(name)
        if not isinstance(value, str):
            continue
        if name in ("name", "given_name", "family_name"):
            details[name] = value[:length]
        elif len(value) <= length and (name != "email" or not value or "@" in value):
            details[FIELD_OF.get(name, name)] = value
    return details


def _explained(platform, error, seconds):
    if isinstance(error, LtiServiceException):
        status = error.response.status_code
        if status in (400, 401, 403):
            why = (f"it refused the app's access: check that the tool may read the course's members (Names and "
                   f"Role Provisioning) in {platform}, and the registration's client id and token URL")
        elif status == 404:
            why = "it does not know this course's roster (a course deleted or copied?)"
        else:
            why = "it may be down or busy: try again in a while"
        return f"{platform} answered {status}: {why}"
    if isinstance(error, requests.Timeout):
        return f"{platform} did not answer within {seconds} seconds: try again in a while"
    if isinstance(error, requests.ConnectionError):
        return f"{platform} could not be reached: try again in a while"
    if isinstance(error, Key.DoesNotExist):
        return "the app has no key to sign its request with: an administrator runs `manage.py lti_key`"
    return f"what {platform} answered is not a roster (Names and Role Provisioning 2.0)"


# --- Recording it ----------------------------------------------------------------------------------

def _chunks(items):
    items = list(items)
    return (items[start:start + BATCH] for start in range(0, len(items), BATCH))


def _record_users(registration, members, now):
    """{sub: LtiUser} of every member, made or brought up to date (a field the LMS left out is
    left as it is, as a launch does)."""
    users = {}

    def read(subs):
        for chunk in _chunks(subs):
            users.update((user.sub, user) for user in LtiUser.objects.filter(registration=registration, sub__in=chunk))

    read(members)
    new = [LtiUser(registration=registration, sub=sub, **member.details)
           for sub, member in members.items() if sub not in users]
    LtiUser.objects.bulk_create(new, batch_size=BATCH, ignore_conflicts=True)  # a launch may have made one meanwhile
    read(user.sub for user in new)
    changed = []
    for sub, member in members.items():
        user = users[sub]
        if any(getattr(user, name) != value for name, value in member.details.items()):
            for name, value in member.details.items():
                setattr(user, name, value)
            user.datetime_modified = now
            changed.append(user)
    fields = [FIELD_OF.get(name, name) for name in DETAILS] + ["datetime_modified"]
    LtiUser.objects.bulk_update(changed, fields, batch_size=BATCH)
    return users


def _record_memberships(context, members, users, now):
    """Every member's membership of the course as the LMS lists it; those it no longer lists made
    inactive. How many memberships were active and are not any more."""
    existing = {membership.user_id: membership for membership in LtiMembership.objects.filter(context=context)}
    listed, new, changed, ended = set(), [], [], 0
    for sub, member in members.items():
        user = users[sub]
        listed.add(user.pk)
        membership = existing.get(user.pk)
        if membership is None:
            new.append(LtiMembership(context=context, user=user, **member.flags))
            continue
        if any(getattr(membership, name) != value for name, value in member.flags.items()):
            if membership.is_active and not member.active:
                ended += 1
            for name, value in member.flags.items():
                setattr(membership, name, value)
            changed.append(membership)
    for user_id, membership in existing.items():
        if user_id not in listed and membership.is_active:
            membership.is_active = False
            changed.append(membership)
            ended += 1
    for membership in changed:
        membership.datetime_modified = now
    LtiMembership.objects.bulk_create(new, batch_size=BATCH, ignore_conflicts=True)  # a launch may have made one
    LtiMembership.objects.bulk_update(changed, [*ROLE_FLAGS, "is_active", "datetime_modified"], batch_size=BATCH)
    return ended


def _enroll(classroom, context):
    """Active learners of the course with an account here join the class; how many joined."""
    in_course = {f"lti_users__memberships__{flag}": False for flag in TEACHING_FLAGS}
    accounts = (
        User.objects.filter(
            is_active=True, lti_users__memberships__context=context, lti_users__memberships__is_active=True,
            lti_users__memberships__is_learner=True, **in_course,
        )
        .exclude(pk=classroom.owner_id)
        .exclude(enrollments__classroom=classroom)
        .distinct()
    )
    return sum(classroom.join(account) for account in accounts)
