"""The LTI platform the tool's tests run against (tests/lti_platform.py) must itself be right: a
platform that accepted anything would let a careless tool pass. These tests hold it to the
specification from both sides: with PyJWT and plain HTTP, and with pylti1p3 (the library under
django-lti) acting as the tool, so that what the platform sends passes every check the tool's
library makes and what the library sends is what the platform accepts. No mocks: real keys, real
HTTP on 127.0.0.1."""

import json
import re
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
import pytest
import requests
from pylti1p3.assignments_grades import AssignmentsGradesService
from pylti1p3.cookie import CookieService
from pylti1p3.deep_link import DeepLink
from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.exception import LtiException, LtiServiceException
from pylti1p3.grade import Grade
from pylti1p3.lineitem import LineItem
from pylti1p3.message_launch import MessageLaunch
from pylti1p3.names_roles import NamesRolesProvisioningService
from pylti1p3.oidc_login import OIDCLogin
from pylti1p3.redirect import Redirect
from pylti1p3.registration import Registration
from pylti1p3.request import Request
from pylti1p3.service_connector import ServiceConnector
from pylti1p3.session import SessionService
from pylti1p3.tool_config import ToolConfDict

from tests.lti_platform import (
    AGS_ENDPOINT,
    CONTEXT,
    DEPLOYMENT_ID,
    DL_CONTENT_ITEMS,
    DL_DATA,
    DL_SETTINGS,
    JWT_BEARER,
    MEDIA_SCORE,
    MESSAGE_TYPE,
    NRPS_CLAIM,
    ROLES,
    SCOPE_LINEITEM,
    SCOPE_NRPS,
    SCOPE_SCORE,
    VERSION,
    AuthenticationRequestError,
    Platform,
    SigningKey,
    role_uri,
)

TOOL = "https://tool.example"
LAUNCH_URL = TOOL + "/lti/launch/"


@pytest.fixture(scope="module")
def tool_key():
    return SigningKey.generate()


@pytest.fixture(scope="module")
def stranger_key():
    return SigningKey.generate()


@pytest.fixture
def platform(tool_key):
    with Platform() as platform:
        platform.tool_jwks = tool_key.jwks()
        yield platform


# The tool side, as pylti1p3 runs it, in memory (a browser's session and cookies as dicts) ------------


class _Browser:
    def __init__(self):
        self.session, self.cookies = {}, {}


class _ToolRequest(Request):
    def __init__(self, params, browser):
        self._params, self._browser = params, browser

    @property
    def session(self):
        return self._browser.session

    def is_secure(self):
        return False

    def get_param(self, key):
        return self._params.get(key)


class _Cookies(CookieService):
    def __init__(self, browser):
        self._jar = browser.cookies

    def get_cookie(self, name):
        return self._jar.get(f"{self._cookie_prefix}-{name}")

    def set_cookie(self, name, value, exp=3600):
        self._jar[f"{self._cookie_prefix}-{name}"] = value


class _Redirect(Redirect):
    def __init__(self, url):
        self._url = url

    def do_redirect(self):
        return self._url

    do_js_redirect = get_redirect_url = do_redirect

    def set_redirect_url(self, location):
        self._url = location


class _Login(OIDCLogin):
    def get_redirect(self, url):
        return _Redirect(url)


class _Launch(MessageLaunch):
    def _get_request_param(self, key):
        return self._request.get_param(key)


class MiniTool:
    """pylti1p3's OIDC login and message launch with the platform registered, and one browser: the
    checks django-lti will make, run on what this platform sends."""

    def __init__(self, platform, key):
        self.platform, self.browser = platform, _Browser()
        self.config = ToolConfDict({platform.issuer: [{
            "default": True,
            "client_id": platform.client_id,
            "auth_login_url": platform.auth_url,
            "auth_token_url": platform.token_url,
            "key_set_url": platform.keyset_url,
            "deployment_ids": [platform.deployment_id],
        }]})
        self.config.set_private_key(platform.issuer, key.private_pem, client_id=platform.client_id)
        self.config.set_public_key(platform.issuer, key.public_pem, client_id=platform.client_id)

    def registration(self):
        return self.config.find_registration_by_params(self.platform.issuer, self.platform.client_id)

    def login(self, fields):
        """The query parameters of the tool's redirect to the platform's auth_url."""
        request = _ToolRequest(fields, self.browser)
        login = _Login(request, self.config, SessionService(request), _Cookies(self.browser))
        location = login.redirect(LAUNCH_URL)
        assert location.startswith(self.platform.auth_url + "?")
        return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))

    def launch(self, form):
        request = _ToolRequest(form, self.browser)
        launch = _Launch(request, self.config, session_service=SessionService(request), cookie_service=_Cookies(self.browser))
        return launch.validate()


