"""LTI Dynamic Registration (1EdTech LTI Dynamic Registration 1.0): a platform registers the tool by
itself, from a link the site's staff make on the configuration page (quiz.views.lti.configuration).
The view (quiz.views.lti_registration) runs the exchange with django-lti-dynamic-registration's
view; what it checks and records is here.

Who may register. The registration URL is the tool's front door for a new platform: a platform
registered here can launch users in, so an open URL would let anybody on the internet register a
"platform" of their own and sign in through it. Only a link staff made works:

- the link carries a value signed with the site's SECRET_KEY (Django's signing, a TimestampSigner
  underneath): no database row is written to make one, so showing the configuration page (a GET)
  changes nothing, and a link nobody signed, or one that has been edited, is refused;
- it works for LINK_HOURS after it was made (the signature's timestamp), and only while the
  staff member who made it is still active staff;
- it works once: its random nonce is recorded as used (quiz.LtiNonce, whose unique constraint
  makes two uses at the same moment one success and one refusal) in the same transaction that
  records the platform. A registration that fails records nothing, so the link still works for a
  second try once the platform's side is fixed.

A link is a bearer secret until it is used: give it only to the platform's administrator.
Changing SECRET_KEY invalidates every link not used yet.

The exchange (the specification's section 3): the platform opens the link with two query
parameters, `openid_configuration` (the URL of its OpenID configuration) and `registration_token`
(a bearer token for that and its registration endpoint; optional in the specification). The tool
reads the configuration (`checked_configuration`), posts its own registration
(`tool_registration`) to the platform's registration endpoint, and records the client id and
deployment id the platform answers with (`record`). Every failure raises RegistrationRefused with
a reason for the administrator; nothing is recorded before the platform has answered.
"""

import json
import logging
import re
import secrets
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests
from django.conf import settings
from django.core import signing
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone
from lti_dynamic_registration.types import LmsLtiRegistration, LmsLtiToolConfiguration, LtiMessage
from lti_tool.models import Key, LtiDeployment, LtiRegistration

from ..models import LtiNonce, User
from .launches import NONCES_KEPT

log = logging.getLogger("quiz.security")

TOOL_NAME = "Certify"  # the site's name, as base.html and the emails give it
# A used link's nonce is purged with the launches' nonces (quiz.lti.launches.use_nonce) once it is
# older than NONCES_KEPT (a day): a link works no longer than that, so it has expired by then and
# can never work twice.
LINK_VALID = NONCES_KEPT
LINK_HOURS = round(LINK_VALID.total_seconds() / 3600)
LINK_SALT = "quiz.lti.registration.link"
# The LtiNonce "issuer" under which used links are kept: no platform's issuer (a URL) is this.
USED_LINKS = "tool:dynamic-registration-link"

# The platform answers an administrator who is waiting: requests would wait for ever.
CONNECT_SECONDS = 5
READ_SECONDS = 20
MAX_BYTES = 1_000_000  # an OpenID configuration or a registration answer is a few kilobytes

TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"
PLATFORM_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-platform-configuration"
# What the tool uses: grades back (AGS: its line items, their results, scores) and the roster (NRPS).
SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
    "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
]
# The launch's claims about the user that the tool reads (quiz.lti.accounts): an LMS such as Moodle
# shares the learner's name and email only when the registration asks for them.
CLAIMS = ["iss", "sub", "name", "given_name", "family_name", "email"]
LOOPBACK = {"127.0.0.1", "::1", "localhost"}
# A host (a name, IPv4 or [IPv6]) and perhaps a port: no user:password@, nothing a header would take
# for more (the origin goes into the page's Content-Security-Policy).
HOST_AND_PORT = re.compile(r"([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?")
# The lengths of LtiRegistration's fields (URLField: 200) that a platform's answer fills in.
URL_LENGTH, TEXT_LENGTH = 200, 255


class RegistrationRefused(Exception):
    """The registration did not happen and nothing was recorded; str() says why, for the page."""


_USED = "this registration link was used already: ask the tool's administrators for a new one"


@dataclass(frozen=True)
class RegistrationLink:
    url: str
    hours: int = LINK_HOURS


def registration_link(request):
    """A new dynamic registration link for staff to give a platform's administrator, or None while
    the tool has no signing key (a platform would register a tool whose key set is empty). Each
    call makes another link: each works once, for LINK_HOURS, while its maker is staff."""
    if not (request.user.is_active and request.user.is_staff) or not Key.objects.active().exists():
        return None
    token = signing.dumps({"n": secrets.token_urlsafe(16), "by": request.user.pk}, salt=LINK_SALT)
    return RegistrationLink(request.build_absolute_uri(reverse("lti_dynamic_registration", args=[token])))


def authentic(token):
    """Whether `token` is a link this site signed, expired or not: only then may the page that
    answers it be shown in the platform's frame."""
    try:
        signing.loads(token, salt=LINK_SALT)
    except signing.BadSignature:
        return False
    return True


