"""An LTI 1.3 / LTI Advantage platform (an LMS as Moodle or Canvas behaves towards a tool) that the
tool's tests run on 127.0.0.1: its key set, OIDC authorization endpoint, OAuth2 token endpoint,
Names and Role Provisioning, Assignment and Grade Services and deep-link return URL are served over
real HTTP, and every token it receives is checked as an LMS checks it. Nothing is mocked: the tool
under test talks to this platform the way it will talk to a real one, so the tool's security
checks, retries and key handling are exercised against something that can say no.

Built from PyJWT, cryptography and Python's http.server only, so that a bug the tool and an LTI
library share cannot hide behind the same library on both sides.

A launch, as a platform runs it:

    with Platform() as platform:
        fields = platform.login_initiation(target_link_uri=launch_url, login_hint="u1",
                                           extra={"lti1p3_new_window": "1"})
        # POST `fields` to the tool's OIDC login URL; it redirects to platform.auth_url?...
        params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
        form = platform.authentication_response(params, platform.resource_link_claims(user_id="u1"))
        # POST `form` (id_token, state) to params["redirect_uri"], with the tool's cookies.

A dynamic registration, as a platform's administrator starts it ("register by URL"):

    with Platform() as platform:
        url = platform.dynamic_registration_url(tool_registration_url)
        # GET `url` as the administrator's frame does; the tool reads platform.openid_configuration_url
        # and posts its registration to platform.registration_endpoint, both with the registration token.
        platform.tool_registrations[-1]   # what the tool sent, and the client and deployment ids given
        # The platform now launches with that registration (client_id, deployment_id, redirect_uris).

Specifications followed: LTI Core 1.3, 1EdTech Security Framework 1.0 (OIDC third-party initiated
login, client-credentials grant with a JWT client assertion), AGS 2.0, NRPS 2.0, Deep Linking 2.0,
LTI Dynamic Registration 1.0.
"""

import base64
import datetime as dt
import hashlib
import hmac
import html
import itertools
import json
import queue
import re
import secrets
import threading
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

# Claim names (LTI Core 1.3, Deep Linking 2.0, AGS 2.0, NRPS 2.0).
LTI = "https://purl.imsglobal.org/spec/lti/claim/"
MESSAGE_TYPE = LTI + "message_type"
VERSION = LTI + "version"
DEPLOYMENT_ID = LTI + "deployment_id"
TARGET_LINK_URI = LTI + "target_link_uri"
RESOURCE_LINK = LTI + "resource_link"
ROLES = LTI + "roles"
CONTEXT = LTI + "context"
CUSTOM = LTI + "custom"
LAUNCH_PRESENTATION = LTI + "launch_presentation"
TOOL_PLATFORM = LTI + "tool_platform"
AGS_ENDPOINT = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
DL_CONTENT_ITEMS = "https://purl.imsglobal.org/spec/lti-dl/claim/content_items"
DL_DATA = "https://purl.imsglobal.org/spec/lti-dl/claim/data"
# Dynamic Registration 1.0: the tool's configuration in its registration, the platform's in its OpenID configuration.
TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"
PLATFORM_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-platform-configuration"
REGISTRATION_MESSAGES = ("LtiResourceLinkRequest", "LtiDeepLinkingRequest")
SUPPORTED_CLAIMS = ("sub", "iss", "name", "given_name", "family_name", "email", "picture", "locale")

# OAuth2 scopes a tool asks the token endpoint for.
SCOPE_LINEITEM = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
SCOPE_LINEITEM_READONLY = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"
SCOPE_RESULT_READONLY = "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"
SCOPE_SCORE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
SCOPE_NRPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
AGS_SCOPES = (SCOPE_LINEITEM, SCOPE_LINEITEM_READONLY, SCOPE_RESULT_READONLY, SCOPE_SCORE)
ALL_SCOPES = AGS_SCOPES + (SCOPE_NRPS,)

# Media types of the services.
MEDIA_LINEITEM = "application/vnd.ims.lis.v2.lineitem+json"
MEDIA_LINEITEMS = "application/vnd.ims.lis.v2.lineitemcontainer+json"
MEDIA_SCORE = "application/vnd.ims.lis.v1.score+json"
MEDIA_RESULTS = "application/vnd.ims.lis.v2.resultcontainer+json"
MEDIA_MEMBERSHIPS = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"

JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ACTIVITY_PROGRESS = {"Initialized", "Started", "InProgress", "Submitted", "Completed"}
GRADING_PROGRESS = {"FullyGraded", "Pending", "PendingManual", "Failed", "NotReady"}

LIS = "http://purl.imsglobal.org/vocab/lis/v2"
CONTEXT_ROLES = {"Administrator", "ContentDeveloper", "Instructor", "Learner", "Mentor", "Manager", "Member", "Officer"}
# How long a tool's JWT may be ahead of or behind this platform's clock.
LEEWAY = 10


def role_uri(role):
    """The full role URI a platform sends for `role`, so tests can write "Learner" and the tool still
    sees what Moodle and Canvas send. A context role ("Learner", "Instructor", "ContentDeveloper"...)
    becomes membership#Role; "TeachingAssistant" the Instructor sub-role (alone: a platform adds the
    principal role itself when it means it); "institution:Student" and "system:Administrator" the
    institution and system person roles; a URI passes unchanged."""
    if "://" in role:
        return role
    kind, _, name = role.rpartition(":")
    if kind == "institution":
        return f"{LIS}/institution/person#{name}"
    if kind == "system":
        return f"{LIS}/system/person#{name}"
    if not kind and name == "TeachingAssistant":
        return f"{LIS}/membership/Instructor#TeachingAssistant"
    if not kind and name in CONTEXT_ROLES:
        return f"{LIS}/membership#{name}"
    raise ValueError(f"unknown role {role!r}: use a context role, institution:Name, system:Name or a URI")


def _b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


@dataclass
class SigningKey:
    """An RSA key pair with its key id: the platform's signing keys, and in tests a tool's keys (the
    self-tests sign client assertions and deep-link responses with one)."""

    private_key: rsa.RSAPrivateKey
    kid: str

    @classmethod
    def generate(cls, kid=None):
        """A fresh 2048-bit key. Its kid is by default the key's RFC 7638 thumbprint, the kid jwcrypto
        (hence pylti1p3 and django-lti) gives a key: a test key's JWK is then the one the tool
        publishes for the same key."""
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        if kid is None:
            jwk = json.loads(RSAAlgorithm.to_jwk(key.public_key()))
            canonical = json.dumps({"e": jwk["e"], "kty": "RSA", "n": jwk["n"]}, separators=(",", ":"), sort_keys=True)
            kid = _b64url(hashlib.sha256(canonical.encode()).digest())
        return cls(key, kid)

    @property
    def private_pem(self):
        return self.private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode("ascii")

    @property
    def public_pem(self):
        return self.private_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ).decode("ascii")

    def public_jwk(self):
        jwk = json.loads(RSAAlgorithm.to_jwk(self.private_key.public_key()))
        jwk.update(kid=self.kid, alg="RS256", use="sig")
        return jwk

    def jwks(self):
        return {"keys": [self.public_jwk()]}

    def sign(self, claims, *, headers=None):
        """`claims` signed RS256 with this key, its kid in the header."""
        return jwt.encode(claims, self.private_key, algorithm="RS256", headers={"kid": self.kid, **(headers or {})})