def start_launch(platform, tool, user_id="u1"):
    fields = platform.login_initiation(target_link_uri=LAUNCH_URL, login_hint=user_id)
    return tool.login(fields)


# Keys and id_tokens ----------------------------------------------------------------------------------


def test_key_set_serves_the_signing_key_and_the_old_one_after_rotation(platform):
    def kids():
        return [k["kid"] for k in requests.get(platform.keyset_url, timeout=5).json()["keys"]]

    first = platform.signing_key.kid
    assert kids() == [first]
    second = platform.rotate_key().kid
    assert second != first and platform.signing_key.kid == second
    assert kids() == [first, second]
    third = platform.rotate_key(keep_old=False).kid
    assert kids() == [third]


def test_an_id_token_verifies_with_pyjwt_against_the_key_set_and_carries_the_standard_claims(platform, tool_key):
    tool = MiniTool(platform, tool_key)
    params = start_launch(platform, tool)
    form = platform.authentication_response(params, platform.resource_link_claims(user_id="u1", roles=("Instructor",)))
    assert form["state"] == params["state"]

    signing_key = jwt.PyJWKClient(platform.keyset_url).get_signing_key_from_jwt(form["id_token"])
    claims = jwt.decode(form["id_token"], signing_key.key, algorithms=["RS256"], audience=platform.client_id,
                        issuer=platform.issuer)
    assert claims["nonce"] == params["nonce"]
    assert claims["sub"] == "u1"
    assert claims[DEPLOYMENT_ID] == platform.deployment_id and claims[VERSION] == "1.3.0"
    assert claims[ROLES] == ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"]
    assert claims[AGS_ENDPOINT]["lineitems"] == platform.line_items_url("course-1")
    assert claims[NRPS_CLAIM]["context_memberships_url"] == platform.memberships_url("course-1")


def test_a_launch_passes_every_check_pylti1p3_makes(platform, tool_key):
    tool = MiniTool(platform, tool_key)
    params = start_launch(platform, tool)
    claims = platform.resource_link_claims(user_id="u1", name="Ada Lovelace", email="ada@example.org",
                                           custom={"due": "2030-01-01T00:00:00Z"})
    launch = tool.launch(platform.authentication_response(params, claims))
    assert launch.is_resource_launch() and launch.check_student_access() and not launch.check_teacher_access()
    assert launch.has_ags() and launch.has_nrps()
    data = launch.get_launch_data()
    assert data["given_name"] == "Ada" and data["email"] == "ada@example.org"
    assert data["https://purl.imsglobal.org/spec/lti/claim/custom"] == {"due": "2030-01-01T00:00:00Z"}

    params = start_launch(platform, tool, "t1")
    deep = tool.launch(platform.authentication_response(params, platform.deep_linking_claims(user_id="t1")))
    assert deep.is_deep_link_launch() and deep.check_teacher_access()


def test_a_launch_after_the_platform_rotated_its_key_still_verifies(platform, tool_key):
    tool = MiniTool(platform, tool_key)
    params = start_launch(platform, tool)
    platform.rotate_key(keep_old=False)
    form = platform.authentication_response(params, platform.resource_link_claims(user_id="u1"))
    assert jwt.get_unverified_header(form["id_token"])["kid"] == platform.signing_key.kid
    assert tool.launch(form).is_resource_launch()


