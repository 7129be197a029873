"""Flipping a cloze card on a phone, in Chromium: the blank before, the answer marked after."""

import pytest
from playwright.sync_api import expect

from quiz.models import Card, Deck
from tests.browser import ARTIFACTS, log_in
from tests.test_browser_study import expect_ratings_in_one_row, shown_card

pytestmark = pytest.mark.browser

NOTE = "The {{c1::mitochondrion}} makes most of the cell's {{c2::ATP::energy molecule}}."


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_flipping_a_cloze_card_on_a_phone(page, scheme):
    deck = Deck.objects.create(title="Cells")
    for number in (1, 2):
        Card.objects.create(deck=deck, key=f"cell-c{number}", position=number, front=NOTE,
                            back="Oxidative phosphorylation.", cloze=number)
    log_in(page, f"cloze-{scheme}")
    page.emulate_media(color_scheme=scheme)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"/decks/{deck.pk}/study/")
    card = shown_card(page)
    asked, other = ("mitochondrion", "ATP") if card.cloze == 1 else ("ATP", "mitochondrion")

    front = page.locator(".face-front .card-text")
    expect(front).to_contain_text(other)
    expect(front).not_to_contain_text(asked)
    expect(front).to_contain_text("[...]" if card.cloze == 1 else "[energy molecule]")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=ARTIFACTS / f"cloze-front-390-{scheme}.png")
    page.get_by_text("Show answer").click()
    expect(page.locator(".face-back mark.cloze")).to_have_text(asked)
    expect(page.locator(".face-back .card-answer")).to_have_text("Oxidative phosphorylation.")
    expect_ratings_in_one_row(page, 390)
    colours = page.evaluate("""() => { const s = getComputedStyle(document.querySelector('mark.cloze'));
        return [s.color, s.backgroundColor]; }""")
    assert colours[0] != colours[1]
    page.screenshot(path=ARTIFACTS / f"cloze-flip-390-{scheme}.png", full_page=True)
