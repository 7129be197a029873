"""LTI Dynamic Registration (quiz.lti.registration, quiz.views.lti_registration) against the platform
the tests run on 127.0.0.1 (tests/lti_platform.py): a platform registers the tool from a link staff
made, then launches learners in; a link works once, for a day, only as staff made it; every failure
of the platform (issuer, refusal, timeout, not JSON, unreachable) is a page saying why, and leaves
nothing behind. Last, the platform's own registration endpoints are held to the specification."""

import re
from datetime import timedelta
from html import unescape
from pathlib import Path
from urllib.parse import urlencode

import pytest
import requests
import time_machine
from django.conf import settings as django_settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from lti_tool.models import Key, LtiDeployment, LtiRegistration, LtiUser

from quiz.lti import registration as dr
from quiz.models import LtiNonce, User
from tests.factories import make_user
from tests.lti_platform import SCOPE_NRPS, SCOPE_SCORE, TOOL_CONFIGURATION, Platform
from tests.test_lti import launch, learner_claims

LAUNCH_URL = "http://testserver/lti/launch/"


@pytest.fixture
def platform():
    with Platform(name="Moodle of Testing") as platform:
        yield platform


@pytest.fixture
def staff(db):
    Key.objects.generate()
    client = Client()
    client.force_login(make_user("admin", is_staff=True))
    return client


def new_link(staff):
    """The registration link the configuration page shows staff."""
    page = staff.get(reverse("lti_configuration")).content.decode()
    return unescape(re.search(r'data-testid="lti-registration-link">([^<]+)</code>', page)[1])


def register(platform, link, client=None):
    """The platform's administrator registers the tool by URL: the platform opens the link."""
    return (client or Client()).get(platform.dynamic_registration_url(link))


def recorded():
    return LtiRegistration.objects.count(), LtiDeployment.objects.count(), LtiNonce.objects.count()


def refusal(response):
    assert response.status_code == 400, response.content[:500]
    return unescape(re.search(r'data-testid="lti-refused">([^<]+)</p>', response.content.decode())[1])


# --- A whole registration, then launches ---------------------------------------------------------------------

def test_a_platform_registers_itself_from_a_staff_link_and_then_launches_learners_in(platform, staff):
    response = register(platform, new_link(staff))

    assert response.status_code == 200 and "Registered with Testlms at 127.0.0.1" in response.content.decode()
    registration = LtiRegistration.objects.get()
    given = platform.tool_registrations[0]
    assert registration.issuer == platform.issuer and registration.client_id == given["client_id"]
    assert registration.is_active
    assert (registration.auth_url, registration.token_url, registration.keyset_url) == (
        platform.auth_url, platform.token_url, platform.keyset_url)
    deployment = LtiDeployment.objects.get()
    assert deployment.registration == registration and deployment.deployment_id == given["deployment_id"]
    assert deployment.is_active

    # What the tool told the platform: its name, launch URL, login URL (naming this registration), key set,
    # the services it uses, the claims it reads and the messages it takes.
    message = given["message"]
    assert message["client_name"] == "Certify" and message["redirect_uris"] == [LAUNCH_URL]
    assert message["initiate_login_uri"] == f"http://testserver/lti/login/{registration.uuid}/"
    assert platform.tool_login_url == message["initiate_login_uri"]
    assert message["jwks_uri"] == "http://testserver/.well-known/jwks.json"
    assert {SCOPE_SCORE, SCOPE_NRPS} <= set(message["scope"].split()) <= set(given["scopes"])
    configuration = message[TOOL_CONFIGURATION]
    assert configuration["target_link_uri"] == LAUNCH_URL and configuration["domain"] == "testserver"
    assert [m["type"] for m in configuration["messages"]] == ["LtiResourceLinkRequest", "LtiDeepLinkingRequest"]
    assert {"sub", "name", "given_name", "family_name", "email"} <= set(configuration["claims"])
    # Both calls carried the platform's registration token.
    calls = platform.requests_to("/lti/openid-configuration") + platform.requests_to("/lti/register")
    assert [(c.method, c.status, c.headers["authorization"][:7]) for c in calls] == [
        ("GET", 200, "Bearer "), ("POST", 200, "Bearer ")]

    # The platform now launches with what it gave: a learner arrives and gets an account.
    learner = Client()
    response = launch(learner, platform, registration, learner_claims(platform))
    assert response.status_code == 302 and response.url == reverse("lti_welcome")
    assert learner.post(reverse("lti_welcome"), {"choice": "new"}).status_code == 302
    account = LtiUser.objects.get(sub="student-1", registration=registration).auth_user
    assert account is not None and int(learner.session["_auth_user_id"]) == account.pk

    # The configuration page lists it.
    page = staff.get(reverse("lti_configuration")).content.decode()
    assert registration.name in page and given["client_id"] in page and given["deployment_id"] in page