def opened_link(token):
    """The nonce of a link staff made, that has not expired nor been used; RegistrationRefused
    otherwise."""
    try:
        link = signing.loads(token, salt=LINK_SALT, max_age=LINK_VALID)
    except signing.SignatureExpired:
        raise RegistrationRefused(
            f"this registration link has expired (a link works for {LINK_HOURS} hours): "
            "ask the tool's administrators for a new one") from None
    except signing.BadSignature:
        raise RegistrationRefused("this registration link does not work") from None
    if not User.objects.filter(pk=link["by"], is_active=True, is_staff=True).exists():
        raise RegistrationRefused("whoever made this registration link may no longer register platforms")
    if LtiNonce.objects.filter(issuer=USED_LINKS, nonce=link["n"]).exists():
        raise RegistrationRefused(_USED)
    return link["n"]


def platform_address(url, what):
    """`url` when the tool may talk to it: https, or plain http to this machine outside production
    (a platform on 127.0.0.1 in development and in the tests: traffic that never leaves the
    machine, so no one on the way can change the platform's keys). Plain http elsewhere would let
    anyone on the way swap the platform's key set and then forge its launches."""
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("http", "https") or not HOST_AND_PORT.fullmatch(parts.netloc):
        raise RegistrationRefused(f"the platform's {what} is not a web address")
    if parts.scheme == "http" and not (parts.hostname in LOOPBACK and not settings.PRODUCTION):
        raise RegistrationRefused(f"the platform's {what} must be an https:// address")
    return url


def frame_origin(url):
    """The origin of the platform's OpenID configuration URL (where its administrator's page is,
    which shows this tool's answer in a frame or a window of its own), or None."""
    try:
        platform_address(url, "configuration URL")
    except RegistrationRefused:
        return None
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


# --- Talking to the platform ------------------------------------------------------------------------

def exchange(method, url, *, token, what, json_body=None):
    """The platform's JSON answer to a GET or POST of `url`, with the registration token as a
    bearer token when there is one. A timeout on connecting and on each read, a size limit, and no
    redirect: the configuration must be at the URL the issuer is checked against, and a redirect
    elsewhere would take the registration token with it."""
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    try:
        with requests.request(method, url, headers=headers, json=json_body, timeout=(CONNECT_SECONDS, READ_SECONDS),
                              allow_redirects=False, stream=True) as response:
            body = b""
            for chunk in response.iter_content(65536):
                body += chunk
                if len(body) > MAX_BYTES:
                    raise RegistrationRefused(f"the platform's {what} is too large")
    except requests.Timeout:
        raise RegistrationRefused(f"the platform did not answer in time ({what})") from None
    except requests.RequestException:
        raise RegistrationRefused(f"the platform could not be reached ({what})") from None
    if not 200 <= response.status_code < 300:
        raise RegistrationRefused(f"the platform refused: HTTP {response.status_code} for its {what}{_explained(body)}")
    try:
        answer = json.loads(body)
    except ValueError:
        raise RegistrationRefused(f"the platform's {what} is not JSON") from None
    if not isinstance(answer, dict):
        raise RegistrationRefused(f"the platform's {what} is not a JSON object")
    return answer


def _explained(body):
    """The reason an OAuth error answer gives (error, error_description; Canvas sends errors), short."""
    try:
        answer = json.loads(body)
    except ValueError:
        return ""
    if not isinstance(answer, dict):
        return ""
    parts = [answer.get("error"), answer.get("error_description"), answer.get("errors")]
    reason = ": ".join(str(part) for part in parts if part)
    return f" ({reason[:300]})" if reason else ""


def checked_configuration(url, configuration):
    """The platform's OpenID configuration, checked before anything is sent to it: the addresses
    the tool will use (https), their lengths, and the issuer, which must begin the URL the
    configuration came from (the specification's rule: a configuration served by one site cannot
    claim another site's issuer, whose launches the tool would then accept)."""
    issuer = configuration.get("issuer")
    if not isinstance(issuer, str) or not issuer:
        raise RegistrationRefused("the platform's configuration has no issuer")
    platform_address(issuer, "issuer")
    # The issuer begins the URL, and ends where a host or a path segment ends: "https://lms.example.edu"
    # begins "https://lms.example.edu.evil.example/..." too.
    rest = url[len(issuer):]
    if not url.startswith(issuer) or not (issuer.endswith("/") or rest[:1] in ("", "/", "?", "#")):
        raise RegistrationRefused(
            f"the platform's issuer {issuer[:100]} does not match the address of its configuration")
    for name in ("registration_endpoint", "authorization_endpoint", "token_endpoint", "jwks_uri"):
        value, what = configuration.get(name), name.replace("_", " ")
        if not value:
            raise RegistrationRefused(f"the platform's configuration has no {what}")
        platform_address(value, what)
        if len(value) > URL_LENGTH:
            raise RegistrationRefused(f"the platform's {what} is longer than {URL_LENGTH} characters")
    if len(issuer) > TEXT_LENGTH or len(str(configuration.get("authorization_server") or "")) > TEXT_LENGTH:
        raise RegistrationRefused(f"the platform's issuer is longer than {TEXT_LENGTH} characters")
    return configuration


