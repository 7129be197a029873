"""The charts as a person sees them: Chromium's own pixels, in light and dark mode.

A test of the DOM could not see the year heatmap painted as one black block (its invisible hover
targets had no fill where a stylesheet rule missed them, and SVG's default fill is black), so
these decode screenshots of the charts and look at the colours: each day's square in one of the
legend's shades, every shade in use for a learner with varied activity, no area in the default
black, and the calibration's points in their legend's colour, clear against the background.
"""

import io
import re
from datetime import timedelta

import pytest
from django.utils import timezone
from PIL import Image
from playwright.sync_api import expect

from tests.browser import sign_in
from tests.factories import make_deck, make_user
from tests.helpers import rate_item

pytestmark = pytest.mark.browser

SCHEMES = ("light", "dark")
# Reviews a day, by days ago: 1 to 8, so the heatmap needs all its shades (8, the busiest day,
# is the darkest), and the cards come back with predictions spread over the calibration's bins.
STUDY = {300: 1, 240: 2, 180: 3, 120: 4, 75: 5, 40: 6, 20: 7, 9: 8, 4: 3, 2: 8, 1: 2}
BLACK = (0, 0, 0)


def study_over_a_year(learner, cards):
    """The learner's reviews of `cards` (eight or more, none studied yet) on the days of STUDY,
    through the real scheduler."""
    now = timezone.now()
    for days_ago, count in STUDY.items():
        for number, card in enumerate(cards[:count]):
            rating = 1 if (days_ago + number) % 4 == 0 else 3  # some forgotten, most remembered
            rate_item(learner, card, rating, now - timedelta(days=days_ago, minutes=number))


def studied_over_a_year(username):
    learner = make_user(username)
    study_over_a_year(learner, list(make_deck("Memory", cards=8).cards.all()))
    return learner


def painted(element):
    """The element as Chromium painted it: an RGB image, one pixel per CSS pixel."""
    element.scroll_into_view_if_needed()
    return Image.open(io.BytesIO(element.screenshot(animations="disabled"))).convert("RGB")


def share_of(image, colour):
    return sum(count for count, each in image.getcolors(image.width * image.height) if each == colour) / (
        image.width * image.height
    )


def centre_colour(image, svg, element):
    """The colour at the centre of `element`, read from `image`, the screenshot of `svg`."""
    outer, inner = svg.bounding_box(), element.bounding_box()
    x, y = inner["x"] - outer["x"] + inner["width"] / 2, inner["y"] - outer["y"] + inner["height"] / 2
    return image.getpixel((int(x), int(y)))


def close(one, other, tolerance=3):
    return max(abs(a - b) for a, b in zip(one, other)) <= tolerance


def contrast(one, other):
    """WCAG's contrast ratio of two colours (3:1 is its minimum for the parts of a graphic)."""

    def luminance(colour):
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (v / 255 for v in colour)]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(one), luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def day_colours(image, heat):
    """The colour at the centre of each day's square, in the order of the heatmap's data-values."""
    width, left, top, cell, days = heat.evaluate(
        "s => [s.viewBox.baseVal.width, +s.dataset.left, +s.dataset.top, +s.dataset.cell,"
        " s.dataset.values.split(',').length]"
    )
    border = 1  # the chart's frame, outside the SVG's own drawing
    scale = (image.width - 2 * border) / width
    centre = (cell - 2) / 2  # a square is drawn a cell less its gap

    def at(units):
        return int(border + units * scale)

    return [
        image.getpixel((at(left + day // 7 * cell + centre), at(top + day % 7 * cell + centre)))
        for day in range(days)
    ]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_heatmap_paints_each_day_in_a_shade_of_its_legend_and_nothing_black(page, scheme):
    studied_over_a_year("hana")
    page.emulate_media(color_scheme=scheme)
    sign_in(page, "hana")

    heat = page.get_by_test_id("heatmap")
    image = painted(heat)
    legend = [centre_colour(image, heat, key) for key in heat.locator(".legend rect").all()]
    counts = [int(count) for count in heat.get_attribute("data-values").split(",")]
    days = day_colours(image, heat)

    assert len(legend) == 5 and len(set(legend)) == 5, f"the legend's shades, none to busiest: {legend}"
    assert BLACK not in legend
    off_legend = {colour for colour in days if not any(close(colour, shade) for shade in legend)}
    assert not off_legend, f"days painted in colours the legend does not show: {sorted(off_legend)[:5]}"
    shown = {next(n for n, shade in enumerate(legend) if close(colour, shade)) for colour in days}
    assert shown == {0, 1, 2, 3, 4}, f"varied study uses every shade, it showed {sorted(shown)}"
    assert all(close(colour, legend[0]) for colour, count in zip(days, counts) if not count)
    assert close(days[counts.index(max(counts))], legend[4]), "the busiest day in the darkest shade"
    assert share_of(image, BLACK) < 0.005, f"{share_of(image, BLACK):.0%} of the heatmap is black"


@pytest.mark.parametrize("scheme", SCHEMES)
def test_no_dashboard_chart_has_an_area_painted_black(page, scheme):
    studied_over_a_year("ines")
    page.emulate_media(color_scheme=scheme)
    sign_in(page, "ines")

    for testid in ("accuracy-chart", "forecast-chart", "heatmap"):
        image = painted(page.get_by_test_id(testid))
        assert share_of(image, BLACK) < 0.005, f"{share_of(image, BLACK):.0%} of the {testid} is black"


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", (320, 1280))
def test_the_calibration_chart_has_axes_a_legend_and_points_one_can_see(page, scheme, width):
    studied_over_a_year("juno")
    page.emulate_media(color_scheme=scheme)
    page.set_viewport_size({"width": width, "height": 800})
    sign_in(page, "juno")

    page.goto("/settings/")
    chart = page.get_by_role("img", name=re.compile("Predicted recall against"))
    expect(chart).to_have_count(1)
    for words in ("Predicted recall", "Remembered", "0%", "40%", "100%", "your reviews", "perfectly honest"):
        label = chart.locator("text", has_text=words).first
        expect(label).to_be_visible()
    # Tick labels one can read on a phone, and the chart fits it without scrolling sideways.
    assert chart.locator("text", has_text="100%").first.bounding_box()["height"] >= 10
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")

    image = painted(chart)
    background = max(image.getcolors(image.width * image.height))[1]
    key = centre_colour(image, chart, chart.locator(".legend .key-points"))
    points = chart.locator(".points circle")
    expect(points).to_have_count(page.locator("[data-testid=calibration] tbody tr").count())
    for point in points.all():
        assert close(centre_colour(image, chart, point), key), "each point in the colour its legend shows"
    assert key != BLACK and contrast(key, background) >= 3, f"points {key} on {background}"
    assert share_of(image, BLACK) < 0.005, f"{share_of(image, BLACK):.0%} of the calibration chart is black"
