"""Editing a cloze card edits its note: every card of the note takes the text, a new number gets
a card, a number gone retires its card (studied) or deletes it (never studied)."""

import re

import pytest
from django.urls import reverse

from quiz.models import Card, MemoryState
from quiz.study import scheduling
from tests.factories import make_deck
from tests.helpers import HTMX

NOTE = "{{c1::Canberra}} is the capital of {{c2::Australia}}."


@pytest.fixture
def own_deck(learner):
    return make_deck("My deck", cards=1, owner=learner)


def card_data(**changes):
    return {"front": NOTE, "back": "Since 1913.", "misconception": "", "correction": "", "topics": "", **changes}


def note(deck):
    return list(deck.cards.filter(cloze__isnull=False).order_by("cloze").values_list("cloze", "front", "retired_at"))


def test_a_new_card_with_markers_is_one_card_per_number(learner_client, own_deck):
    response = learner_client.post(reverse("new_card", args=[own_deck.pk]), card_data(), **HTMX)

    assert response.status_code == 200
    cards = list(own_deck.cards.filter(cloze__isnull=False).order_by("cloze"))
    assert [card.cloze for card in cards] == [1, 2]
    assert cards[0].key.removesuffix("-c1") == cards[1].key.removesuffix("-c2")
    assert "{{c" not in response.content.decode()


def test_editing_a_cloze_card_updates_its_siblings_adds_a_number_and_retires_a_studied_one(learner_client, learner, own_deck):
    learner_client.post(reverse("new_card", args=[own_deck.pk]), card_data())
    first, second = own_deck.cards.filter(cloze__isnull=False).order_by("cloze")
    scheduling.rate(user=learner, kind=MemoryState.Kind.CARD, item=first, rating=3, source="study")
    edited = "Canberra is the capital of {{c2::Australia}}, on the {{c3::Molonglo}}."

    response = learner_client.post(reverse("edit_card", args=[second.pk]), card_data(front=edited, back="Extra"))

    assert response.status_code == 302
    first.refresh_from_db()
    second.refresh_from_db()
    assert first.retired_at is not None and MemoryState.objects.filter(card=first).exists()
    assert second.front == edited and second.back == "Extra" and second.retired_at is None
    third = own_deck.cards.get(cloze=3)
    assert third.front == edited and third.key.removesuffix("-c3") == second.key.removesuffix("-c2")


def test_a_number_brought_back_brings_back_its_retired_card_and_memory(learner_client, learner, own_deck):
    learner_client.post(reverse("new_card", args=[own_deck.pk]), card_data())
    first, second = own_deck.cards.filter(cloze__isnull=False).order_by("cloze")
    scheduling.rate(user=learner, kind=MemoryState.Kind.CARD, item=first, rating=3, source="study")
    learner_client.post(reverse("edit_card", args=[second.pk]), card_data(front="Canberra: {{c2::Australia}}"))

    learner_client.post(reverse("edit_card", args=[second.pk]), card_data())

    first.refresh_from_db()
    assert first.retired_at is None and first.front == NOTE
    assert own_deck.cards.filter(cloze__isnull=False).count() == 2


def test_a_number_gone_from_a_card_never_studied_deletes_it(learner_client, own_deck):
    learner_client.post(reverse("new_card", args=[own_deck.pk]), card_data())
    second = own_deck.cards.get(cloze=2)

    response = learner_client.post(reverse("edit_card", args=[second.pk]), card_data(front="{{c1::Canberra}} only"), **HTMX)

    assert response.status_code == 200
    assert not Card.objects.filter(pk=second.pk).exists()
    assert [row[:2] for row in note(own_deck)] == [(1, "{{c1::Canberra}} only")]


def test_an_ordinary_card_given_markers_becomes_a_note(learner_client, own_deck):
    card = own_deck.cards.get()

    learner_client.post(reverse("edit_card", args=[card.pk]), card_data())

    card.refresh_from_db()
    assert card.cloze == 1 and own_deck.cards.filter(cloze=2).exists()


