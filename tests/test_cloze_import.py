"""Cloze notes in deck documents and CSV files: one card per number (`KEY-cN`), re-imported in
place, written back once per note."""

import re

import pytest
from django.core.management import CommandError

from quiz.content.cloze import expand_cloze_items
from quiz.content.documents import MAX_ITEMS, ContentError, ParsedCard
from quiz.content.export import export_one
from quiz.content.reading import parse_document
from quiz.models import Card, Deck, MemoryState
from quiz.study import scheduling
from tests.factories import make_user
from tests.importing import run_import, write
from tests.test_import_partial import apply, paste, preview_url

NOTE = "{{c1::Canberra}} is the capital of {{c2::Australia}}."
NOTE_3 = "{{c1::Canberra}} is the capital of {{c2::Australia}}, on the {{c3::Molonglo}}."


def deck_document(note):
    return f"Capitals\n\n{note}\n\nSince 1913.\n\nSydney is the capital.\n\nIt is Canberra.\n\n" \
           "Paris?\n\nFrance.\n\nLyon.\n\nParis.\n"


def test_a_deck_document_with_a_cloze_note_imports_one_card_per_number(tmp_path, db):
    run_import(write(tmp_path, "capitals.txt", deck_document(NOTE)))

    cards = list(Deck.objects.get().cards.order_by("position"))
    assert [(card.key, card.cloze, card.position) for card in cards] == [
        ("c1-c1", 1, 1), ("c1-c2", 2, 2), ("c2", None, 3)]
    assert cards[0].front == cards[1].front == NOTE and cards[0].back == "Since 1913."


def test_reimporting_after_adding_a_number_adds_one_card_and_keeps_the_others(tmp_path, db):
    path = write(tmp_path, "capitals.txt", deck_document(NOTE))
    run_import(path)
    learner = make_user("learner")
    before = {card.cloze: card.pk for card in Card.objects.all()}
    for card in Card.objects.all():
        scheduling.rate(user=learner, kind=MemoryState.Kind.CARD, item=card, rating=3, source="study")

    write(tmp_path, "capitals.txt", deck_document(NOTE_3))
    run_import(path)

    after = {card.cloze: card for card in Card.objects.all()}
    assert set(after) == {None, 1, 2, 3}
    assert after[1].pk == before[1] and after[2].pk == before[2] and after[None].pk == before[None]
    assert after[1].front == NOTE_3 and after[3].key == "c1-c3"
    assert MemoryState.objects.filter(user=learner).count() == 3
    assert set(MemoryState.objects.values_list("card__cloze", flat=True)) == {None, 1, 2}


def test_a_csv_with_a_cloze_note_and_a_broken_row_keeps_each_cards_place(client, db):
    client.force_login(make_user("ann"))
    broken = "front,back\n" + f'"{NOTE}",Since 1913.\n' + "Rome?,\n" + "Paris?,France.\n"
    paste(client, broken, name="capitals", format="")
    html = client.get(preview_url()).content.decode()
    apply(client, skip=True)

    assert ":3:" in html or "capitals:3" in html or ".csv:3" in html
    assert list(Card.objects.order_by("position").values_list("position", "cloze", "front")) == [
        (1, 1, NOTE), (2, 2, NOTE), (4, None, "Paris?")]
    kept = set(Card.objects.values_list("pk", flat=True))

    paste(client, broken.replace("Rome?,", "Rome?,Italy."), name="capitals", format="")
    apply(client, skip=False)

    assert list(Card.objects.order_by("position").values_list("position", "cloze", "front")) == [
        (1, 1, NOTE), (2, 2, NOTE), (3, None, "Rome?"), (4, None, "Paris?")]
    assert kept < set(Card.objects.values_list("pk", flat=True))


def test_expanding_counts_skipped_places_among_the_expanded_cards():
    items, skipped = expand_cloze_items(
        [ParsedCard("c1", NOTE, "x", "", "", 2), ParsedCard("c3", "Paris?", "France.", "", "", 4)], "f.csv", [2])

    assert [item.key for item in items] == ["c1-c1", "c1-c2", "c3"] and skipped == [3]


def test_a_csv_with_a_cloze_note_imports_one_card_per_number(tmp_path, db):
    csv = "front,back\n" + f'"{NOTE}",Since 1913.\n' + "Paris?,France.\n"
    run_import(write(tmp_path, "capitals.csv", csv))

    assert list(Card.objects.order_by("position").values_list("key", "cloze")) == [
        ("c1-c1", 1), ("c1-c2", 2), ("c2", None)]