class _KeyMaker:
    """Fresh platform keys made ahead in a background thread (OpenSSL releases the GIL), so that a
    test suite making a platform per test does not wait ~60 ms for each key. Each key is handed out
    once: no two platforms, nor two rotations, ever share a key."""

    def __init__(self, ahead=3):
        self._ready = queue.Queue(maxsize=ahead)
        self._thread = None
        self._lock = threading.Lock()

    def _make(self):
        while True:
            self._ready.put(SigningKey.generate())

    def take(self):
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._make, name="lti-platform-keys", daemon=True)
                self._thread.start()
        return self._ready.get(timeout=30)


_keys_ahead = _KeyMaker()


@dataclass
class RecordedRequest:
    """One HTTP request the platform received, kept for the tests' assertions. `headers` has lower-case
    names; `status` is what the platform answered."""

    method: str
    path: str
    query: dict
    headers: dict
    body: bytes
    status: int = 0

    def form(self):
        return dict(urllib.parse.parse_qsl(self.body.decode("utf-8"), keep_blank_values=True))

    def json(self):
        return json.loads(self.body or b"null")


class AuthenticationRequestError(ValueError):
    """The tool's OIDC authentication request is not what the specification asks of it: a real
    platform would refuse the launch, so the test fails here, saying what was wrong."""


class ToolJWTError(ValueError):
    """A JWT the tool sent (client assertion, deep-link response) that the platform refuses."""


class _HTTPError(Exception):
    def __init__(self, status, message, *, error=None, headers=None):
        super().__init__(message)
        self.status, self.message, self.error, self.headers = status, message, error, headers or {}


@dataclass
class _Response:
    status: int = 200
    body: bytes = b""
    content_type: str = "text/plain; charset=utf-8"
    headers: dict = field(default_factory=dict)


def _json_response(obj, status=200, content_type="application/json", headers=None):
    return _Response(status, json.dumps(obj).encode(), content_type, headers or {})


def _html_response(body, status=200):
    page = f"<!doctype html><html><head><meta charset='utf-8'><title>Test LMS</title></head><body>{body}</body></html>"
    return _Response(status, page.encode(), "text/html; charset=utf-8")


def _auto_post_form(action, fields, *, target="_self"):
    """The self-submitting form by which a platform moves the browser on (login initiation, the
    id_token's form_post): what a Playwright test follows."""
    inputs = "".join(
        f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(str(v))}">' for k, v in fields.items()
    )
    return (
        f'<form id="lti" method="post" action="{html.escape(action)}" target="{html.escape(target)}">{inputs}'
        '<noscript><button type="submit">Continue</button></noscript></form>'
        "<script>document.getElementById('lti').submit()</script>"
    )


def _parse_timestamp(value):
    """An AGS timestamp as an aware datetime, or None when it is not ISO 8601 with a time zone."""
    if not isinstance(value, str):
        return None
    try:
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else None