def test_the_success_page_has_no_inline_script_tells_the_platform_to_close_and_only_it_may_frame_it(platform, staff):
    response = register(platform, new_link(staff))
    page = response.content.decode()

    assert response.status_code == 200
    assert not re.search(r"<script(?![^>]*\bsrc=)", page), "an inline script, which the CSP would block"
    assert "/static/js/lti-registration-close.js" in re.findall(r'<script src="([^"]+)"', page)
    policy = dict(part.strip().split(" ", 1) for part in response["Content-Security-Policy"].split(";") if part.strip())
    assert policy["script-src"] == "'self'"
    assert policy["frame-ancestors"] == platform.base_url and "X-Frame-Options" not in response
    script = (Path(django_settings.BASE_DIR) / "static/js/lti-registration-close.js").read_text()
    assert "postMessage" in script and "org.imsglobal.lti.close" in script
    assert "window.opener || window.parent" in script
    assert "You can close this window" in page  # without JavaScript

    # Any other page of the app is still never framed.
    other = staff.get(reverse("lti_configuration"))
    assert other["X-Frame-Options"] == "DENY" and "frame-ancestors 'none'" in other["Content-Security-Policy"]


def test_a_platform_that_gives_no_deployment_id_is_registered_and_staff_add_the_deployment(platform, staff):
    platform.answer_deployment_id = False

    response = register(platform, new_link(staff))

    assert response.status_code == 200 and "gave no deployment id yet" in response.content.decode()
    assert LtiRegistration.objects.get().is_active and not LtiDeployment.objects.exists()


# --- The link -------------------------------------------------------------------------------------------------

def test_a_link_works_once(platform, staff):
    link = new_link(staff)
    assert register(platform, link).status_code == 200
    before = recorded()

    assert "used already" in refusal(register(platform, link))
    assert recorded() == before and len(platform.tool_registrations) == 1
    assert len(platform.requests_to("/lti/openid-configuration")) == 1  # refused before asking the platform

    # Another link from the page works (and registers the platform a second time, under a new client id).
    assert register(platform, new_link(staff)).status_code == 200
    assert LtiRegistration.objects.count() == 2


def test_two_uses_of_one_link_at_the_same_moment_record_one_registration(platform, staff):
    link = dr.opened_link(new_link(staff).rstrip("/").rsplit("/", 1)[1])

    def registration(issuer):
        return LtiRegistration(name="x", issuer=issuer, auth_url=platform.auth_url, token_url=platform.token_url,
                               keyset_url=platform.keyset_url, client_id="temporary")

    dr.record(registration("https://one.example"), client_id="a", deployment_id="d", link=link)
    with pytest.raises(dr.RegistrationRefused, match="used already"):
        dr.record(registration("https://two.example"), client_id="b", deployment_id="d", link=link)
    assert list(LtiRegistration.objects.values_list("issuer", flat=True)) == ["https://one.example"]


def test_an_expired_link_is_refused_and_asks_for_a_new_one(platform, staff):
    link = new_link(staff)
    before = recorded()

    with time_machine.travel(timezone.now() + timedelta(hours=24, minutes=1)):
        response = register(platform, link)

    assert "has expired" in refusal(response) and recorded() == before
    assert platform.requests == []
    # Its page still shows in the platform's frame: the administrator must read why.
    assert f"frame-ancestors {platform.base_url}" in response["Content-Security-Policy"]


@pytest.mark.parametrize("forge", [
    pytest.param(lambda token: token[:-2] + ("AA" if not token.endswith("AA") else "BB"), id="signature changed"),
    pytest.param(lambda token: "e30:1u0x7g:" + token.rsplit(":", 1)[1], id="payload changed"),
    pytest.param(lambda token: "not-a-token", id="made up"),
])
def test_a_forged_link_is_refused_changes_nothing_and_is_never_framed(platform, staff, forge):
    token = new_link(staff).rstrip("/").rsplit("/", 1)[1]
    before = recorded()

    response = register(platform, f"http://testserver/lti/register/{forge(token)}/")

    assert refusal(response) == "Nothing was changed: this registration link does not work."
    assert recorded() == before and platform.requests == []
    assert response["X-Frame-Options"] == "DENY" and "frame-ancestors 'none'" in response["Content-Security-Policy"]


def test_a_link_stops_working_when_its_maker_is_no_longer_staff(platform, staff):
    link = new_link(staff)
    User.objects.filter(username="admin").update(is_staff=False)

    assert "no longer register" in refusal(register(platform, link))
    assert recorded() == (0, 0, 0)


