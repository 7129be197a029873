import os

import pytest

# Races need a database that runs transactions side by side, and `make explain` reads
# PostgreSQL's plans: these modules are collected on PostgreSQL (the second pass of .ci/run), not
# on SQLite, which serialises every writer.
if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
    collect_ignore_glob = ["test_races*.py", "test_explain_script.py"]

from tests.class_factories import make_instructor
from tests.factories import make_question_set, make_user
from tests.helpers import logged_in


@pytest.fixture(autouse=True)
def fast_password_hashing(settings):
    # PBKDF2's deliberate slowness protects real passwords; test users don't need it.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def dashboards_built_afresh(settings):
    # Tests write content straight through the ORM (factories), which no service announces to
    # the kept dashboards: each visit builds its dashboard. tests/test_dashboard_cache.py turns
    # keeping on and changes content through the app's services.
    settings.DASHBOARD_CACHE_SECONDS = 0


@pytest.fixture(scope="session")
def media_root(tmp_path_factory):
    return tmp_path_factory.mktemp("media")


@pytest.fixture(autouse=True)
def media_files_in_a_temporary_folder(settings, media_root):
    # Images the tests store (quiz.content.media) go to a folder of the run's, not to MEDIA_ROOT.
    settings.MEDIA_ROOT = media_root


@pytest.fixture
def learner(db):
    return make_user("alice")


@pytest.fixture
def other_learner(db):
    return make_user("bob")


@pytest.fixture
def learner_client(learner):
    return logged_in(learner)


@pytest.fixture
def other_client(other_learner):
    return logged_in(other_learner)


@pytest.fixture
def teacher(db):
    return make_instructor()


@pytest.fixture
def teacher_client(teacher):
    return logged_in(teacher)


@pytest.fixture
def question_set(db):
    return make_question_set("Networking basics", questions=3)


# --- Browser tests (Playwright + Debian's Chromium) ---------------------------------------

@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM_ARGS, chromium_or_skip

    executable = chromium_or_skip()
    # Playwright's sync API runs an event loop in this thread; the ORM calls the tests
    # make between browser steps are still plain synchronous code.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server, transactional_db, request):
    # Rate limits count per address, and every browser test comes from 127.0.0.1: without this the
    # eleventh sign-up of a run is refused ("This network is paused"), whichever test it is.
    from django.core.cache import cache

    cache.clear()
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1000, "height": 800})
    context.set_default_timeout(10_000)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # The Content-Security-Policy must never block what our own pages need.
    page.on("console", lambda message: "Content Security Policy" in message.text and errors.append(message.text))
    yield page
    if request.node.rep_call.failed if hasattr(request.node, "rep_call") else False:
        from tests.browser import ARTIFACTS

        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"), full_page=True)
    context.close()
    assert not errors, f"JavaScript errors in the page: {errors}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)