TAMPERED = [
    ({"wrong_key": True}, "Can't decode id_token"),
    ({"kid": "no-such-key"}, "Unable to find public key"),
    ({"alg": "HS256"}, "Unable to find public key"),
    ({"alg": "none"}, "Unable to find public key"),
    ({"exp_offset": -3600}, "expired"),
    ({"iss": "https://evil.example"}, "not found"),
    ({"aud": "another-tool"}, "not found"),
    ({"nonce": "forged-nonce"}, "Invalid Nonce"),
    ({"drop": [DEPLOYMENT_ID]}, "deployment_id is not set"),
    ({"drop": [ROLES]}, "Missing Roles Claim"),
    ({"drop": [MESSAGE_TYPE]}, "Invalid message type"),
]


@pytest.mark.parametrize("tamper, refusal", TAMPERED, ids=[json.dumps(t) for t, _ in TAMPERED])
def test_a_tampered_id_token_is_refused_by_pyjwt_and_by_pylti1p3(platform, tool_key, tamper, refusal):
    tool = MiniTool(platform, tool_key)
    params = start_launch(platform, tool)
    form = platform.authentication_response(params, platform.resource_link_claims(user_id="u1"), **tamper)
    # An unknown issuer or client id: ToolConfDict raises a plain Exception (django-lti's config an
    # LtiException, "Registration not found").
    unregistered = "iss" in tamper or "aud" in tamper
    with pytest.raises(Exception if unregistered else LtiException, match=refusal):
        tool.launch(form)

    if "drop" in tamper or "nonce" in tamper:
        return  # signed correctly: the claims are what is wrong, which only the tool can tell
    with pytest.raises(jwt.PyJWTError):
        signing_key = jwt.PyJWKClient(platform.keyset_url).get_signing_key_from_jwt(form["id_token"])
        jwt.decode(form["id_token"], signing_key.key, algorithms=["RS256"], audience=platform.client_id,
                   issuer=platform.issuer)


def test_the_same_launch_untampered_is_accepted(platform, tool_key):
    # The counterpart of the tampered cases: the refusals above come from the tampering.
    tool = MiniTool(platform, tool_key)
    form = platform.authentication_response(start_launch(platform, tool), platform.resource_link_claims(user_id="u1"))
    assert tool.launch(form).get_launch_data()["sub"] == "u1"


def test_an_unknown_tamper_option_is_an_error_not_a_silent_good_token(platform, tool_key):
    params = start_launch(platform, MiniTool(platform, tool_key))
    with pytest.raises(TypeError, match="expired"):
        platform.authentication_response(params, {}, expired=True)


def test_the_authentication_request_is_checked_as_a_platform_does(platform, tool_key):
    params = start_launch(platform, MiniTool(platform, tool_key))
    claims = platform.resource_link_claims(user_id="u1")
    bad = [
        ({"response_mode": "query"}, "response_mode='query'"),
        ({"prompt": "login"}, "prompt='login'"),
        ({"scope": "profile"}, "lacks 'openid'"),
        ({"client_id": "someone-else"}, "client_id='someone-else'"),
        ({"nonce": ""}, "no nonce"),
        ({"login_hint": "u2"}, "was not sent in any login initiation"),
        ({"lti_message_hint": "other"}, "is not the one sent with login_hint"),
        ({"redirect_uri": "https://attacker.example/lti/launch/"}, "not on the target_link_uri's origin"),
    ]
    for change, message in bad:
        with pytest.raises(AuthenticationRequestError, match=message):
            platform.authentication_response({**params, **change}, claims)

    platform.redirect_uris = [TOOL + "/lti/other/"]
    with pytest.raises(AuthenticationRequestError, match="is not registered"):
        platform.authentication_response(params, claims)
    platform.redirect_uris = [LAUNCH_URL]
    assert platform.authentication_response(params, claims)["id_token"]


def test_login_initiation_sends_the_fields_the_spec_names(platform):
    fields = platform.login_initiation(target_link_uri=LAUNCH_URL, login_hint="u1", extra={"lti1p3_new_window": "1"})
    assert fields["iss"] == platform.issuer and fields["client_id"] == platform.client_id
    assert fields["lti_deployment_id"] == platform.deployment_id
    assert fields["target_link_uri"] == LAUNCH_URL and fields["login_hint"] == "u1"
    assert fields["lti_message_hint"] and fields["lti1p3_new_window"] == "1"


