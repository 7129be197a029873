"""The assignment form as Chromium lays it out, on a desktop and on a 390px phone: every input
styled alike (dates, numbers, selects), each checkbox on one line before its label, and
nothing wider than the screen. Screenshots go to the temporary directory (/tmp) to look at."""

import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.class_factories import make_classroom, make_instructor, make_pool
from tests.test_browser_instructor import logged_in_page

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", [1280, 390])
def test_every_input_of_the_assignment_form_is_styled_and_the_checkbox_sits_beside_its_label(
    browser, live_server, transactional_db, width
):
    classroom = make_classroom(make_instructor("prof"), name="Week one")
    make_pool(classroom.owner, title="Basics")
    page = logged_in_page(browser, live_server, "prof")
    page.set_viewport_size({"width": width, "height": 900})

    page.goto(f"/teach/classes/{classroom.pk}/assign/")
    expect(page.get_by_label("Opens")).not_to_have_value("")
    page.screenshot(path=Path(tempfile.gettempdir()) / f"assignment-form-{width}.png", full_page=True)

    # Dates, numbers and selects share the text inputs' border, radius and touch-sized height.
    style = "e => { const s = getComputedStyle(e); return [s.borderTopStyle, s.borderRadius, s.height]; }"
    title = page.get_by_label("Title").evaluate(style)
    for label in ("Opens", "Due", "Time limit (minutes)", "Attempts allowed", "Grading"):
        border, radius, height = page.get_by_label(label).evaluate(style)
        assert [border, radius] == title[:2], label
        assert float(height.removesuffix("px")) >= 44, label

    box, text = page.get_by_label("Shuffle").bounding_box(), page.locator("label[for=id_shuffle]").bounding_box()
    assert box["x"] + box["width"] <= text["x"]  # the box comes first
    assert abs((box["y"] + box["height"] / 2) - (text["y"] + text["height"] / 2)) <= 3  # on the label's line

    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0
    page.context.close()
