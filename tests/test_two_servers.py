"""Two app servers on one database, as in production behind a load balancer: a session made on
one is valid on the other, failed logins and rate limits are counted across both, and a
dashboard one of them keeps shows content another process adds."""

import pytest

from tests.servers import Browser, gunicorn_servers, manage, production_env, shared_database

pytestmark = pytest.mark.servers


@pytest.fixture
def environment(tmp_path):
    # A fresh database for each test, so every count starts at zero.
    with shared_database(tmp_path) as database_url:
        yield production_env(database_url, tmp_path / "static", DJANGO_SIGNUP_RATE="3/h", DJANGO_LOGIN_FAILURE_LIMIT="4")


@pytest.fixture
def servers(environment):
    with gunicorn_servers(environment) as urls:
        yield urls


def sign_up(browser, server, username):
    return browser.post_form(f"{server}/accounts/signup/", {
        "username": username, "password1": "a-long-pass-phrase-9", "password2": "a-long-pass-phrase-9",
    })


def test_a_session_made_on_one_server_is_valid_on_the_other(servers):
    one, two = servers
    browser = Browser()
    assert sign_up(browser, one, "session_user")[0] == 302

    status, html = browser.get(f"{two}/attempts/")

    assert status == 200 and "My attempts" in html


def test_failed_logins_count_across_servers(servers):
    one, two = servers
    assert sign_up(Browser(), one, "target_user")[0] == 302
    for server in (one, two, one):
        status, _ = Browser().post_form(f"{server}/accounts/login/", {"username": "target_user", "password": "wrong"})
        assert status == 200

    status, _ = Browser().post_form(f"{two}/accounts/login/", {"username": "target_user", "password": "wrong"})
    assert status == 429  # the fourth failure, counted over both servers, locks
    status, _ = Browser().post_form(f"{one}/accounts/login/", {"username": "target_user", "password": "a-long-pass-phrase-9"})
    assert status == 429


def test_the_sign_up_rate_limit_is_shared_by_the_servers(servers):
    one, two = servers
    results = [sign_up(Browser(), server, f"limited{n}")[0] for n, server in enumerate((one, two, one, two))]

    # Three an hour from one address: the fourth is refused, though its server saw only one
    # before it (a cache per server would let it through).
    assert results == [302, 302, 302, 429]


def test_a_dashboard_kept_by_one_server_shows_content_another_process_imports(environment, servers):
    one, two = servers
    browser = Browser()
    assert sign_up(browser, one, "reader")[0] == 302
    browser.get(f"{two}/")
    status, kept = browser.get(f"{two}/")  # the second visit is the kept page
    assert status == 200 and 'data-testid="no-sets"' in kept

    manage(environment, "import_questions", "fixtures/seed.json")  # a process of its own, as a timer's would be

    for server in (two, one):
        status, html = browser.get(f"{server}/")
        assert status == 200 and 'data-testid="no-sets"' not in html