def test_a_configured_issuer_is_what_the_launch_says(tool_key):
    with Platform(issuer="https://lms.example") as platform:
        tool = MiniTool(platform, tool_key)
        launch = tool.launch(platform.authentication_response(start_launch(platform, tool),
                                                              platform.resource_link_claims(user_id="u1")))
        assert launch.get_iss() == "https://lms.example"


def test_the_browser_path_launch_page_then_auth_endpoint_posts_the_id_token(platform, tool_key):
    claims = platform.resource_link_claims(user_id="u1")
    page = requests.get(platform.launch_page_url(TOOL + "/lti/login/", target_link_uri=LAUNCH_URL, login_hint="u1",
                                                 claims=claims, iframe=True), timeout=5)
    assert page.status_code == 200
    assert 'action="https://tool.example/lti/login/"' in page.text and 'target="tool-frame"' in page.text
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', page.text))

    tool = MiniTool(platform, tool_key)
    params = tool.login(fields)
    answer = requests.get(platform.auth_url, params=params, timeout=5)
    assert answer.status_code == 200 and f'action="{LAUNCH_URL}"' in answer.text
    posted = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', answer.text))
    assert tool.launch(posted).get_launch_data()["sub"] == "u1"

    refused = requests.get(platform.auth_url, params={**params, "prompt": "login"}, timeout=5)
    assert refused.status_code == 400 and "prompt" in refused.text


# Token endpoint ---------------------------------------------------------------------------------------


def assertion(platform, key, **changes):
    now = int(time.time())
    claims = {"iss": platform.client_id, "sub": platform.client_id, "aud": platform.token_url, "iat": now,
              "exp": now + 60, "jti": f"jti-{time.monotonic_ns()}"}
    claims.update(changes)
    return key.sign({k: v for k, v in claims.items() if v is not None})


def ask_token(platform, client_assertion, scope=SCOPE_NRPS, **form):
    data = {"grant_type": "client_credentials", "client_assertion_type": JWT_BEARER,
            "client_assertion": client_assertion, "scope": scope, **form}
    return requests.post(platform.token_url, data=data, timeout=5)


def test_the_token_endpoint_accepts_a_good_assertion_and_grants_the_scopes_asked(platform, tool_key):
    answer = ask_token(platform, assertion(platform, tool_key), scope=f"{SCOPE_NRPS} {SCOPE_SCORE} https://x/other")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["token_type"] == "Bearer" and body["access_token"] and body["expires_in"] > 0
    assert body["scope"].split() == [SCOPE_NRPS, SCOPE_SCORE]


def test_the_token_endpoint_refuses_a_reused_jti(platform, tool_key):
    signed = assertion(platform, tool_key, jti="once")
    assert ask_token(platform, signed).status_code == 200
    again = ask_token(platform, signed)
    assert again.status_code == 401 and again.json()["error"] == "invalid_client"
    assert "already used" in again.json()["error_description"]


@pytest.mark.parametrize("changes, message", [
    ({"aud": "https://elsewhere.example/token"}, "InvalidAudience"),
    ({"iss": "another-client"}, "InvalidIssuer"),
    ({"sub": "another-client"}, "sub"),
    ({"exp": int(time.time()) - 600}, "Expired"),
    ({"jti": None}, "jti"),
])
def test_the_token_endpoint_refuses_a_bad_assertion(platform, tool_key, changes, message):
    answer = ask_token(platform, assertion(platform, tool_key, **changes))
    assert answer.status_code == 401 and answer.json()["error"] == "invalid_client"
    assert message in answer.json()["error_description"]