@pytest.mark.parametrize("format, extension", [("deck", "txt"), ("csv", "csv"), ("anki", "txt")])
def test_an_exported_deck_writes_each_note_once_and_reads_back_the_same_cards(tmp_path, db, format, extension):
    run_import(write(tmp_path, "capitals.txt", deck_document(NOTE_3)))

    text = export_one(Deck.objects.get(), format).text
    assert text.count("{{c1::Canberra}}") == 1
    (tmp_path / "again").mkdir()
    run_import(write(tmp_path / "again", f"copy.{extension}", text))

    copy = Deck.objects.exclude(pk=Deck.objects.order_by("pk").first().pk).get()
    assert list(copy.cards.order_by("position").values_list("cloze", "front")) == [
        (1, NOTE_3), (2, NOTE_3), (3, NOTE_3), (None, "Paris?")]


def test_too_many_cloze_cards_refuse_the_file_before_making_them():
    many = " ".join(f"{{{{c{number}::x}}}}" for number in range(1, 501))
    cards = [ParsedCard(f"c{number}", many, "b", "", "", number) for number in range(1, MAX_ITEMS // 500 + 2)]

    with pytest.raises(ContentError, match="more than"):
        expand_cloze_items(cards, "big.csv")


def preview_page(client, text):
    paste(client, text, name="capitals", format="csv")
    response = client.get(preview_url())
    assert response.status_code == 200
    return response.content.decode()


def test_the_import_preview_shows_each_cloze_card_blank_then_revealed(client, db):
    client.force_login(make_user("ann"))

    html = preview_page(client, "front,back\n" + f'"{NOTE}",Since 1913.\n' + "Paris?,France.\n")

    assert "{{c" not in html
    added = html[html.index('data-testid="preview-added"'):]
    assert "[...] is the capital of Australia." in added and "Canberra is the capital of [...]." in added
    questions = re.findall(r'data-testid="preview-question">(.*?)</dd>', html)
    assert questions == ["[...] is the capital of Australia.", "Canberra is the capital of [...]."]
    assert '<mark class="cloze">Canberra</mark> is the capital of Australia.' in html
    assert 'Canberra is the capital of <mark class="cloze">Australia</mark>.' in html
    assert "cloze 2" in html and "Since 1913." in html


def test_a_reimport_lists_changed_and_removed_cloze_cards_by_their_question(client, db):
    ann = make_user("ann")
    client.force_login(ann)
    preview_page(client, "front,back\n" + f'"{NOTE}",Since 1913.\n')
    apply(client, skip=False)
    for card in Card.objects.all():
        scheduling.rate(user=ann, kind=MemoryState.Kind.CARD, item=card, rating=3, source="study")

    html = preview_page(client, "front,back\n" + '"{{c1::Canberra}} is the capital of Oz.",Since 1913.\n')

    assert "{{c" not in html
    changed = html[html.index('data-testid="preview-changed"'):]
    assert "<del>Australia.</del><ins>Oz.</ins>" in changed  # card 1's question: the other deletion's answer
    assert "cannot remove “Canberra is the capital of [...].”" in html  # card 2, gone from the text, was studied


def test_refusing_to_remove_a_studied_cloze_card_names_its_question(tmp_path, db):
    path = write(tmp_path, "capitals.txt", deck_document(NOTE))
    run_import(path)
    scheduling.rate(user=make_user("learner"), kind=MemoryState.Kind.CARD, item=Card.objects.get(cloze=2), rating=3,
                    source="study")
    write(tmp_path, "capitals.txt", deck_document("{{c1::Canberra}} is the capital of Australia.").replace(
        "Paris?\n\nFrance.\n\nLyon.\n\nParis.\n", ""))

    with pytest.raises(CommandError) as refused:
        run_import(path)

    assert "'Canberra is the capital of [...].'" in str(refused.value) and "{{c" not in str(refused.value)


def test_the_anki_export_writes_each_cloze_note_once_as_anki_writes_a_cloze_note(tmp_path, db):
    run_import(write(tmp_path, "capitals.txt", deck_document(NOTE_3)))

    text = export_one(Deck.objects.get(), "anki").text

    assert text.splitlines() == [
        "#separator:tab", "#html:false", "#notetype column:1", "#deck:Capitals", "#tags column:4",
        f"Cloze\t{NOTE_3}\tSince 1913.\t",
        "Basic\tParis?\tFrance.\t",
    ]


def test_an_anki_export_read_back_into_its_deck_keeps_each_cloze_card_and_its_memory(tmp_path, db):
    path = write(tmp_path, "capitals.txt", deck_document(NOTE_3))
    run_import(path)
    learner = make_user("learner")
    for card in Card.objects.all():
        scheduling.rate(user=learner, kind=MemoryState.Kind.CARD, item=card, rating=3, source="study")
    before = set(Card.objects.values_list("pk", "cloze", "front", "back"))

    first = export_one(Deck.objects.get(), "anki").text
    write(tmp_path, "capitals.txt", first)
    run_import(path)

    assert set(Card.objects.values_list("pk", "cloze", "front", "back")) == before
    assert MemoryState.objects.filter(user=learner).count() == 4
    # The same notes again (the title is the file's name now, as for any Anki file).
    assert export_one(Deck.objects.get(), "anki").text == first.replace("#deck:Capitals", "#deck:capitals")


def test_an_anki_cloze_note_may_leave_its_back_extra_empty_but_a_basic_note_needs_its_back():
    text = "#separator:tab\n#html:true\n#notetype:Cloze\n{{c1::Canberra}} is the capital of {{c2::Australia}}.\t<br>\n"

    [document], _ = parse_document(text.encode(), "capitals.txt", "anki")

    assert [(card.key, card.cloze, card.back) for card in document.items] == [("c1-c1", 1, ""), ("c1-c2", 2, "")]
    assert "the back is empty" in str(refusal_of("#separator:tab\n#notetype:Basic\nParis?\t\n"))


def refusal_of(text):
    with pytest.raises(ContentError) as refused:
        parse_document(text.encode(), "capitals.txt", "anki")
    return refused.value


def test_ankis_own_export_of_a_cloze_note_keys_each_card_by_its_guid_and_number(tmp_path, db):
    def anki_file(text):
        return ("#separator:tab\n#html:true\n#guid column:1\n#notetype column:2\n#tags column:5\n"
                f"f;L2kq*nm{{3\tCloze\t{text}\t\tgeo\nq)8Jh|Vx2e\tBasic\tParis?\tFrance.\tgeo\n")
    path = write(tmp_path, "capitals.txt", anki_file(NOTE))
    run_import(path)
    before = dict(Card.objects.values_list("key", "pk"))

    write(tmp_path, "capitals.txt", anki_file(NOTE.replace("Canberra}}", "Canberra::a city}}")))
    run_import(path)

    assert before.keys() == {"f;L2kq*nm{3-c1", "f;L2kq*nm{3-c2", "q)8Jh|Vx2e"}
    assert dict(Card.objects.values_list("key", "pk")) == before
    assert Card.objects.get(cloze=1).front == NOTE.replace("Canberra}}", "Canberra::a city}}")


@pytest.mark.parametrize("format,extension", [("anki", "txt"), ("csv", "csv"), ("deck", "txt")])
def test_a_cloze_card_deleted_here_does_not_come_back_with_an_export_read_back(tmp_path, db, format, extension):
    from django.utils import timezone

    from quiz.editor import changes

    run_import(write(tmp_path, "capitals.txt", deck_document(NOTE)))
    deck = Deck.objects.get()
    changes.remove_item(Card.objects.get(deck=deck, cloze=2), now=timezone.now())

    text = export_one(deck, format).text
    assert "{{c2::" not in text and "{{c1::Canberra}} is the capital of Australia." in text
    path = write(tmp_path, f"capitals.{extension}", text)
    parsed, _ = parse_document(path.read_bytes(), path.name, format)
    assert [card.cloze for card in parsed[0].items if card.cloze] == [1]


def test_a_cloze_number_of_thousands_of_digits_is_text_never_an_error(learner_client):
    from quiz.content.cloze import cloze_back, cloze_front, cloze_numbers

    huge = "{{c" + "1" * 4301 + "::x}} y"
    assert (cloze_numbers(huge), cloze_front(huge, 1), cloze_back(huge, 1)) == ([], huge, huge)
    pasted = f"#separator:tab\n#html:false\n{huge}\tback\n"
    staged = paste(learner_client, pasted, name="huge", format="anki")
    assert staged.status_code == 302
    assert learner_client.get(staged.url).status_code == 200
