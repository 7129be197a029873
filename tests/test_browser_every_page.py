"""Checks that hold on every page a visitor, a learner and an instructor reach (the tour of
tests/page_tour.py, one test per page so a failure names it): nothing scrolls sideways on a
320 px phone, and axe-core finds no critical or serious violation, in light and dark mode.

The data is built once for the module (a page test only reads), then the database is emptied
as after any transactional test.
"""

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core.management import call_command
from django.test import Client, override_settings
from pytest_django.live_server_helper import LiveServer

from tests.page_tour import NOT_PAGES, PAGES, build_world, tour
from tests.test_permissions import app_url_names

# django_db: so pytest-django sets up the test database even when only these tests run. Each
# test then runs in a transaction rolled back after it, over the module's data committed before.
pytestmark = [pytest.mark.browser, pytest.mark.django_db]

PHONE = {"width": 320, "height": 640}
# A few pages in dark mode too: its colours are a second palette, and these use most of it.
DARK_PAGES = [
    "home", "home (visitor)", "attempt_question (answered)", "attempt_results", "study_deck",
    "gradebook", "item_analysis", "library", "login",
]
SERIOUS = {"critical", "serious"}
# The outermost elements past the right edge of a 320 px screen, leaving out those inside a
# box that scrolls sideways on its own (a table in its .table-wrap).
STICKING_OUT = """() => [...document.querySelectorAll('body *')].filter(e => {
    if (e.getBoundingClientRect().right <= 321 || e.parentElement.getBoundingClientRect().right > 321) return false;
    for (let box = e.parentElement; box && box !== document.body; box = box.parentElement) {
        if (getComputedStyle(box).overflowX !== 'visible') return false;
    }
    return true;
}).slice(0, 5).map(e => e.outerHTML.slice(0, 200))"""


def test_every_page_of_the_url_conf_is_on_the_tour():
    missing = app_url_names() - {name.split(" (")[0] for name in PAGES} - set(NOT_PAGES)
    assert not missing, f"add these URLs to PAGES in tests/page_tour.py (or NOT_PAGES, with why): {sorted(missing)}"


@pytest.fixture(scope="module")
def tour_server(django_db_setup, django_db_blocker):
    """A live server of the module's own: pytest-django's `live_server` empties the database after
    each test, and this module's data is built once for all its tests."""
    with django_db_blocker.unblock():
        server = LiveServer("localhost")
        yield server
        server.stop()


@pytest.fixture(scope="module")
def world(tour_server, django_db_blocker):
    """The tour's pages by name, and each actor's session cookie; the database emptied after."""
    with django_db_blocker.unblock(), override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        world = build_world()
        pages = {page.name: page for page in tour(world)}
        cookies = {"visitor": []}
        for actor in ("learner", "instructor"):
            client = Client()
            client.force_login(world[actor])
            cookies[actor] = [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": tour_server.url}]
        yield pages, cookies, tour_server.url
        call_command("flush", verbosity=0, interactive=False)


def open_page(browser, world, name, **context_options):
    """The page `name` opened as its actor would, with what went wrong in its scripts."""
    pages, cookies, base_url = world
    tour_page = pages[name]
    context = browser.new_context(base_url=base_url, **context_options)
    context.set_default_timeout(10_000)
    context.add_cookies(cookies[tour_page.actor])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    response = page.goto(tour_page.url)
    page.wait_for_load_state("load")
    assert response.status == tour_page.status, f"{name} ({tour_page.url}) answered {response.status}"
    assert page.url == base_url + tour_page.url, f"{name} ({tour_page.url}) went to {page.url}"
    return page, errors


@pytest.mark.parametrize("name", list(PAGES))
def test_no_page_scrolls_sideways_at_320_px(browser, world, name):
    page, errors = open_page(browser, world, name, viewport=PHONE, has_touch=True, is_mobile=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    # What sticks out: the outermost elements whose right edge passes the screen's.
    culprits = page.evaluate(STICKING_OUT)
    page.context.close()
    assert width <= 320, f"{name} is {width} px wide at 320 px; sticking out: {culprits}"
    assert not errors, f"JavaScript errors on {name}: {errors}"


def axe_problems(page):
    """The critical and serious axe-core violations, one line per element."""
    results = Axe().run(page)
    return [
        f"{violation['id']} ({violation['impact']}): {violation['help']} at {node['target']}: {node['html'][:160]}"
        for violation in results.response["violations"]
        if violation["impact"] in SERIOUS
        for node in violation["nodes"]
    ]


@pytest.mark.parametrize("name", list(PAGES))
def test_no_serious_accessibility_violation(browser, world, name):
    page, errors = open_page(browser, world, name, viewport={"width": 1000, "height": 800})
    problems = axe_problems(page)
    page.context.close()
    assert not problems, f"axe-core on {name}:\n" + "\n".join(problems)


@pytest.mark.parametrize("name", DARK_PAGES)
def test_no_serious_accessibility_violation_in_dark_mode(browser, world, name):
    page, errors = open_page(browser, world, name, viewport={"width": 1000, "height": 800}, color_scheme="dark")
    problems = axe_problems(page)
    page.context.close()
    assert not problems, f"axe-core on {name} in dark mode:\n" + "\n".join(problems)