def test_only_staff_get_a_link_and_only_once_the_tool_has_a_signing_key(db, rf):
    from django.contrib.auth.models import AnonymousUser

    request = rf.get("/lti/configuration/")
    request.user = make_user("admin", is_staff=True)
    assert dr.registration_link(request) is None  # no key yet: the page says so
    Key.objects.generate()
    assert dr.registration_link(request).url.startswith("http://testserver/lti/register/")
    assert dr.registration_link(request) != dr.registration_link(request)  # a new link each time
    request.user = AnonymousUser()
    assert dr.registration_link(request) is None


def test_the_link_answers_get_only(platform, staff):
    url = platform.dynamic_registration_url(new_link(staff))
    assert Client().post(url).status_code == 405
    assert Client().head(url).status_code == 405  # a link checker registers nothing
    assert recorded() == (0, 0, 0) and platform.requests == []


# --- A platform that fails: a page that says why, and nothing left behind --------------------------------------

@pytest.mark.parametrize("issuer", [
    pytest.param(lambda platform: "https://lms.example", id="another site"),
    # A prefix of the address that stops inside it: "https://lms.example.edu" begins
    # "https://lms.example.edu.evil.example/" too.
    pytest.param(lambda platform: platform.base_url[:-1], id="a prefix inside the port"),
])
def test_a_platform_whose_issuer_does_not_begin_its_configuration_address_is_refused(platform, staff, issuer):
    platform.openid_configuration_changes = {"issuer": issuer(platform)}

    reason = refusal(register(platform, new_link(staff)))

    assert f"issuer {issuer(platform)} does not match the address of its configuration" in reason
    assert recorded() == (0, 0, 0) and platform.tool_registrations == []


def test_a_platform_that_refuses_the_registration_leaves_nothing_behind_and_the_link_still_works(platform, staff):
    link = new_link(staff)
    platform.registration_refusal = (400, "invalid_client_metadata", "Dynamic Registration is switched off")

    reason = refusal(register(platform, link))

    assert "HTTP 400" in reason and "Dynamic Registration is switched off" in reason
    assert recorded() == (0, 0, 0)
    platform.registration_refusal = None
    assert register(platform, link).status_code == 200  # the link was not used up by the failure
    assert recorded() == (1, 1, 1)


def test_a_platform_that_does_not_answer_in_time_leaves_nothing_behind(platform, staff, monkeypatch):
    monkeypatch.setattr(dr, "READ_SECONDS", 0.3)
    platform.registration_delay = 5

    reason = refusal(register(platform, new_link(staff)))

    assert reason == "Nothing was changed: the platform did not answer in time (registration endpoint)."
    assert recorded() == (0, 0, 0)


@pytest.mark.parametrize(("configuration_url", "reason"), [
    pytest.param("{base}/lti/return", "the platform's OpenID configuration is not JSON", id="not JSON"),
    pytest.param("{base}/lti/no-such-page", "HTTP 404", id="not found"),
    pytest.param("http://127.0.0.1:9/lti/openid-configuration", "could not be reached", id="unreachable"),
    pytest.param("http://lms.example/lti/openid-configuration", "must be an https:// address", id="plain http"),
    pytest.param("file:///etc/passwd", "not a web address", id="not the web"),
    pytest.param("https://lms.example; script-src *", "not a web address", id="not a host"),
    pytest.param("https://admin:secret@lms.example/", "not a web address", id="a password in it"),
    pytest.param("", "this link is for your LMS's LTI Dynamic Registration", id="opened by hand"),
])
def test_a_platform_configuration_that_does_not_read_is_refused_and_changes_nothing(
        platform, staff, configuration_url, reason):
    query = {"registration_token": "t"}
    if configuration_url:
        query["openid_configuration"] = configuration_url.format(base=platform.base_url)

    response = Client().get(f"{new_link(staff)}?{urlencode(query)}")

    assert reason in refusal(response) and recorded() == (0, 0, 0)
    # Framed, if at all, by one origin, the configuration URL's: nothing it carries gets into the policy.
    ancestors = re.search(r"frame-ancestors ([^;]+)", response["Content-Security-Policy"])[1]
    assert ancestors == "'none'" or re.fullmatch(r"https?://[A-Za-z0-9.-]+(:[0-9]+)?", ancestors)


def test_in_production_a_platform_must_use_https_even_on_this_machine(platform, staff, settings):
    settings.PRODUCTION = True
    assert "must be an https:// address" in refusal(register(platform, new_link(staff)))
    assert platform.requests == []