def test_the_token_endpoint_refuses_an_assertion_signed_by_a_key_not_in_the_tool_key_set(platform, stranger_key):
    answer = ask_token(platform, assertion(platform, stranger_key))
    assert answer.status_code == 401 and "not in the tool's key set" in answer.json()["error_description"]
    # The same kid as the tool's key but another key's signature: the signature is what is checked.
    forged = SigningKey(stranger_key.private_key, platform.tool_jwks["keys"][0]["kid"])
    answer = ask_token(platform, assertion(platform, forged))
    assert answer.status_code == 401 and "InvalidSignatureError" in answer.json()["error_description"]


def test_the_token_endpoint_refuses_wrong_grants_and_scopes_it_does_not_grant(tool_key):
    with Platform(granted_scopes=[SCOPE_SCORE]) as platform:
        platform.tool_jwks = tool_key.jwks()
        answer = ask_token(platform, assertion(platform, tool_key), grant_type="password")
        assert answer.status_code == 400 and answer.json()["error"] == "unsupported_grant_type"
        answer = ask_token(platform, assertion(platform, tool_key), client_assertion_type="secret")
        assert answer.status_code == 400 and answer.json()["error"] == "invalid_request"
        answer = ask_token(platform, assertion(platform, tool_key), scope=SCOPE_NRPS)
        assert answer.status_code == 400 and answer.json()["error"] == "invalid_scope"
        assert ask_token(platform, assertion(platform, tool_key), scope=SCOPE_SCORE).status_code == 200


class _ToolServer:
    """The tool's live server as far as the platform sees it: a key set at a URL, which the tool
    can change (a rotation)."""

    def __init__(self, jwks):
        self.jwks = jwks
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                body = json.dumps(owner.jwks).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/.well-known/jwks.json"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_the_tool_key_set_is_fetched_from_its_url_each_time_so_a_tool_rotation_is_seen(tool_key, stranger_key):
    tool_server = _ToolServer(tool_key.jwks())
    try:
        with Platform() as platform:
            platform.tool_jwks_url = tool_server.url
            assert ask_token(platform, assertion(platform, tool_key)).status_code == 200
            assert ask_token(platform, assertion(platform, stranger_key)).status_code == 401
            tool_server.jwks = {"keys": [tool_key.public_jwk(), stranger_key.public_jwk()]}
            assert ask_token(platform, assertion(platform, stranger_key)).status_code == 200
            assert platform.tool_jwks_fetches == 3
    finally:
        tool_server.close()


def test_a_tool_without_a_reachable_key_set_gets_no_token(tool_key):
    with Platform() as platform:
        platform.tool_jwks_url = platform.base_url + "/nothing-here"
        answer = ask_token(platform, assertion(platform, tool_key))
        assert answer.status_code == 401 and "could not be read" in answer.json()["error_description"]


# Services: NRPS and AGS, through pylti1p3's own clients -------------------------------------------------


def token_for(platform, key, scope):
    answer = ask_token(platform, assertion(platform, key), scope=scope)
    assert answer.status_code == 200, answer.text
    return answer.json()["access_token"]


def test_services_need_a_bearer_token_with_their_scope(platform, tool_key):
    url = platform.memberships_url("course-1")
    assert requests.get(url, timeout=5).status_code == 401
    assert requests.get(url, headers={"Authorization": "Bearer made-up"}, timeout=5).status_code == 401
    score_only = token_for(platform, tool_key, SCOPE_SCORE)
    answer = requests.get(url, headers={"Authorization": f"Bearer {score_only}"}, timeout=5)
    assert answer.status_code == 403 and answer.json()["error"] == "insufficient_scope"
    nrps = token_for(platform, tool_key, SCOPE_NRPS)
    assert requests.get(url, headers={"Authorization": f"Bearer {nrps}"}, timeout=5).status_code == 200

    line_items = platform.line_items_url("course-1")
    answer = requests.post(line_items, data="{}", timeout=5,
                           headers={"Authorization": f"Bearer {nrps}", "Content-Type": "application/vnd.ims.lis.v2.lineitem+json"})
    assert answer.status_code == 403

    platform.expire_tokens()
    assert requests.get(url, headers={"Authorization": f"Bearer {nrps}"}, timeout=5).status_code == 401


