"""Checks that hold on every page a visitor, a learner and an instructor reach (the tour of
tests/page_tour.py, one test per page and width so a failure names both): nothing scrolls
sideways, and axe-core finds no critical or serious violation, on a 320 px phone, a 390 px one and
a 1280 px laptop, and in dark mode too. On PostgreSQL (the second pass of CI, there for the
database, not the layout) at 320 px only.

The data is built once for the module (a page test only reads), then the database is emptied
as after any transactional test. Each width has one browser tab for the whole tour.
"""

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core.management import call_command
from django.db import connection
from django.test import Client, override_settings
from django.urls import reverse
from pytest_django.live_server_helper import LiveServer

from tests.page_tour import NOT_PAGES, PAGES, build_world, tour
from tests.test_permissions import app_url_names

# django_db: so pytest-django sets up the test database even when only these tests run. Each
# test then runs in a transaction rolled back after it, over the module's data committed before.
pytestmark = [pytest.mark.browser, pytest.mark.django_db]

PHONE = {"width": 320, "height": 640}
# The screens the tour opens every page on: the narrowest phone in use, a common one, a laptop.
SCREENS = {
    320: {"viewport": PHONE, "has_touch": True, "is_mobile": True},
    390: {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
    1280: {"viewport": {"width": 1280, "height": 800}},
}
WIDTHS = [320] if connection.vendor == "postgresql" else list(SCREENS)
# A few pages in dark mode too: its colours are a second palette, and these use most of it.
DARK_PAGES = [
    "home", "home (visitor)", "attempt_question (answered)", "attempt_results", "study_deck",
    "gradebook", "item_analysis", "library", "login",
]
SERIOUS = {"critical", "serious"}
# The outermost elements past the right edge of the screen, leaving out those inside a box that
# scrolls sideways on its own (a table in its .table-wrap).
STICKING_OUT = """width => [...document.querySelectorAll('body *')].filter(e => {
    if (e.getBoundingClientRect().right <= width + 1 || e.parentElement.getBoundingClientRect().right > width + 1) return false;
    for (let box = e.parentElement; box && box !== document.body; box = box.parentElement) {
        if (getComputedStyle(box).overflowX !== 'visible') return false;
    }
    return true;
}).slice(0, 5).map(e => e.outerHTML.slice(0, 200))"""
# What axe-core leaves to an HTML validator, yet testers met: a reference to an id the page does
# not have, block content where only phrasing content may go, a list item outside a list; and
# what it finds only with other data or calls minor: a table box the keyboard cannot scroll, an
# empty table header.
MARKUP_PROBLEMS = """() => {
    const problems = [];
    const describe = e => e.outerHTML.slice(0, 160);
    for (const e of document.querySelectorAll('[aria-describedby], [aria-labelledby], [aria-controls]')) {
        for (const attribute of ['aria-describedby', 'aria-labelledby', 'aria-controls']) {
            for (const id of (e.getAttribute(attribute) || '').split(/\\s+/).filter(Boolean)) {
                if (!document.getElementById(id)) problems.push(`${attribute} names a missing #${id}: ${describe(e)}`);
            }
        }
    }
    const phrasing = ':is(summary, span, a, label, button, em, strong, small, b, i, kbd, code)';
    const block = ':is(p, div, form, ul, ol, table, section, fieldset)';
    for (const e of document.querySelectorAll(`${phrasing} > ${block}`)) {
        problems.push(`<${e.tagName.toLowerCase()}> inside <${e.parentElement.tagName.toLowerCase()}>: ${describe(e.parentElement)}`);
    }
    for (const e of document.querySelectorAll('li')) {
        if (!e.parentElement.matches('ul:not([role]), ol:not([role]), menu, [role=list]')) problems.push(`<li> outside a list: ${describe(e.parentElement)}`);
    }
    // A table's box scrolls sideways once the screen is narrower than the table, with this tour's
    // data or with more: a keyboard scrolls it only if it takes the focus, and a screen reader
    // names what it lands on (axe-core's scrollable-region-focusable checks only what scrolls now).
    for (const e of document.querySelectorAll('.table-wrap:not([tabindex="0"][role=region][aria-label])')) {
        problems.push(`a .table-wrap without tabindex="0", role="region" and an aria-label: ${describe(e)}`);
    }
    for (const e of document.querySelectorAll('th')) {
        if (!e.textContent.trim()) problems.push(`an empty table header (give it visually hidden text): ${describe(e.closest('tr'))}`);
    }
    return problems;
}"""


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
    """The tour's pages by name, each actor's cookies (session, a message) and the server's address;
    the database emptied after."""
    with django_db_blocker.unblock(), override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        world = build_world()
        pages = {page.name: page for page in tour(world)}
        # Each actor has just done something, so every page shows its message list too.
        actions = {
            "learner": ("exam_settings", [], {"exam_date": world["learner"].exam_date.isoformat(), "target_retention": "0.9"}),
            "instructor": ("rename_classroom", [world["classroom"].pk], {"name": world["classroom"].name}),
        }
        cookies = {"visitor": []}
        for actor, (url_name, args, data) in actions.items():
            client = Client()
            client.force_login(world[actor])
            assert client.post(reverse(url_name, args=args), data).status_code == 302
            assert "messages" in client.cookies, "the message is in its cookie, for the browser to show"
            cookies[actor] = [{"name": key, "value": morsel.value, "url": tour_server.url} for key, morsel in client.cookies.items()]
        yield pages, cookies, tour_server.url
        call_command("flush", verbosity=0, interactive=False)


@pytest.fixture(scope="module", params=WIDTHS, ids=lambda width: f"{width}px")
def screen_tab(request, browser, world):
    """One tab at one of the tour's widths, for every page of the tour: a context of its own for
    each page cost more than the checks on it."""
    tab = new_tab(browser, world, **SCREENS[request.param])
    yield tab
    tab[0].context.close()


@pytest.fixture(scope="module")
def dark_tab(browser, world):
    tab = new_tab(browser, world, **SCREENS[390], color_scheme="dark")
    yield tab
    tab[0].context.close()


# A tab leaves its page after each test: a page left open could ask the live server for
# something while another test runs, on the connection that test's transaction holds.
@pytest.fixture
def screen(screen_tab):
    yield screen_tab
    screen_tab[0].goto("about:blank")


@pytest.fixture
def dark_screen(dark_tab):
    yield dark_tab
    dark_tab[0].goto("about:blank")


def new_tab(browser, world, **context_options):
    """A page in a new browser context, and the list its script errors go to."""
    _, _, base_url = world
    context = browser.new_context(base_url=base_url, **context_options)
    context.set_default_timeout(10_000)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def visit(tab, world, name):
    """The page `name` opened in `tab` as its actor would (their cookies, a message waiting),
    and what went wrong in its scripts."""
    page, errors = tab
    pages, cookies, base_url = world
    tour_page = pages[name]
    errors.clear()
    page.context.clear_cookies()
    page.context.add_cookies(cookies[tour_page.actor])
    response = page.goto(tour_page.url)
    page.wait_for_load_state("load")
    # A part the page loads once it is shown (the dashboard's exam plan, hx-trigger="load") is
    # in, so it is measured too, and its request is over before the next test begins: the live
    # server shares the test's database connection, and a request still running as the next
    # test opened its transaction failed that test's set-up ("cannot start a transaction
    # within a transaction").
    page.wait_for_function("() => !document.querySelector('.htmx-request')")
    assert response.status == tour_page.status, f"{name} ({tour_page.url}) answered {response.status}"
    assert page.url == base_url + tour_page.url, f"{name} ({tour_page.url}) went to {page.url}"
    return page, errors


def open_page(browser, world, name, **context_options):
    """The page `name` in a context of its own (JavaScript off, say), which the caller closes."""
    return visit(new_tab(browser, world, **context_options), world, name)


AXE = Axe()


def axe_problems(page):
    """The critical and serious axe-core violations, one line per element."""
    results = AXE.run(page)
    return [
        f"{violation['id']} ({violation['impact']}): {violation['help']} at {node['target']}: {node['html'][:160]}"
        for violation in results.response["violations"]
        if violation["impact"] in SERIOUS
        for node in violation["nodes"]
    ]


@pytest.mark.parametrize("name", list(PAGES))
def test_no_page_scrolls_sideways_or_fails_axe(screen, world, name):
    page, errors = visit(screen, world, name)
    width = page.viewport_size["width"]
    problems = []
    if (scroll_width := page.evaluate("document.documentElement.scrollWidth")) > width:
        # What sticks out: the outermost elements whose right edge passes the screen's.
        problems.append(f"{scroll_width} px wide at {width} px; sticking out: {page.evaluate(STICKING_OUT, width)}")
    problems += [f"JavaScript error: {error}" for error in errors]
    problems += axe_problems(page) + page.evaluate(MARKUP_PROBLEMS)
    assert not problems, f"{name} at {width} px:\n" + "\n".join(problems)


@pytest.mark.parametrize("name", DARK_PAGES)
def test_no_serious_accessibility_violation_in_dark_mode(dark_screen, world, name):
    page, _ = visit(dark_screen, world, name)
    problems = axe_problems(page)
    assert not problems, f"axe-core on {name} in dark mode:\n" + "\n".join(problems)


# Pages with keyboard hints ("Keys 1-4 choose", "Show answer · Space", "Myth M", "Press N for next").
HINT_PAGES = ["attempt_question", "attempt_question (answered)", "study_deck", "drill"]
VISIBLE_HINTS = """els => els.filter(e => e.checkVisibility()).map(e => e.textContent.trim())"""


def visible_hints(page):
    hints = page.locator(".kbd-hint, .hint:has(kbd), kbd").evaluate_all(VISIBLE_HINTS)
    page.context.close()
    return hints


@pytest.mark.parametrize("name", HINT_PAGES)
def test_keyboard_hints_show_only_where_a_key_does_something(browser, world, name):
    desktop, _ = open_page(browser, world, name, viewport={"width": 1000, "height": 800})
    assert visible_hints(desktop), f"{name} shows its keyboard hints on a desktop with JavaScript"

    without_javascript, _ = open_page(browser, world, name, java_script_enabled=False)
    assert visible_hints(without_javascript) == [], f"{name} shows keyboard hints with JavaScript off"

    phone, _ = open_page(browser, world, name, viewport=PHONE, has_touch=True, is_mobile=True)
    assert phone.evaluate("matchMedia('(pointer: coarse)').matches"), "the phone is emulated with a touch screen"
    assert visible_hints(phone) == [], f"{name} shows keyboard hints on a touch screen"