class Platform:
    """The LMS. Its server starts when it is made (a free port of 127.0.0.1, a daemon thread) and stops
    at the end of the `with` block (or `close()`); state lives on the object, so a test sets members
    and line items directly and reads what the tool sent from `scores`, `deep_link_responses` and
    `requests`.

    The platform knows the tool as a registration: `client_id`, `deployment_id`, the tool's public
    keys (`tool_jwks_url`, fetched afresh for every JWT the tool sends, so a tool's key rotation is
    seen at once; or `tool_jwks`, a JWKS dict, when the tool has no live server) and, optionally,
    `redirect_uris` (the launch URLs registered for it; without them a redirect_uri must be on the
    target_link_uri's origin)."""

    def __init__(
        self,
        *,
        issuer=None,
        client_id="studyapp-tool",
        deployment_id="deployment-1",
        name="Test LMS",
        page_size=10,
        redirect_uris=(),
        granted_scopes=ALL_SCOPES,
        token_audience=None,
        token_lifetime=3600,
        check_score_users=True,
        stale_score_status=None,
    ):
        self._issuer = issuer
        self.client_id = client_id
        self.deployment_id = deployment_id
        self.name = name
        self.page_size = page_size
        self.redirect_uris = list(redirect_uris)
        # Scopes this platform grants the tool; a scope left out is refused as real admins can.
        self.granted_scopes = tuple(granted_scopes)
        # The aud the token endpoint wants in client assertions (the token URL when None).
        self.token_audience = token_audience
        self.token_lifetime = token_lifetime
        # Scores for users the platform never launched nor lists as members are refused (422), as
        # Canvas does: a tool that sends its own user ids instead of the platform's `sub` fails.
        self.check_score_users = check_score_users
        # A score older than the one on record is never applied (AGS); None answers 204 all the same
        # (the spec's minimum), a status (e.g. 409) refuses it as some LMSs do.
        self.stale_score_status = stale_score_status
        self.tool_jwks_url = None
        self.tool_jwks = None
        self.tool_jwks_fetches = 0

        self.members = []
        self.line_items = []
        self.scores = []
        self.deep_link_responses = []
        self.deep_link_rejections = []
        self.launches = []
        self.requests = []

        self._lock = threading.RLock()
        self._keys = [_keys_ahead.take()]
        self._stranger_key = None
        self._logins = {}
        self._launch_pages = {}
        self._contexts = {}
        self._deep_link_requests = {}
        self._tokens = {}
        self._used_jtis = set()
        self._used_deep_link_nonces = set()
        self._launched_users = set()
        self._line_item_numbers = itertools.count(1)
        self._failures = []

        # Dynamic Registration: what tools registered (and were refused), and knobs for the tool's
        # failure tests. A registration token works until it is used for a registration or expires.
        self.tool_registrations = []
        self.registration_rejections = []
        self.tool_login_url = None
        # Seconds the OpenID configuration / the registration endpoint wait before answering.
        self.configuration_delay = 0
        self.registration_delay = 0
        # Keys of the OpenID configuration replaced (e.g. {"issuer": ...}), as a misconfigured LMS says.
        self.openid_configuration_changes = {}
        # (status, error, description): the registration endpoint refuses every tool, as an LMS whose
        # administrator turned Dynamic Registration off.
        self.registration_refusal = None
        # Whether the answer carries the deployment id (the specification makes it optional).
        self.answer_deployment_id = True
        # Whether a registration becomes the one this platform launches with (client id, deployment
        # id, redirect URIs, the tool's key set URL unless tool_jwks is set, scopes granted).
        self.adopt_registrations = True
        self._registration_tokens = {}
        self._registration_numbers = itertools.count(1)
        self._closing = threading.Event()
        self._routes = self._make_routes()

        handler = type("PlatformHandler", (_Handler,), {"platform": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, name="lti-platform", daemon=True
        )
        self._thread.start()

    # Lifecycle and addresses ---------------------------------------------------------------------

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._closing.set()  # a slow endpoint (configuration_delay...) answers at once
        if self._thread.is_alive():
            self._server.shutdown()
            self._server.server_close()
            self._thread.join(timeout=5)

    @property
    def base_url(self):
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def issuer(self):
        return self._issuer or self.base_url

    @issuer.setter
    def issuer(self, value):
        self._issuer = value

    @property
    def keyset_url(self):
        return self.base_url + "/lti/certs"

    @property
    def auth_url(self):
        return self.base_url + "/lti/auth"

    @property
    def token_url(self):
        return self.base_url + "/lti/token"

    @property
    def return_url(self):
        return self.base_url + "/lti/return"

    @property
    def openid_configuration_url(self):
        return self.base_url + "/lti/openid-configuration"

    @property
    def registration_endpoint(self):
        return self.base_url + "/lti/register"

    def _context_key(self, context_id, title=None, label=None):
        # URLs carry a lower-case digest of the context id: pylti1p3 lower-cases Link headers
        # before reading the next page's URL, so a context id in upper case would break paging.
        key = hashlib.sha256(context_id.encode()).hexdigest()[:16]
        with self._lock:
            known = self._contexts.setdefault(key, {"id": context_id, "label": context_id, "title": context_id})
            if title:
                known["title"] = title
            if label:
                known["label"] = label
        return key

    def memberships_url(self, context_id="course-1"):
        return f"{self.base_url}/lti/contexts/{self._context_key(context_id)}/memberships"

    def line_items_url(self, context_id="course-1"):
        return f"{self.base_url}/lti/contexts/{self._context_key(context_id)}/lineitems"

    # Keys ----------------------------------------------------------------------------------------

    @property
    def signing_key(self):
        """The key id_tokens are signed with now."""
        return self._keys[-1]

    def jwks(self):
        with self._lock:
            return {"keys": [key.public_jwk() for key in self._keys]}

    def rotate_key(self, keep_old=True):
        """A new signing key, as an LMS rotates its keys. With keep_old the old key stays in the key set
        (launches signed just before still verify); without it, the old key is gone at once."""
        new = _keys_ahead.take()
        with self._lock:
            self._keys = [*self._keys, new] if keep_old else [new]
        return new

    # Launch: OIDC third-party initiated login, then the authentication response --------------------

    def login_initiation(self, *, target_link_uri, login_hint, lti_message_hint="", extra=None, claims=None):
        """The form fields a platform sends (GET or POST) to the tool's OIDC login initiation URL. The
        platform remembers the login so that it can check the authentication request that follows.
        An lti_message_hint is made up when none is given, as LMSs always send one. `claims`, when
        given, is the message this login leads to when the tool's redirect reaches auth_url over
        HTTP (a browser following redirects); tests calling authentication_response pass it there.
        `extra` adds fields, e.g. {"lti1p3_new_window": "1"} to pass pylti1p3's cookie check page."""
        hint = lti_message_hint or "msg-" + secrets.token_urlsafe(8)
        with self._lock:
            self._logins[(login_hint, hint)] = {
                "login_hint": login_hint,
                "lti_message_hint": hint,
                "target_link_uri": target_link_uri,
                "claims": claims,
            }
        fields = {
            "iss": self.issuer,
            "login_hint": login_hint,
            "target_link_uri": target_link_uri,
            "lti_message_hint": hint,
            "client_id": self.client_id,
            "lti_deployment_id": self.deployment_id,
        }
        fields.update(extra or {})
        return fields

    def launch_page_url(self, login_url, *, target_link_uri, login_hint, claims, iframe=False, extra=None):
        """A page of this platform that posts a login initiation to the tool's `login_url` by itself, in
        the top window or, with iframe=True, into an iframe as an LMS embeds a tool (the case of the
        tool's cookie check and frame-ancestors). The whole launch then runs in the browser."""
        fields = self.login_initiation(target_link_uri=target_link_uri, login_hint=login_hint, extra=extra, claims=claims)
        page = secrets.token_hex(8)
        with self._lock:
            self._launch_pages[page] = {"login_url": login_url, "fields": fields, "iframe": iframe}
        return f"{self.base_url}/lti/launch/{page}"

    _TAMPER = frozenset({"wrong_key", "kid", "iss", "aud", "exp_offset", "nonce", "drop", "alg", "sub"})

    def authentication_response(self, auth_request_params, claims, **tamper):
        """Given the query parameters of the tool's redirect to auth_url, check them as a platform does
        (AuthenticationRequestError naming every mismatch), then return the form fields to POST to
        redirect_uri: {"id_token": ..., "state": ...}. `claims` go over the standard claims (iss, aud,
        azp, sub, exp, iat, nonce, deployment id, version, target_link_uri).

        `tamper` makes bad launches for the tool's security tests: wrong_key=True (signed by a key not
        in the key set, under the current kid), kid=..., iss=..., aud=..., sub=..., nonce=...,
        exp_offset=-3600 (expired), drop=[claim names], alg="HS256" (HMAC keyed with the public key:
        the algorithm-confusion attack) or alg="none" (unsigned)."""
        unknown = set(tamper) - self._TAMPER
        if unknown:
            raise TypeError(f"unknown tamper options: {sorted(unknown)}")
        params = {k: (v[0] if isinstance(v, (list, tuple)) else v) for k, v in auth_request_params.items()}
        login = self._check_authentication_request(params)

        now = int(time.time())
        body = {
            "iss": self.issuer,
            "aud": self.client_id,
            "azp": self.client_id,
            "sub": login["login_hint"],
            "exp": now + 600,
            "iat": now,
            "nonce": params["nonce"],
            DEPLOYMENT_ID: self.deployment_id,
            VERSION: "1.3.0",
            TARGET_LINK_URI: login["target_link_uri"],
        }
        body.update(claims)
        for name in ("iss", "aud", "sub", "nonce"):
            if name in tamper:
                body[name] = tamper[name]
        if "exp_offset" in tamper:
            body["exp"] = now + tamper["exp_offset"]
            if body["exp"] <= body["iat"]:
                body["iat"] = body["exp"] - 300
        for name in tamper.get("drop", ()):
            body.pop(name, None)

        token = self._sign_id_token(
            body, wrong_key=tamper.get("wrong_key", False), kid=tamper.get("kid"), alg=tamper.get("alg", "RS256")
        )
        with self._lock:
            self.launches.append(body)
            if body.get("sub"):
                self._launched_users.add(body["sub"])
        form = {"id_token": token}
        if params.get("state"):
            form["state"] = params["state"]
        return form

    def _check_authentication_request(self, params):
        problems = []
        if "openid" not in params.get("scope", "").split():
            problems.append(f"scope={params.get('scope')!r} lacks 'openid'")
        expected = {
            "response_type": "id_token",
            "response_mode": "form_post",
            "prompt": "none",
            "client_id": self.client_id,
        }
        for name, value in expected.items():
            if params.get(name) != value:
                problems.append(f"{name}={params.get(name)!r}, expected {value!r}")
        if not params.get("nonce"):
            problems.append("no nonce (required in the implicit flow)")
        login_hint, message_hint = params.get("login_hint"), params.get("lti_message_hint")
        with self._lock:
            login = self._logins.get((login_hint, message_hint))
            hints_sent = [hint for (user, hint) in self._logins if user == login_hint]
        if login is None:
            if hints_sent:
                problems.append(f"lti_message_hint={message_hint!r} is not the one sent with login_hint={login_hint!r}")
            else:
                problems.append(f"login_hint={login_hint!r} was not sent in any login initiation")
        redirect_uri = params.get("redirect_uri", "")
        if not redirect_uri:
            problems.append("no redirect_uri")
        elif self.redirect_uris:
            if redirect_uri not in self.redirect_uris:
                problems.append(f"redirect_uri={redirect_uri!r} is not registered ({self.redirect_uris})")
        elif login is not None:
            origin = urllib.parse.urlsplit(login["target_link_uri"])[:2]
            if urllib.parse.urlsplit(redirect_uri)[:2] != origin:
                problems.append(f"redirect_uri={redirect_uri!r} is not on the target_link_uri's origin")
        if problems:
            raise AuthenticationRequestError("authentication request refused: " + "; ".join(problems))
        return login

    def _sign_id_token(self, body, *, wrong_key=False, kid=None, alg="RS256"):
        current = self.signing_key
        kid = kid or current.kid
        if alg == "RS256":
            if wrong_key:
                if self._stranger_key is None:
                    self._stranger_key = _keys_ahead.take()
                return jwt.encode(body, self._stranger_key.private_key, algorithm="RS256", headers={"kid": kid})
            return jwt.encode(body, current.private_key, algorithm="RS256", headers={"kid": kid})
        header = {"alg": alg, "typ": "JWT", "kid": kid}
        signing_input = f"{_b64url(json.dumps(header).encode())}.{_b64url(json.dumps(body).encode())}"
        if alg == "none":
            return signing_input + "."
        if alg == "HS256":
            # PyJWT refuses a PEM as an HMAC secret, which is the point: a tool must refuse it too.
            mac = hmac.new(current.public_pem.encode(), signing_input.encode(), hashlib.sha256).digest()
            return f"{signing_input}.{_b64url(mac)}"
        raise ValueError(f"alg {alg!r}: RS256, HS256 or none")

    # Message claims ------------------------------------------------------------------------------

    def _person_claims(self, user_id, name, email, roles):
        claims = {"sub": user_id, ROLES: [role_uri(r) for r in roles]}
        if name:
            given, _, family = name.partition(" ")
            claims.update(name=name, given_name=given, family_name=family)
        if email:
            claims["email"] = email
        return claims

    def _context_claim(self, context_id, context_title):
        self._context_key(context_id, title=context_title)
        return {
            "id": context_id,
            "label": context_id,
            "title": context_title,
            "type": ["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"],
        }

    def _tool_platform_claim(self):
        return {"guid": "test-lms-" + self.client_id, "name": self.name, "product_family_code": "test-lms", "version": "1"}

    def resource_link_claims(
        self,
        *,
        user_id,
        name="",
        email="",
        roles=("Learner",),
        context_id="course-1",
        context_title="Course 1",
        resource_link_id="link-1",
        resource_link_title="",
        custom=None,
        ags=True,
        nrps=True,
        line_item_url=None,
    ):
        """The claims of an LtiResourceLinkRequest, a learner or instructor following a link in a
        course. Roles are given short (see role_uri) and sent as full URIs. The AGS endpoint claim
        carries all four AGS scopes and the course's line items URL, and `lineitem` when the link has
        one: `line_item_url`, else the line item bound to this resource link (add_line_item), none
        with line_item_url=False. Dates an LMS gives (available/due) travel as `custom` parameters,
        as LMSs substitute them ($ResourceLink.submission.endDateTime...)."""
        claims = {
            MESSAGE_TYPE: "LtiResourceLinkRequest",
            **self._person_claims(user_id, name, email, roles),
            CONTEXT: self._context_claim(context_id, context_title),
            RESOURCE_LINK: {"id": resource_link_id, "title": resource_link_title or resource_link_id},
            LAUNCH_PRESENTATION: {"document_target": "iframe", "return_url": self.return_url, "locale": "en"},
            TOOL_PLATFORM: self._tool_platform_claim(),
        }
        if custom:
            claims[CUSTOM] = dict(custom)
        if ags:
            endpoint = {"scope": list(AGS_SCOPES), "lineitems": self.line_items_url(context_id)}
            if line_item_url is None:
                line_item_url = self._line_item_for_link(context_id, resource_link_id)
            if line_item_url:
                endpoint["lineitem"] = line_item_url
            claims[AGS_ENDPOINT] = endpoint
        if nrps:
            claims[NRPS_CLAIM] = {"context_memberships_url": self.memberships_url(context_id), "service_versions": ["2.0"]}
        return claims

    def deep_linking_claims(
        self,
        *,
        user_id,
        name="",
        email="",
        roles=("Instructor",),
        context_id="course-1",
        context_title="Course 1",
        accept_types=("ltiResourceLink",),
        accept_multiple=True,
        data="opaque",
        ags=True,
        nrps=True,
    ):
        """The claims of an LtiDeepLinkingRequest, an instructor's "add activity" picker. Its
        deep_link_return_url is served here; the response the tool posts there is verified against
        these settings (accepted types, multiple, data echoed) and recorded in deep_link_responses."""
        return_id = secrets.token_hex(8)
        with self._lock:
            self._deep_link_requests[return_id] = {
                "accept_types": list(accept_types),
                "accept_multiple": accept_multiple,
                "data": data,
                "context_id": context_id,
            }
        settings = {
            "deep_link_return_url": f"{self.base_url}/lti/deep-link-return/{return_id}",
            "accept_types": list(accept_types),
            "accept_presentation_document_targets": ["iframe", "window"],
            "accept_multiple": accept_multiple,
            "accept_lineitem": True,
            "auto_create": False,
            "title": "Add an activity",
        }
        if data is not None:
            settings["data"] = data
        claims = {
            MESSAGE_TYPE: "LtiDeepLinkingRequest",
            **self._person_claims(user_id, name, email, roles),
            CONTEXT: self._context_claim(context_id, context_title),
            DL_SETTINGS: settings,
            LAUNCH_PRESENTATION: {"document_target": "iframe", "return_url": self.return_url, "locale": "en"},
            TOOL_PLATFORM: self._tool_platform_claim(),
        }
        if ags:
            claims[AGS_ENDPOINT] = {"scope": list(AGS_SCOPES), "lineitems": self.line_items_url(context_id)}
        if nrps:
            claims[NRPS_CLAIM] = {"context_memberships_url": self.memberships_url(context_id), "service_versions": ["2.0"]}
        return claims

    # Services: state a test sets up -------------------------------------------------------------

    def add_line_item(
        self, *, context_id="course-1", label="Activity", score_maximum=100, resource_link_id=None,
        resource_id=None, tag=None, start_date_time=None, end_date_time=None,
    ):
        """A gradebook column, as an instructor makes with a graded activity; returns it (its "id" is
        its URL). Bound to `resource_link_id`, it becomes the lineitem of that link's launches."""
        item = {"label": label, "scoreMaximum": score_maximum}
        optional = {
            "resourceLinkId": resource_link_id, "resourceId": resource_id, "tag": tag,
            "startDateTime": start_date_time, "endDateTime": end_date_time,
        }
        item.update({k: v for k, v in optional.items() if v is not None})
        return self._store_line_item(self._context_key(context_id), item)

    def _store_line_item(self, context_key, fields):
        with self._lock:
            number = next(self._line_item_numbers)
            item = {"id": f"{self.base_url}/lti/contexts/{context_key}/lineitems/{number}", **fields}
            self.line_items.append(item)
            return item

    def _line_item_for_link(self, context_id, resource_link_id):
        prefix = self.line_items_url(context_id) + "/"
        with self._lock:
            for item in self.line_items:
                if item["id"].startswith(prefix) and item.get("resourceLinkId") == resource_link_id:
                    return item["id"]
        return None

    def results(self, line_item_id):
        """The gradebook's current results for a line item: per user, the latest score applied."""
        latest = {}
        with self._lock:
            item = next((i for i in self.line_items if i["id"] == line_item_id), None)
            for score in self.scores:
                if score["lineItem"] == line_item_id and score["applied"]:
                    latest[score["userId"]] = score
        if item is None:
            return []
        results = []
        for user_id, score in latest.items():
            result = {"id": f"{line_item_id}/results/{urllib.parse.quote(user_id, safe='')}", "scoreOf": line_item_id,
                      "userId": user_id, "resultMaximum": item["scoreMaximum"]}
            if score.get("scoreGiven") is not None:
                result["resultScore"] = score["scoreGiven"] * item["scoreMaximum"] / score["scoreMaximum"]
            if score.get("comment"):
                result["comment"] = score["comment"]
            results.append(result)
        return results

    def fail_next(self, n, status=500, *, include_token=False):
        """The next `n` service calls (NRPS, AGS; the token endpoint too with include_token) answer
        `status` without doing anything: an LMS down or overloaded, for the tool's retry tests."""
        with self._lock:
            self._failures.extend([(status, include_token)] * n)

    def expire_tokens(self):
        """Every access token issued so far stops working (401), as when an LMS's tokens run out: the
        tool must ask the token endpoint again."""
        with self._lock:
            for grant in self._tokens.values():
                grant["expires_at"] = 0

    def requests_to(self, path_fragment, method=None):
        """The recorded requests whose path contains `path_fragment`."""
        with self._lock:
            return [r for r in self.requests if path_fragment in r.path and (method is None or r.method == method)]

    # Tool keys and the JWTs the tool signs -------------------------------------------------------

    def _tool_key_set(self):
        if self.tool_jwks is not None:
            return self.tool_jwks
        if not self.tool_jwks_url:
            raise ToolJWTError("the platform knows no key set of the tool: set tool_jwks_url or tool_jwks")
        self.tool_jwks_fetches += 1
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(self.tool_jwks_url, timeout=10) as response:
                return json.loads(response.read())
        except (urllib.error.URLError, OSError, ValueError) as error:
            raise ToolJWTError(f"the tool's key set at {self.tool_jwks_url} could not be read: {error}") from error

    def verify_tool_jwt(self, token, *, audience, require=("exp", "iat")):
        """The claims of a JWT the tool signed, checked as a platform checks them: RS256 only, a kid
        found in the tool's key set, signature, iss = client_id, `audience` in aud, exp not passed,
        iat not ahead; ToolJWTError otherwise."""
        try:
            header = jwt.get_unverified_header(token)
        except jwt.DecodeError as error:
            raise ToolJWTError(f"not a JWT: {error}") from error
        if header.get("alg") != "RS256":
            raise ToolJWTError(f"alg {header.get('alg')!r} refused: RS256 only")
        kid = header.get("kid")
        if not kid:
            raise ToolJWTError("no kid in the JWT header")
        keys = self._tool_key_set().get("keys", [])
        jwk = next((k for k in keys if k.get("kid") == kid), None)
        if jwk is None:
            raise ToolJWTError(f"kid {kid!r} is not in the tool's key set ({[k.get('kid') for k in keys]})")
        if jwk.get("kty") != "RSA" or jwk.get("alg", "RS256") != "RS256":
            raise ToolJWTError(f"key {kid!r} is not an RS256 key")
        public_key = RSAAlgorithm.from_jwk(json.dumps(jwk))
        try:
            claims = jwt.decode(
                token, public_key, algorithms=["RS256"], audience=audience, issuer=self.client_id,
                leeway=LEEWAY, options={"require": ["iss", "aud", *require]},
            )
        except jwt.InvalidTokenError as error:
            raise ToolJWTError(f"{type(error).__name__}: {error}") from error
        if claims["iat"] > time.time() + LEEWAY:
            raise ToolJWTError("iat is in the future")
        return claims

    # HTTP ----------------------------------------------------------------------------------------

    def _make_routes(self):
        ctx = r"/lti/contexts/(?P<ctx>[0-9a-f]+)"
        item = ctx + r"/lineitems/(?P<n>\d+)"
        routes = [
            ("GET", r"/lti/certs", self._serve_jwks, None),
            ("GET", r"/lti/openid-configuration", self._serve_openid_configuration, None),
            ("POST", r"/lti/register", self._serve_registration, None),
            ("GET", r"/lti/auth", self._serve_auth, None),
            ("POST", r"/lti/auth", self._serve_auth, None),
            ("POST", r"/lti/token", self._serve_token, "token"),
            ("GET", r"/lti/return", self._serve_return, None),
            ("GET", r"/lti/launch/(?P<page>[0-9a-f]+)", self._serve_launch_page, None),
            ("POST", r"/lti/deep-link-return/(?P<rid>[0-9a-f]+)", self._serve_deep_link_return, None),
            ("GET", ctx + r"/memberships", self._serve_memberships, "service"),
            ("GET", ctx + r"/lineitems", self._serve_line_items, "service"),
            ("POST", ctx + r"/lineitems", self._serve_create_line_item, "service"),
            ("GET", item, self._serve_line_item, "service"),
            ("PUT", item, self._serve_update_line_item, "service"),
            ("DELETE", item, self._serve_delete_line_item, "service"),
            ("POST", item + r"/scores", self._serve_score, "service"),
            ("GET", item + r"/results", self._serve_results, "service"),
        ]
        return [(method, re.compile(pattern), view, kind) for method, pattern, view, kind in routes]

    def _handle(self, handler, method):
        split = urllib.parse.urlsplit(handler.path)
        length = int(handler.headers.get("Content-Length") or 0)
        request = RecordedRequest(
            method=method,
            path=split.path,
            query=dict(urllib.parse.parse_qsl(split.query, keep_blank_values=True)),
            headers={k.lower(): v for k, v in handler.headers.items()},
            body=handler.rfile.read(length) if length else b"",
        )
        with self._lock:
            self.requests.append(request)
        try:
            response = self._route(request, method, split)
        except _HTTPError as error:
            if error.error:
                response = _json_response({"error": error.error, "error_description": error.message}, error.status,
                                          headers=error.headers)
            else:
                response = _Response(error.status, error.message.encode(), headers=error.headers)
        except Exception:  # noqa: BLE001 - a bug here answers 500 with its traceback, as a server does
            response = _Response(500, traceback.format_exc().encode())
        request.status = response.status
        handler.send_response(response.status)
        handler.send_header("Content-Type", response.content_type)
        handler.send_header("Content-Length", str(len(response.body)))
        handler.send_header("Cache-Control", "no-store")
        for name, value in response.headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(response.body)

    def _route(self, request, method, split):
        allowed = False
        for route_method, pattern, view, kind in self._routes:
            match = pattern.fullmatch(split.path)
            if not match:
                continue
            allowed = True
            if route_method != method:
                continue
            if kind is not None:
                with self._lock:
                    failure = None
                    for index, (status, include_token) in enumerate(self._failures):
                        if kind == "service" or include_token:
                            failure = self._failures.pop(index)[0]
                            break
                if failure is not None:
                    raise _HTTPError(failure, "failing as asked (fail_next)", error="temporarily_unavailable")
            return view(request, split, **match.groupdict())
        if allowed:
            raise _HTTPError(405, f"{method} not allowed here")
        raise _HTTPError(404, f"no such page: {split.path}")

    def _serve_jwks(self, request, split):
        return _json_response(self.jwks())

    # Dynamic Registration ---------------------------------------------------------------------------

    def dynamic_registration_url(self, tool_url, *, token_lifetime=3600):
        """The address the platform opens (in a frame or a window) when its administrator registers a
        tool by URL: `tool_url` with openid_configuration and a fresh registration_token, which the
        tool must send as a bearer token to both endpoints; it works for `token_lifetime` seconds, for
        one registration."""
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._registration_tokens[token] = time.time() + token_lifetime
        split = urllib.parse.urlsplit(tool_url)
        query = urllib.parse.parse_qsl(split.query) + [
            ("openid_configuration", self.openid_configuration_url), ("registration_token", token)]
        return urllib.parse.urlunsplit(split._replace(query=urllib.parse.urlencode(query)))

    def openid_configuration(self):
        """The platform's OpenID configuration (Dynamic Registration 1.0, 3.4), as Moodle publishes it,
        with openid_configuration_changes applied."""
        configuration = {
            "issuer": self.issuer,
            "authorization_endpoint": self.auth_url,
            "token_endpoint": self.token_url,
            "token_endpoint_auth_methods_supported": ["private_key_jwt"],
            "token_endpoint_auth_signing_alg_values_supported": ["RS256"],
            "jwks_uri": self.keyset_url,
            "registration_endpoint": self.registration_endpoint,
            "scopes_supported": ["openid", *ALL_SCOPES],
            "response_types_supported": ["id_token"],
            "subject_types_supported": ["public", "pairwise"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "claims_supported": list(SUPPORTED_CLAIMS),
            PLATFORM_CONFIGURATION: {
                "product_family_code": "testlms",
                "version": "1",
                "messages_supported": [{"type": kind} for kind in REGISTRATION_MESSAGES],
            },
        }
        if self.token_audience:
            configuration["authorization_server"] = self.token_audience
        configuration.update(self.openid_configuration_changes)
        return configuration

    def _registration_token(self, request):
        """The bearer token of a Dynamic Registration request, which this platform issued, unused and
        unexpired (401 otherwise)."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise _HTTPError(401, "no registration token", error="invalid_token",
                             headers={"WWW-Authenticate": "Bearer"})
        with self._lock:
            expires_at = self._registration_tokens.get(token)
        if expires_at is None or expires_at < time.time():
            raise _HTTPError(401, "unknown, used or expired registration token", error="invalid_token",
                             headers={"WWW-Authenticate": 'Bearer error="invalid_token"'})
        return token

    def _serve_openid_configuration(self, request, split):
        self._registration_token(request)
        self._closing.wait(self.configuration_delay)
        return _json_response(self.openid_configuration())

    def _serve_registration(self, request, split):
        """A tool's registration (Dynamic Registration 1.0, 3.5): its bearer token checked, its
        message checked as a platform checks it (OpenID client metadata, then the tool's LTI
        configuration), then recorded in tool_registrations and answered with the message, the client
        id made for it, the scopes granted and the deployment id. The token is used up by it."""
        token = self._registration_token(request)
        self._closing.wait(self.registration_delay)
        if self.registration_refusal:
            status, error, description = self.registration_refusal
            with self._lock:
                self.registration_rejections.append(description)
            raise _HTTPError(status, description, error=error)
        if "application/json" not in request.headers.get("content-type", ""):
            raise _HTTPError(400, "Content-Type must be application/json", error="invalid_client_metadata")
        try:
            message = request.json()
        except ValueError as error:
            raise _HTTPError(400, f"not JSON: {error}", error="invalid_client_metadata") from error
        problems = self._check_tool_registration(message) if isinstance(message, dict) else ["not a JSON object"]
        if problems:
            with self._lock:
                self.registration_rejections.append("; ".join(problems))
            kind = "invalid_redirect_uri" if any("redirect_uri" in p for p in problems) else "invalid_client_metadata"
            raise _HTTPError(400, "; ".join(problems), error=kind)
        granted = [scope for scope in message.get("scope", "").split() if scope in ALL_SCOPES]
        with self._lock:
            if self._registration_tokens.pop(token, None) is None:
                raise _HTTPError(401, "registration token used meanwhile", error="invalid_token")
            number = next(self._registration_numbers)
            client_id, deployment_id = f"dyn-client-{number}-{secrets.token_hex(4)}", f"dyn-deployment-{number}"
            self.tool_registrations.append({
                "message": message, "client_id": client_id, "deployment_id": deployment_id, "scopes": granted,
            })
            if self.adopt_registrations:
                self.client_id, self.deployment_id = client_id, deployment_id
                self.redirect_uris = list(message["redirect_uris"])
                self.tool_login_url = message["initiate_login_uri"]
                self.granted_scopes = tuple(granted)
                if self.tool_jwks is None:
                    self.tool_jwks_url = message["jwks_uri"]
        configuration = dict(message[TOOL_CONFIGURATION])
        if self.answer_deployment_id:
            configuration["deployment_id"] = deployment_id
        return _json_response({**message, "client_id": client_id, "scope": " ".join(granted),
                               TOOL_CONFIGURATION: configuration})

    def _check_tool_registration(self, message):
        """What a platform refuses in a tool's registration (OpenID Connect Dynamic Client
        Registration with LTI's rules, as Moodle checks them): every problem, one string each."""
        problems = []

        def absolute(value, what):
            parts = urllib.parse.urlsplit(value) if isinstance(value, str) else None
            if parts is None or parts.scheme not in ("http", "https") or not parts.netloc or parts.fragment:
                problems.append(f"{what} {value!r} is not an absolute URL")
                return None
            return parts

        if message.get("application_type", "web") != "web":
            problems.append(f"application_type {message.get('application_type')!r}, expected 'web'")
        if "id_token" not in (message.get("response_types") or []):
            problems.append("response_types must include id_token")
        for grant in ("implicit", "client_credentials"):
            if grant not in (message.get("grant_types") or []):
                problems.append(f"grant_types must include {grant}")
        if message.get("token_endpoint_auth_method") != "private_key_jwt":
            problems.append("token_endpoint_auth_method must be private_key_jwt")
        if not isinstance(message.get("client_name"), str) or not message["client_name"].strip():
            problems.append("no client_name")
        if not isinstance(message.get("scope", ""), str):
            problems.append("scope must be a string of scopes")
        absolute(message.get("jwks_uri"), "jwks_uri")
        login = absolute(message.get("initiate_login_uri"), "initiate_login_uri")
        redirect_uris = message.get("redirect_uris")
        if not isinstance(redirect_uris, list) or not redirect_uris:
            problems.append("redirect_uris must be a list of the tool's launch URLs")
            redirect_uris = []
        configuration = message.get(TOOL_CONFIGURATION)
        if not isinstance(configuration, dict):
            return [*problems, f"no {TOOL_CONFIGURATION} object"]
        domain = configuration.get("domain")
        if not isinstance(domain, str) or not domain:
            problems.append("the tool configuration has no domain")
        secondary = configuration.get("secondary_domains") or []
        domains = {domain, *(secondary if isinstance(secondary, list) else [])}

        def on_the_tools_domain(parts, what):
            if parts is not None and parts.netloc not in domains:
                problems.append(f"{what} is not on the tool's domain {domain!r}")

        on_the_tools_domain(login, "initiate_login_uri")
        for uri in redirect_uris:
            on_the_tools_domain(absolute(uri, "redirect_uri"), f"redirect_uri {uri!r}")
        target = configuration.get("target_link_uri")
        on_the_tools_domain(absolute(target, "target_link_uri"), "target_link_uri")
        messages = configuration.get("messages")
        if not isinstance(messages, list):
            problems.append("the tool configuration's messages must be a list")
            messages = []
        for entry in messages:
            kind = entry.get("type") if isinstance(entry, dict) else None
            if kind not in REGISTRATION_MESSAGES:
                problems.append(f"message type {kind!r} not supported ({', '.join(REGISTRATION_MESSAGES)})")
            elif "target_link_uri" in entry:
                what = f"{kind} target_link_uri"
                on_the_tools_domain(absolute(entry["target_link_uri"], what), what)
        claims = configuration.get("claims")
        if not isinstance(claims, list) or not all(isinstance(claim, str) for claim in claims):
            problems.append("the tool configuration's claims must be a list of claim names")
        elif unknown := sorted(set(claims) - set(SUPPORTED_CLAIMS)):
            problems.append(f"claims {unknown} are not supported")
        return problems

    def _serve_return(self, request, split):
        message = request.query.get("lti_errormsg") or request.query.get("lti_msg") or ""
        return _html_response(f"<h1>Back in {html.escape(self.name)}</h1><p id='message'>{html.escape(message)}</p>")

    def _serve_launch_page(self, request, split, page):
        with self._lock:
            launch = self._launch_pages.get(page)
        if launch is None:
            raise _HTTPError(404, "no such launch page")
        if launch["iframe"]:
            form = _auto_post_form(launch["login_url"], launch["fields"], target="tool-frame")
            frame = '<iframe name="tool-frame" id="tool-frame" title="Tool" style="width:100%;height:80vh"></iframe>'
            return _html_response(f"<h1>{html.escape(self.name)}: course page</h1>{frame}{form}")
        return _html_response(_auto_post_form(launch["login_url"], launch["fields"]))

    def _serve_auth(self, request, split):
        params = request.query if request.method == "GET" else request.form()
        with self._lock:
            login = self._logins.get((params.get("login_hint"), params.get("lti_message_hint")))
        if login is not None and login["claims"] is None:
            raise _HTTPError(400, "no message bound to this login: pass claims= to login_initiation")
        try:
            fields = self.authentication_response(params, login["claims"] if login else {})
        except AuthenticationRequestError as error:
            raise _HTTPError(400, str(error)) from error
        return _html_response(_auto_post_form(params["redirect_uri"], fields))

    def _serve_token(self, request, split):
        """OAuth2 client credentials with a JWT client assertion (1EdTech Security Framework, RFC 7523)."""
        form = request.form()
        if form.get("grant_type") != "client_credentials":
            raise _HTTPError(400, f"grant_type {form.get('grant_type')!r}", error="unsupported_grant_type")
        if form.get("client_assertion_type") != JWT_BEARER:
            raise _HTTPError(400, f"client_assertion_type must be {JWT_BEARER}", error="invalid_request")
        if not form.get("client_assertion"):
            raise _HTTPError(400, "no client_assertion", error="invalid_request")
        try:
            claims = self.verify_tool_jwt(
                form["client_assertion"], audience=self.token_audience or self.token_url, require=("exp", "iat", "jti", "sub")
            )
            if claims["sub"] != self.client_id:
                raise ToolJWTError(f"sub {claims['sub']!r} is not the client id")
            with self._lock:
                if claims["jti"] in self._used_jtis:
                    raise ToolJWTError(f"jti {claims['jti']!r} already used")
                self._used_jtis.add(claims["jti"])
        except ToolJWTError as error:
            raise _HTTPError(401, str(error), error="invalid_client") from error
        requested = form.get("scope", "").split()
        granted = [scope for scope in requested if scope in self.granted_scopes]
        if not granted:
            raise _HTTPError(400, f"none of the scopes {requested} is granted to this tool", error="invalid_scope")
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._tokens[token] = {"scopes": set(granted), "expires_at": time.time() + self.token_lifetime}
        return _json_response(
            {"access_token": token, "token_type": "Bearer", "expires_in": self.token_lifetime, "scope": " ".join(granted)}
        )

    def _authorize(self, request, *scopes):
        """The bearer token's grant must hold one of `scopes` (RFC 6750 errors otherwise)."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise _HTTPError(401, "no bearer token", error="invalid_request", headers={"WWW-Authenticate": "Bearer"})
        with self._lock:
            grant = self._tokens.get(token.strip())
        if grant is None or grant["expires_at"] < time.time():
            raise _HTTPError(401, "unknown or expired access token", error="invalid_token",
                             headers={"WWW-Authenticate": 'Bearer error="invalid_token"'})
        if not grant["scopes"] & set(scopes):
            raise _HTTPError(403, f"the token's scopes lack {' or '.join(scopes)}", error="insufficient_scope",
                             headers={"WWW-Authenticate": 'Bearer error="insufficient_scope"'})

    def _context(self, key):
        with self._lock:
            context = self._contexts.get(key)
        if context is None:
            raise _HTTPError(404, "no such context")
        return dict(context)

    def _page(self, request, split, entries):
        """One page of `entries` and its Link header (rel="next") when more follow."""
        limit = int(request.query.get("limit") or self.page_size)
        page = int(request.query.get("page") or 1)
        chunk = entries[(page - 1) * limit:page * limit]
        headers = {}
        if page * limit < len(entries):
            query = {**request.query, "page": str(page + 1), "limit": str(limit)}
            next_url = f"{self.base_url}{split.path}?{urllib.parse.urlencode(query)}"
            headers["Link"] = f'<{next_url}>; rel="next"'
        return chunk, headers

    def _member_json(self, member):
        entry = {"status": "Active", **member}
        entry["roles"] = [role_uri(r) for r in member.get("roles", ("Learner",))]
        return entry

    def _serve_memberships(self, request, split, ctx):
        self._authorize(request, SCOPE_NRPS)
        context = self._context(ctx)
        with self._lock:
            members = [self._member_json(m) for m in self.members]
        role = request.query.get("role")
        if role:
            wanted = role_uri(role)
            members = [m for m in members if wanted in m["roles"]]
        chunk, headers = self._page(request, split, members)
        body = {"id": self.base_url + split.path, "context": context, "members": chunk}
        return _json_response(body, content_type=MEDIA_MEMBERSHIPS, headers=headers)

    def _items_of(self, ctx):
        prefix = f"{self.base_url}/lti/contexts/{ctx}/lineitems/"
        with self._lock:
            return [dict(i) for i in self.line_items if i["id"].startswith(prefix)]

    def _line_item(self, ctx, n):
        line_item_id = f"{self.base_url}/lti/contexts/{ctx}/lineitems/{n}"
        with self._lock:
            for item in self.line_items:
                if item["id"] == line_item_id:
                    return item
        raise _HTTPError(404, "no such line item")

    def _line_item_fields(self, request, media_type):
        if media_type not in request.headers.get("content-type", ""):
            raise _HTTPError(415, f"Content-Type must be {media_type}")
        try:
            body = request.json()
        except ValueError as error:
            raise _HTTPError(400, f"not JSON: {error}") from error
        if not isinstance(body, dict):
            raise _HTTPError(400, "a JSON object is expected")
        return body

    def _checked_line_item(self, body):
        score_maximum = body.get("scoreMaximum")
        if isinstance(score_maximum, bool) or not isinstance(score_maximum, (int, float)) or score_maximum <= 0:
            raise _HTTPError(400, "scoreMaximum must be a number above 0")
        if not isinstance(body.get("label"), str) or not body["label"].strip():
            raise _HTTPError(400, "label is required")
        kept = ("label", "scoreMaximum", "resourceId", "resourceLinkId", "tag", "startDateTime", "endDateTime",
                "submissionReview")
        return {k: body[k] for k in kept if body.get(k) is not None}

    def _serve_line_items(self, request, split, ctx):
        self._authorize(request, SCOPE_LINEITEM, SCOPE_LINEITEM_READONLY)
        self._context(ctx)
        items = self._items_of(ctx)
        filters = {"resource_link_id": "resourceLinkId", "resource_id": "resourceId", "tag": "tag"}
        for param, name in filters.items():
            if param in request.query:
                items = [i for i in items if i.get(name) == request.query[param]]
        chunk, headers = self._page(request, split, items)
        return _json_response(chunk, content_type=MEDIA_LINEITEMS, headers=headers)

    def _serve_create_line_item(self, request, split, ctx):
        self._authorize(request, SCOPE_LINEITEM)
        self._context(ctx)
        fields = self._checked_line_item(self._line_item_fields(request, MEDIA_LINEITEM))
        return _json_response(self._store_line_item(ctx, fields), 201, content_type=MEDIA_LINEITEM)

    def _serve_line_item(self, request, split, ctx, n):
        self._authorize(request, SCOPE_LINEITEM, SCOPE_LINEITEM_READONLY)
        return _json_response(dict(self._line_item(ctx, n)), content_type=MEDIA_LINEITEM)

    def _serve_update_line_item(self, request, split, ctx, n):
        self._authorize(request, SCOPE_LINEITEM)
        item = self._line_item(ctx, n)
        fields = self._checked_line_item(self._line_item_fields(request, MEDIA_LINEITEM))
        with self._lock:
            fields.pop("resourceLinkId", None)  # a line item stays bound to its link
            bound = {"id": item["id"], **({"resourceLinkId": item["resourceLinkId"]} if "resourceLinkId" in item else {})}
            item.clear()
            item.update(bound, **fields)
            return _json_response(dict(item), content_type=MEDIA_LINEITEM)

    def _serve_delete_line_item(self, request, split, ctx, n):
        self._authorize(request, SCOPE_LINEITEM)
        item = self._line_item(ctx, n)
        with self._lock:
            self.line_items.remove(item)
        return _Response(204)

    def _serve_score(self, request, split, ctx, n):
        """A score published for a user (AGS score service): checked, recorded with when it came, and applied to
        the gradebook unless a later one is on record."""
        self._authorize(request, SCOPE_SCORE)
        item = self._line_item(ctx, n)
        score = self._line_item_fields(request, MEDIA_SCORE)
        problems = []
        if not isinstance(score.get("userId"), str) or not score["userId"]:
            problems.append("userId is required")
        if score.get("activityProgress") not in ACTIVITY_PROGRESS:
            problems.append(f"activityProgress {score.get('activityProgress')!r} not in {sorted(ACTIVITY_PROGRESS)}")
        if score.get("gradingProgress") not in GRADING_PROGRESS:
            problems.append(f"gradingProgress {score.get('gradingProgress')!r} not in {sorted(GRADING_PROGRESS)}")
        timestamp = _parse_timestamp(score.get("timestamp"))
        if timestamp is None:
            problems.append(f"timestamp {score.get('timestamp')!r} is not ISO 8601 with a time zone")
        given, maximum = score.get("scoreGiven"), score.get("scoreMaximum")
        if given is not None:
            if isinstance(given, bool) or not isinstance(given, (int, float)) or given < 0:
                problems.append("scoreGiven must be a number, 0 or more")
            if isinstance(maximum, bool) or not isinstance(maximum, (int, float)) or maximum <= 0:
                problems.append("scoreMaximum (above 0) is required with scoreGiven")
        if problems:
            raise _HTTPError(400, "; ".join(problems))
        with self._lock:
            known = {m.get("user_id") for m in self.members} | self._launched_users
            if self.check_score_users and score["userId"] not in known:
                raise _HTTPError(422, f"user {score['userId']!r} is not in this course")
            previous = [s for s in self.scores if s["lineItem"] == item["id"] and s["userId"] == score["userId"]
                        and s["applied"]]
            applied = not previous or _parse_timestamp(previous[-1]["timestamp"]) <= timestamp
            self.scores.append({
                **score, "lineItem": item["id"], "received_at": dt.datetime.now(dt.UTC), "applied": applied,
            })
        if not applied and self.stale_score_status:
            raise _HTTPError(self.stale_score_status, "a later score is on record for this user")
        return _Response(204)

    def _serve_results(self, request, split, ctx, n):
        self._authorize(request, SCOPE_RESULT_READONLY)
        item = self._line_item(ctx, n)
        results = self.results(item["id"])
        if "user_id" in request.query:
            results = [r for r in results if r["userId"] == request.query["user_id"]]
        return _json_response(results, content_type=MEDIA_RESULTS)

    def _serve_deep_link_return(self, request, split, rid):
        """The tool's LtiDeepLinkingResponse (Deep Linking 2.0): verified against the tool's keys
        and the request's settings, then recorded; an ltiResourceLink becomes a link of the course
        (with its line item when it asks for one), as an LMS adds the activity."""
        with self._lock:
            settings = self._deep_link_requests.get(rid)
        if settings is None:
            raise _HTTPError(404, "no such deep linking request")
        token = request.form().get("JWT", "")
        try:
            claims = self.verify_tool_jwt(token, audience=self.issuer, require=("exp", "iat", "nonce"))
            items = self._check_deep_link_response(claims, settings)
        except ToolJWTError as error:
            with self._lock:
                self.deep_link_rejections.append(str(error))
            raise _HTTPError(400, f"deep linking response refused: {error}") from error
        links = []
        for index, item in enumerate(items):
            if item.get("type") != "ltiResourceLink":
                continue
            link = {"resource_link_id": f"link-{rid}-{index + 1}", "content_item": item, "line_item": None}
            if isinstance(item.get("lineItem"), dict):
                fields = {"label": item.get("title") or "Activity", **item["lineItem"],
                          "resourceLinkId": link["resource_link_id"]}
                link["line_item"] = self._store_line_item(self._context_key(settings["context_id"]), fields)
            links.append(link)
        with self._lock:
            self.deep_link_responses.append({
                "claims": claims, "header": jwt.get_unverified_header(token), "content_items": items,
                "links": links, "return_id": rid,
            })
        message = claims.get("https://purl.imsglobal.org/spec/lti-dl/claim/msg") or f"{len(items)} item(s) added"
        return _html_response(f"<h1>{html.escape(self.name)}</h1><p id='message'>{html.escape(message)}</p>")

    def _check_deep_link_response(self, claims, settings):
        problems = []
        if claims.get(MESSAGE_TYPE) != "LtiDeepLinkingResponse":
            problems.append(f"message_type {claims.get(MESSAGE_TYPE)!r}")
        if claims.get(VERSION) != "1.3.0":
            problems.append(f"version {claims.get(VERSION)!r}")
        if claims.get(DEPLOYMENT_ID) != self.deployment_id:
            problems.append(f"deployment_id {claims.get(DEPLOYMENT_ID)!r}, expected {self.deployment_id!r}")
        if settings["data"] is not None and claims.get(DL_DATA) != settings["data"]:
            problems.append(f"data {claims.get(DL_DATA)!r} does not echo the request's {settings['data']!r}")
        items = claims.get(DL_CONTENT_ITEMS) or []
        if not isinstance(items, list):
            problems.append("content_items is not a list")
            items = []
        for item in items:
            kind = item.get("type") if isinstance(item, dict) else None
            if kind not in settings["accept_types"]:
                problems.append(f"content item type {kind!r} not accepted ({settings['accept_types']})")
            line_item = item.get("lineItem") if isinstance(item, dict) else None
            if line_item is not None:
                maximum = line_item.get("scoreMaximum") if isinstance(line_item, dict) else None
                if isinstance(maximum, bool) or not isinstance(maximum, (int, float)) or maximum <= 0:
                    problems.append("a content item's lineItem needs scoreMaximum above 0")
        if len(items) > 1 and not settings["accept_multiple"]:
            problems.append(f"{len(items)} content items where one is accepted")
        with self._lock:
            if claims["nonce"] in self._used_deep_link_nonces:
                problems.append("nonce already used")
            elif not problems:
                self._used_deep_link_nonces.add(claims["nonce"])
        if problems:
            raise ToolJWTError("; ".join(problems))
        return items


class _Handler(BaseHTTPRequestHandler):
    platform = None  # set on the subclass each Platform makes
    server_version = "TestLMS/1.0"

    def log_message(self, format, *args):  # the tests read platform.requests instead
        pass

    def do_GET(self):
        self.platform._handle(self, "GET")

    def do_POST(self):
        self.platform._handle(self, "POST")

    def do_PUT(self):
        self.platform._handle(self, "PUT")

    def do_DELETE(self):
        self.platform._handle(self, "DELETE")