def test_the_roster_is_paged_with_link_headers_and_read_whole_by_pylti1p3(platform, tool_key):
    platform.page_size = 10
    platform.members = [{"user_id": f"u{i}", "name": f"User {i}", "email": f"u{i}@example.org",
                         "roles": ["Instructor"] if i == 0 else ["Learner"]} for i in range(25)]
    claims = platform.resource_link_claims(user_id="u0", roles=("Instructor",), context_id="Course-ABC",
                                           context_title="Algebra")
    service = NamesRolesProvisioningService(ServiceConnector(MiniTool(platform, tool_key).registration()),
                                            claims[NRPS_CLAIM])
    members = service.get_members()
    assert [m["user_id"] for m in members] == [f"u{i}" for i in range(25)]
    assert members[0]["roles"] == [role_uri("Instructor")] and members[1]["status"] == "Active"
    assert service.get_context() == {"id": "Course-ABC", "label": "Course-ABC", "title": "Algebra"}

    pages = [r for r in platform.requests_to("/memberships") if r.status == 200]
    assert len(pages) == 4  # three pages, then get_context's first page again
    first = requests.get(claims[NRPS_CLAIM]["context_memberships_url"], timeout=5, headers={
        "Authorization": "Bearer " + token_for(platform, tool_key, SCOPE_NRPS)})
    assert 'rel="next"' in first.headers["Link"] and "page=2" in first.headers["Link"]
    assert first.headers["Content-Type"] == "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"

    learners, _ = service.get_members_page(claims[NRPS_CLAIM]["context_memberships_url"] + "?role=Instructor")
    assert [m["user_id"] for m in learners] == ["u0"]


def test_grades_go_through_pylti1p3_line_items_scores_and_results(platform, tool_key):
    platform.members = [{"user_id": "u1"}]
    claims = platform.resource_link_claims(user_id="u1")
    ags = AssignmentsGradesService(ServiceConnector(MiniTool(platform, tool_key).registration()), claims[AGS_ENDPOINT])
    item = ags.find_or_create_lineitem(LineItem().set_tag("quiz-7").set_label("Quiz 7").set_score_maximum(20)
                                       .set_resource_id("pool-7"))
    assert item.get_id().startswith(platform.line_items_url("course-1") + "/")
    assert ags.find_or_create_lineitem(LineItem().set_tag("quiz-7").set_label("x").set_score_maximum(1)).get_id() == item.get_id()
    assert len(platform.line_items) == 1

    def grade(score, stamp):
        return (Grade().set_score_given(score).set_score_maximum(10).set_user_id("u1").set_timestamp(stamp)
                .set_activity_progress("Completed").set_grading_progress("FullyGraded"))

    ags.put_grade(grade(7, "2030-01-01T10:00:00.000+00:00"), item)
    ags.put_grade(grade(5, "2030-01-01T09:00:00.000+00:00"), item)  # older: recorded, not applied
    assert [(s["scoreGiven"], s["applied"]) for s in platform.scores] == [(7, True), (5, False)]
    assert platform.scores[0]["userId"] == "u1" and platform.scores[0]["lineItem"] == item.get_id()
    assert platform.scores[0]["received_at"].tzinfo is not None

    results = ags.get_grades(item)
    assert results == [{"id": item.get_id() + "/results/u1", "scoreOf": item.get_id(), "userId": "u1",
                        "resultMaximum": 20, "resultScore": 14.0}]
    score_post = platform.requests_to("/scores", "POST")[0]
    assert score_post.headers["content-type"] == MEDIA_SCORE