@pytest.mark.parametrize(("answer", "ids"), [
    pytest.param({"client_id": "c1", TOOL_CONFIGURATION: {"deployment_id": "d1"}}, ("c1", "d1"), id="both"),
    pytest.param({"client_id": 12, TOOL_CONFIGURATION: {"deployment_id": 7}}, ("12", "7"), id="numbers"),
    pytest.param({"client_id": "c1"}, ("c1", None), id="no deployment yet"),
    pytest.param({"client_id": ""}, "gives no client id", id="empty client id"),
    pytest.param({"client_id": "c" * 256}, "gives no client id", id="client id too long"),
    pytest.param({TOOL_CONFIGURATION: {"deployment_id": "d1"}}, "gives no client id", id="no client id"),
    pytest.param({"client_id": "c1", TOOL_CONFIGURATION: {"deployment_id": ["d1"]}}, "deployment id", id="a list"),
])
def test_the_platforms_answer_gives_a_client_id_and_perhaps_a_deployment_id(answer, ids):
    if isinstance(ids, tuple):
        assert dr.registered_ids(answer) == ids
    else:
        with pytest.raises(dr.RegistrationRefused, match=ids):
            dr.registered_ids(answer)


# --- The platform's registration endpoints (tests/lti_platform.py) ---------------------------------------------

def test_the_platform_serves_its_configuration_only_with_a_registration_token_it_issued(platform):
    url = platform.dynamic_registration_url("https://tool.example/register/")
    token = re.search(r"registration_token=([^&]+)", url)[1]

    assert requests.get(platform.openid_configuration_url, timeout=5).status_code == 401
    assert requests.get(platform.openid_configuration_url, headers={"Authorization": "Bearer made-up"},
                        timeout=5).status_code == 401
    configuration = requests.get(platform.openid_configuration_url, headers={"Authorization": f"Bearer {token}"},
                                 timeout=5).json()
    assert platform.openid_configuration_url.startswith(configuration["issuer"])
    assert configuration["registration_endpoint"] == platform.registration_endpoint


def tool_message(tool="https://tool.example"):
    return {
        "application_type": "web", "response_types": ["id_token"], "grant_types": ["implicit", "client_credentials"],
        "initiate_login_uri": f"{tool}/login", "redirect_uris": [f"{tool}/launch"], "client_name": "Tool",
        "jwks_uri": f"{tool}/jwks", "token_endpoint_auth_method": "private_key_jwt", "scope": SCOPE_SCORE,
        TOOL_CONFIGURATION: {"domain": "tool.example", "target_link_uri": f"{tool}/launch", "claims": ["sub"],
                             "messages": [{"type": "LtiDeepLinkingRequest"}]},
    }


TOOL_SIDE = tool_message()[TOOL_CONFIGURATION]


@pytest.mark.parametrize(("change", "problem"), [
    pytest.param({"redirect_uris": []}, "redirect_uris", id="no redirect URIs"),
    pytest.param({"initiate_login_uri": "/login"}, "initiate_login_uri", id="relative login URL"),
    pytest.param({"jwks_uri": None}, "jwks_uri", id="no key set"),
    pytest.param({"redirect_uris": ["https://elsewhere.example/launch"]}, "not on the tool's domain",
                 id="foreign redirect"),
    pytest.param({TOOL_CONFIGURATION: None}, TOOL_CONFIGURATION, id="no tool configuration"),
    pytest.param({TOOL_CONFIGURATION: {**TOOL_SIDE, "target_link_uri": None}}, "target_link_uri", id="no target link"),
    pytest.param({TOOL_CONFIGURATION: {**TOOL_SIDE, "messages": [{"type": "LtiSubmissionReview"}]}}, "not supported",
                 id="unknown message"),
    pytest.param({TOOL_CONFIGURATION: {**TOOL_SIDE, "claims": "sub"}}, "claims", id="claims not a list"),
])
def test_the_platform_refuses_a_registration_a_platform_would_refuse(platform, change, problem):
    url = platform.dynamic_registration_url("https://tool.example/register/")
    token = re.search(r"registration_token=([^&]+)", url)[1]
    headers = {"Authorization": f"Bearer {token}"}

    def post(message):
        return requests.post(platform.registration_endpoint, json=message, headers=headers, timeout=5)

    refused = post({**tool_message(), **change})
    assert refused.status_code == 400 and problem in refused.json()["error_description"]
    assert platform.tool_registrations == [] and platform.client_id == "studyapp-tool"

    # The token still works for a right registration, once.
    answer = post(tool_message()).json()
    assert answer["client_id"] == platform.client_id
    assert answer[TOOL_CONFIGURATION]["deployment_id"] == platform.deployment_id
    assert post(tool_message()).status_code == 401