def test_a_note_whose_markers_are_all_removed_keeps_the_edited_card_as_an_ordinary_card(learner_client, own_deck):
    learner_client.post(reverse("new_card", args=[own_deck.pk]), card_data())
    first, second = own_deck.cards.filter(cloze__isnull=False).order_by("cloze")

    learner_client.post(reverse("edit_card", args=[first.pk]), card_data(front="Canberra is the capital."))

    first.refresh_from_db()
    assert first.cloze is None and first.retired_at is None and first.front == "Canberra is the capital."
    assert not Card.objects.filter(pk=second.pk).exists()


def test_a_number_whose_key_another_card_holds_gets_a_key_of_its_own(learner_client, own_deck):
    learner_client.post(reverse("new_card", args=[own_deck.pk]), card_data())
    first = own_deck.cards.get(cloze=1)
    prefix = first.key.removesuffix("-c1")
    Card.objects.create(deck=own_deck, key=f"{prefix}-c3", position=9, front="Other", back="Card")

    response = learner_client.post(reverse("edit_card", args=[first.pk]), card_data(front=NOTE + " {{c3::1913}}"))

    assert response.status_code == 302
    assert own_deck.cards.get(cloze=3).key.endswith("-c3") and own_deck.cards.get(key=f"{prefix}-c3").front == "Other"


def preview_of(client, **data):
    response = client.post(reverse("preview_item"), {"back": "Since 1913.", "markup": "plain", **data}, **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    return {label: value for label, value in re.findall(r"<dt>(.*?)</dt><dd[^>]*>(.*?)</dd>", html, re.S)}


def test_the_live_preview_shows_each_card_of_a_note_blank_then_revealed(learner_client):
    shown = preview_of(learner_client, front="{{c1::Canberra}} is the capital of {{c2::Australia::a country}}.")

    assert shown == {
        "Card 1: question": "[...] is the capital of Australia.",
        "Card 1: answer": '<mark class="cloze">Canberra</mark> is the capital of Australia.',
        "Card 2: question": "Canberra is the capital of [a country].",
        "Card 2: answer": 'Canberra is the capital of <mark class="cloze">Australia</mark>.',
        "Extra": "Since 1913.",
    }


def test_the_preview_button_shows_a_plain_note_as_its_cards_without_saving(learner_client, own_deck):
    card = own_deck.cards.get()

    response = learner_client.post(reverse("edit_card", args=[card.pk]), card_data(op="preview"))

    preview = response.content.decode().split('data-testid="preview"', 1)[1]
    assert "Card 2: question" in preview and "{{c" not in preview.split("<button", 1)[0]
    card.refresh_from_db()
    assert card.front != NOTE


def test_the_preview_of_a_note_with_many_numbers_or_broken_markers_never_fails(learner_client):
    many = preview_of(learner_client, front=" ".join(f"{{{{c{number}::w{number}}}}}" for number in range(1, 501)))
    broken = preview_of(learner_client, front="{{c1::open {{c0::zero}} }} stray }} {{c2::", markup="markdown")

    assert list(many)[-2:] == ["More cards", "Extra"] and "490 more" in many["More cards"]
    assert not re.search(r"\bw1\b", many["Card 1: question"]) and re.search(r"\bw1\b", many["Card 2: question"])
    # As in Anki: `{{c0::` opens nothing, so the first `}}` closes card 1's deletion; the rest is text.
    assert broken["Card 1: question"] == '<span class="rendered">[...] }} stray }} {{c2::</span>'
    assert '<mark class="cloze">open {{c0::zero</mark>' in broken["Card 1: answer"]


def test_deleting_a_cloze_card_asks_with_its_question_not_the_notes_markers(learner_client, own_deck):
    learner_client.post(reverse("new_card", args=[own_deck.pk]), card_data())
    second = own_deck.cards.get(cloze=2)

    html = learner_client.get(reverse("delete_card", args=[second.pk])).content.decode()

    assert "Canberra is the capital of [...]." in html and "{{c" not in html