def test_a_link_with_a_line_item_launches_with_it_and_scores_can_be_refused(tool_key):
    with Platform(stale_score_status=409) as platform:
        platform.tool_jwks = tool_key.jwks()
        platform.members = [{"user_id": "u1"}]
        item = platform.add_line_item(label="Unit 1", score_maximum=10, resource_link_id="link-9")
        claims = platform.resource_link_claims(user_id="u1", resource_link_id="link-9")
        assert claims[AGS_ENDPOINT]["lineitem"] == item["id"]
        assert "lineitem" not in platform.resource_link_claims(user_id="u1", resource_link_id="link-9",
                                                                line_item_url=False)[AGS_ENDPOINT]
        ags = AssignmentsGradesService(ServiceConnector(MiniTool(platform, tool_key).registration()), claims[AGS_ENDPOINT])
        assert ags.get_lineitem().get_label() == "Unit 1"

        def grade(user, stamp="2030-01-01T10:00:00Z"):
            return (Grade().set_score_given(1).set_score_maximum(1).set_user_id(user).set_timestamp(stamp)
                    .set_activity_progress("Completed").set_grading_progress("FullyGraded"))

        ags.put_grade(grade("u1"))
        with pytest.raises(LtiServiceException) as refused:
            ags.put_grade(grade("u1", "2029-01-01T10:00:00Z"))
        assert refused.value.response.status_code == 409
        with pytest.raises(LtiServiceException) as unknown:
            ags.put_grade(grade("tool-own-id-42"))
        assert unknown.value.response.status_code == 422
        with pytest.raises(LtiServiceException) as bad:
            ags.put_grade(Grade().set_score_given(1).set_user_id("u1").set_timestamp("yesterday"))
        assert bad.value.response.status_code == 400
        for fragment in ("activityProgress", "gradingProgress", "timestamp", "scoreMaximum"):
            assert fragment in bad.value.response.text
        assert [s["userId"] for s in platform.scores] == ["u1", "u1"]


