"""Cloze cards while studying: one card per deletion number, each with its own memory, its
question blank before the flip and its answer marked after it, on every page that shows a card."""

import csv
import io
import re

import pytest
from django.urls import reverse

from quiz.content.markup import CLOZE_OPEN, render_cloze
from quiz.models import Card, Deck, Markup, MemoryState
from tests.helpers import HTMX, shown_item_id, study_url

NOTE = "{{c1::Canberra}} is the capital of {{c2::Australia}}, on the {{c3::Molonglo::river}}."
ANSWERS = {1: "Canberra", 2: "Australia", 3: "Molonglo"}


@pytest.fixture
def deck(db):
    deck = Deck.objects.create(title="Capitals")
    for number in (1, 2, 3):
        Card.objects.create(deck=deck, key=f"cap-c{number}", position=number, front=NOTE,
                            back="Since 1913.", cloze=number)
    return deck


def faces(html):
    flashcard = html[html.index('<details class="flashcard"'):]
    return flashcard[: flashcard.index("</summary>")], flashcard[flashcard.index("</summary>"):flashcard.index("</details>")]


def test_each_cloze_number_is_a_card_with_its_own_memory(learner_client, learner, deck):
    shown = []
    for _ in range(3):
        card_id = shown_item_id(learner_client.get(study_url(deck)).content.decode())
        learner_client.post(study_url(deck), {"item": card_id, "rating": 3})
        shown.append(card_id)

    assert sorted(shown) == sorted(deck.cards.values_list("pk", flat=True))
    memories = MemoryState.objects.filter(user=learner, kind=MemoryState.Kind.CARD)
    assert sorted(memories.values_list("card__cloze", flat=True)) == [1, 2, 3]


def test_the_front_blanks_the_cards_own_deletion_and_shows_the_others(learner_client, deck):
    seen = set()
    for _ in range(3):
        html = learner_client.get(study_url(deck)).content.decode()
        card = Card.objects.get(pk=shown_item_id(html))
        front, back = faces(html)

        assert ANSWERS[card.cloze] not in front
        for number, answer in ANSWERS.items():
            if number != card.cloze:
                assert answer in front
        assert ("[river]" if card.cloze == 3 else "[...]") in front
        assert f'<mark class="cloze">{ANSWERS[card.cloze]}</mark>' in back
        assert "Since 1913." in back and "Since 1913." not in front
        assert "{{c" not in html
        learner_client.post(study_url(deck), {"item": card.pk, "rating": 3})
        seen.add(card.cloze)
    assert seen == {1, 2, 3}


def test_the_htmx_fragment_of_the_next_card_keeps_its_answer_behind_the_flip(learner_client, deck):
    card_id = shown_item_id(learner_client.get(study_url(deck)).content.decode())
    html = learner_client.post(study_url(deck), {"item": card_id, "rating": 3}, follow=True, **HTMX).content.decode()
    card = Card.objects.get(pk=shown_item_id(html))
    front, _ = faces(html)

    assert ANSWERS[card.cloze] not in front


@pytest.mark.parametrize("markup", [Markup.PLAIN, Markup.MARKDOWN, Markup.HTML])
def test_a_hostile_answer_is_sanitised_or_escaped(learner_client, db, markup):
    deck = Deck.objects.create(title="Hostile")
    text = ('Before {{c1::<img src=x onerror="alert(1)"><script>alert(2)</script>'
            '<a href="javascript:alert(3)">x</a></mark><mark class="evil">}} after ' + CLOZE_OPEN)
    Card.objects.create(deck=deck, key="h-c1", position=1, front=text, back="", cloze=1, markup=markup)

    html = learner_client.get(study_url(deck)).content.decode()
    front, back = faces(html)

    for side in (front, back):
        assert "<script" not in side and "<img" not in side and '<a href="javascript' not in side
        assert '<mark class="evil">' not in side and CLOZE_OPEN not in side
    assert back.count('<mark class="cloze">') == 1 and back.count("</mark>") == 1
    assert "alert(2)" not in front


def test_a_cloze_mark_dropped_with_its_content_leaves_no_unbalanced_tag():
    html = render_cloze("<script>{{c1::x}}</script> and {{c1::y}}", Markup.HTML, 1, revealed=True)

    assert html.count("<mark") == html.count("</mark>")


def test_the_card_pages_show_the_blank_and_say_which_cloze(learner_client, learner, deck):
    card = deck.cards.get(cloze=2)
    learner_client.post(study_url(deck), {
        "item": shown_item_id(learner_client.get(study_url(deck)).content.decode()), "rating": 3})

    deck_page = learner_client.get(reverse("deck", args=[deck.pk])).content.decode()
    info = learner_client.get(reverse("card_info", args=[card.pk])).content.decode()
    history = learner_client.get(reverse("card_history")).content.decode()

    assert "Cloze 2" in deck_page and "{{c" not in deck_page
    assert re.search(r"Canberra is the capital of \[\.\.\.\]", deck_page)
    assert "Cloze 2" in info and '<mark class="cloze">Australia</mark>' in info
    assert "{{c" not in history and "[...]" in history


def test_the_owners_deck_editor_lists_each_cloze_card_blank(client, deck, learner):
    deck.owner = learner
    deck.save()
    client.force_login(learner)

    html = client.get(reverse("edit_deck", args=[deck.pk])).content.decode()

    assert "{{c" not in html and html.count("Cloze ") >= 3


def test_cloze_cards_are_not_drilled(learner_client, deck):
    deck.cards.update(misconception="Sydney is the capital.", correction="It is not.")

    html = learner_client.get(reverse("drill", args=[deck.pk])).content.decode()

    assert "Canberra" not in html and "{{c" not in html


def test_the_history_download_shows_each_cloze_card_as_the_learner_saw_it(learner_client, deck):
    for _ in range(3):
        learner_client.post(study_url(deck), {
            "item": shown_item_id(learner_client.get(study_url(deck)).content.decode()), "rating": 3})

    response = learner_client.get(reverse("download_history"))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))

    texts = {row["item_key"]: row["item_text"] for row in rows if row["item_kind"] == "card"}
    assert texts == {
        "cap-c1": "[...] is the capital of Australia, on the Molonglo.",
        "cap-c2": "Canberra is the capital of [...], on the Molonglo.",
        "cap-c3": "Canberra is the capital of Australia, on the [river].",
    }
