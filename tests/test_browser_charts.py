"""The charts as a person sees them: Chromium's own pixels, in light and dark mode.

A test of the DOM could not see the year heatmap painted as one black block (its invisible hover
targets had no fill where a stylesheet rule missed them, and SVG's default fill is black), so
these decode screenshots of the charts and look at the colours: each day's square in one of the
legend's shades, every shade in use for a learner with varied activity, no area in the default
black.
"""

import io
from datetime import timedelta

import pytest
from django.utils import timezone
from PIL import Image

from tests.browser import sign_in
from tests.factories import make_deck, make_user
from tests.helpers import rate_item

pytestmark = pytest.mark.browser

SCHEMES = ("light", "dark")
# Reviews a day, by days ago: 1 to 8, so the heatmap needs all its shades (8, the busiest day,
# is the darkest), and the cards come back with predictions spread over the calibration's bins.
STUDY = {300: 1, 240: 2, 180: 3, 120: 4, 75: 5, 40: 6, 20: 7, 9: 8, 4: 3, 2: 8, 1: 2}
BLACK = (0, 0, 0)


def studied_over_a_year(username):
    learner = make_user(username)
    cards = list(make_deck("Memory", cards=8).cards.all())
    now = timezone.now()
    for days_ago, count in STUDY.items():
        for number, card in enumerate(cards[:count]):
            rating = 1 if (days_ago + number) % 4 == 0 else 3  # some forgotten, most remembered
            rate_item(learner, card, rating, now - timedelta(days=days_ago, minutes=number))
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
    return image.getpixel((int(inner["x"] - outer["x"] + inner["width"] / 2), int(inner["y"] - outer["y"] + inner["height"] / 2)))


def close(one, other, tolerance=3):
    return max(abs(a - b) for a, b in zip(one, other)) <= tolerance


def day_colours(image, heat):
    """The colour at the centre of each day's square, in the order of the heatmap's data-values."""
    width, left, top, cell, days = heat.evaluate(
        "s => [s.viewBox.baseVal.width, +s.dataset.left, +s.dataset.top, +s.dataset.cell, s.dataset.values.split(',').length]"
    )
    border = 1  # the chart's frame, outside the SVG's own drawing
    scale = (image.width - 2 * border) / width
    centre = (cell - 2) / 2  # a square is drawn a cell less its gap
    return [
        image.getpixel((int(border + (left + day // 7 * cell + centre) * scale), int(border + (top + day % 7 * cell + centre) * scale)))
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