def test_a_score_needs_the_score_media_type(platform, tool_key):
    item = platform.add_line_item()
    platform.members = [{"user_id": "u1"}]
    token = token_for(platform, tool_key, SCOPE_SCORE)
    score = {"userId": "u1", "activityProgress": "Completed", "gradingProgress": "FullyGraded",
             "timestamp": "2030-01-01T10:00:00Z"}
    answer = requests.post(item["id"] + "/scores", json=score, timeout=5, headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 415
    answer = requests.post(item["id"] + "/scores", data=json.dumps(score), timeout=5,
                           headers={"Authorization": f"Bearer {token}", "Content-Type": MEDIA_SCORE})
    assert answer.status_code == 204 and len(platform.scores) == 1


def test_line_items_can_be_updated_and_deleted_with_the_lineitem_scope(platform, tool_key):
    item = platform.add_line_item(label="Old", resource_link_id="link-1")
    token = token_for(platform, tool_key, SCOPE_LINEITEM)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/vnd.ims.lis.v2.lineitem+json"}
    answer = requests.put(item["id"], data=json.dumps({"label": "New", "scoreMaximum": 50, "resourceLinkId": "x"}),
                          headers=headers, timeout=5)
    assert answer.status_code == 200
    assert answer.json() == {"id": item["id"], "resourceLinkId": "link-1", "label": "New", "scoreMaximum": 50}
    bad = requests.put(item["id"], data=json.dumps({"label": "New", "scoreMaximum": 0}), headers=headers, timeout=5)
    assert bad.status_code == 400
    assert requests.delete(item["id"], headers=headers, timeout=5).status_code == 204
    assert platform.line_items == []
    assert requests.get(item["id"], headers=headers, timeout=5).status_code == 404


def test_fail_next_fails_exactly_that_many_service_calls(platform, tool_key):
    platform.members = [{"user_id": "u1"}]
    claims = platform.resource_link_claims(user_id="u1")
    platform.fail_next(2, status=503)
    service = NamesRolesProvisioningService(ServiceConnector(MiniTool(platform, tool_key).registration()),
                                            claims[NRPS_CLAIM])
    for _ in range(2):
        with pytest.raises(LtiServiceException) as failed:
            service.get_members()
        assert failed.value.response.status_code == 503
    assert [m["user_id"] for m in service.get_members()] == ["u1"]
    statuses = [r.status for r in platform.requests_to("/memberships")]
    assert statuses == [503, 503, 200]
    assert [r.status for r in platform.requests_to("/lti/token")] == [200]  # the token endpoint was spared

    platform.fail_next(1, include_token=True)
    assert ask_token(platform, assertion(platform, tool_key)).status_code == 500
    assert ask_token(platform, assertion(platform, tool_key)).status_code == 200


# Deep linking --------------------------------------------------------------------------------------------


def deep_link_response(platform, key, claims, resources, **changes):
    registration = Registration().set_issuer(platform.issuer).set_client_id(platform.client_id) \
        .set_tool_private_key(key.private_pem).set_tool_public_key(key.public_pem)
    deep_link = DeepLink(registration, platform.deployment_id, claims[DL_SETTINGS])
    message = {**deep_link.get_message_jwt(resources), **changes}
    return claims[DL_SETTINGS]["deep_link_return_url"], deep_link.encode_jwt(message)


def resource(title="Pool 3", maximum=None):
    item = DeepLinkResource().set_url(TOOL + "/lti/launch/").set_title(title).set_custom_params({"pool": "3"})
    if maximum:
        item.set_lineitem(LineItem().set_score_maximum(maximum).set_label(title))
    return item


def test_a_deep_link_response_signed_by_the_tool_is_verified_and_recorded(platform, tool_key):
    claims = platform.deep_linking_claims(user_id="t1", data="request-42")
    url, signed = deep_link_response(platform, tool_key, claims, [resource(maximum=30)])
    answer = requests.post(url, data={"JWT": signed}, timeout=5)
    assert answer.status_code == 200, answer.text
    [recorded] = platform.deep_link_responses
    assert recorded["claims"][DL_DATA] == "request-42"
    assert recorded["header"]["kid"] == tool_key.kid
    [item] = recorded["content_items"]
    assert item["type"] == "ltiResourceLink" and item["custom"] == {"pool": "3"}
    [link] = recorded["links"]
    assert link["line_item"]["scoreMaximum"] == 30 and link["line_item"]["resourceLinkId"] == link["resource_link_id"]
    launch = platform.resource_link_claims(user_id="u1", resource_link_id=link["resource_link_id"])
    assert launch[AGS_ENDPOINT]["lineitem"] == link["line_item"]["id"]

    again = requests.post(url, data={"JWT": signed}, timeout=5)
    assert again.status_code == 400 and "nonce already used" in again.text


@pytest.mark.parametrize("case, message", [
    ("stranger", "not in the tool's key set"),
    ("data", "does not echo"),
    ("deployment", "deployment_id"),
    ("audience", "InvalidAudience"),
    ("type", "not accepted"),
    ("multiple", "where one is accepted"),
])
def test_a_bad_deep_link_response_is_refused_and_not_recorded(platform, tool_key, stranger_key, case, message):
    claims = platform.deep_linking_claims(user_id="t1", data="request-42", accept_multiple=case != "multiple")
    key, resources, changes = tool_key, [resource()], {}
    if case == "stranger":
        key = stranger_key
    elif case == "data":
        changes = {DL_DATA: "forged"}
    elif case == "deployment":
        changes = {DEPLOYMENT_ID: "deployment-2"}
    elif case == "audience":
        changes = {"aud": ["https://other-lms.example"]}
    elif case == "type":
        resources = [resource().set_type("html")]
    elif case == "multiple":
        resources = [resource("a"), resource("b")]
    url, signed = deep_link_response(platform, key, claims, resources, **changes)
    answer = requests.post(url, data={"JWT": signed}, timeout=5)
    assert answer.status_code == 400 and message in answer.text
    assert platform.deep_link_responses == [] and message in platform.deep_link_rejections[0]


def test_deep_linking_claims_pass_pylti1p3s_message_checks(platform, tool_key):
    claims = platform.deep_linking_claims(user_id="t1", accept_types=("ltiResourceLink", "link"))
    settings = claims[DL_SETTINGS]
    assert claims[MESSAGE_TYPE] == "LtiDeepLinkingRequest" and settings["accept_types"] == ["ltiResourceLink", "link"]
    assert settings["deep_link_return_url"].startswith(platform.base_url)
    assert claims[CONTEXT]["id"] == "course-1" and DL_CONTENT_ITEMS not in claims
    with pytest.raises(ValueError, match="unknown role"):
        platform.deep_linking_claims(user_id="t1", roles=("Teacher",))