def platform_name(configuration):
    """A name for the registration, as launches and the class pages show it ("Sync roster from
    ..."): the platform's product and its host, e.g. "Moodle at lms.example.edu". Staff can rename
    it in the admin."""
    host = urlsplit(configuration["issuer"]).netloc
    about = configuration.get(PLATFORM_CONFIGURATION)
    product = about.get("product_family_code") if isinstance(about, dict) else None
    name = f"{product.capitalize()} at {host}" if isinstance(product, str) and product.strip() else host
    return name[:TEXT_LENGTH]


class _Message(LtiMessage):
    """The add-on's LtiMessage, whose to_dict (0.1.2) iterates the keys of its __dict__ and fails."""

    def to_dict(self):
        return {name: value for name, value in vars(self).items() if value}


def tool_registration(request, registration):
    """What the tool tells the platform (the specification's 3.5.2, built with the add-on's types):
    its name, the launch URL as redirect URI and target link, its login initiation URL (which names
    `registration`, not saved yet), its key set, the services it uses, the claims it reads and the
    two messages it takes: resource link launches and deep linking (the LMS's activity picker)."""
    launch_url = request.build_absolute_uri(reverse("lti_launch"))
    return LmsLtiRegistration(
        client_name=TOOL_NAME,
        jwks_uri=request.build_absolute_uri(reverse("lti_jwks")),
        initiate_login_uri=request.build_absolute_uri(reverse("lti_login", args=[registration.uuid])),
        target_link_uri=launch_url,
        scopes=SCOPES,
        lti_tool_configuration=LmsLtiToolConfiguration(
            domain=urlsplit(launch_url).netloc,
            target_link_uri=launch_url,
            claims=CLAIMS,
            messages=[
                _Message("LtiResourceLinkRequest", target_link_uri=launch_url, label=TOOL_NAME),
                _Message("LtiDeepLinkingRequest", target_link_uri=launch_url, label=f"Add from {TOOL_NAME}"),
            ],
            description="Quizzes, flashcards and mock exams for a certification, with grades and rosters.",
        ),
    )


def registered_ids(answer):
    """The client id and the deployment id (None when the platform makes none at registration:
    staff then add it in the admin) of the platform's registration answer."""
    client_id = answer.get("client_id")
    if isinstance(client_id, int) and not isinstance(client_id, bool):
        client_id = str(client_id)
    if not isinstance(client_id, str) or not client_id.strip() or len(client_id) > TEXT_LENGTH:
        raise RegistrationRefused("the platform's answer gives no client id")
    configuration = answer.get(TOOL_CONFIGURATION)
    deployment_id = configuration.get("deployment_id") if isinstance(configuration, dict) else None
    if isinstance(deployment_id, int) and not isinstance(deployment_id, bool):
        deployment_id = str(deployment_id)  # Moodle's is a number as a string; a number is one too
    if deployment_id is not None and (not isinstance(deployment_id, str) or not deployment_id.strip()
                                      or len(deployment_id) > TEXT_LENGTH):
        raise RegistrationRefused("the platform's answer gives a deployment id that does not read")
    return client_id, deployment_id


def record(registration, *, client_id, deployment_id, link):
    """Keep the platform's registration (active, under the client id it gave) and its deployment
    (active), and the link as used, all or nothing. RegistrationRefused when the link was used
    meanwhile (two uses at once: the first wins) or the platform gave a client id already
    registered for its issuer."""
    registration.client_id = client_id
    registration.is_active = True
    try:
        with transaction.atomic():
            try:
                with transaction.atomic():
                    LtiNonce.objects.create(issuer=USED_LINKS, nonce=link, used_at=timezone.now())
            except IntegrityError:
                raise RegistrationRefused(_USED) from None
            if LtiRegistration.objects.filter(issuer=registration.issuer, client_id=client_id).exists():
                raise RegistrationRefused(f"the platform is registered under client id {client_id[:100]} already")
            registration.save()
            if deployment_id is not None:
                LtiDeployment.objects.create(registration=registration, deployment_id=deployment_id, is_active=True)
    except IntegrityError:  # the same client id recorded at the same moment by another request
        raise RegistrationRefused(f"the platform is registered under client id {client_id[:100]} already") from None
    log.info("lti platform registered", extra={
        "event": "lti_registered", "issuer": registration.issuer, "client_id": client_id,
        "deployment_id": deployment_id, "registration": str(registration.uuid),
    })
    return registration
