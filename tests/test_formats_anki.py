"""Anki's "Notes in Plain Text" export: header lines, HTML fields kept as HTML, tags as topics."""

from pathlib import Path

import pytest

from quiz.content import ContentError, import_documents, parse_document, read_document
from quiz.content.html_text import html_to_text
from quiz.content.markup import render
from quiz.models import Card, Deck, Markup, SourceDocument
from tests.importing import content_snapshot, topics_of

SAMPLE = Path(__file__).parent / "samples" / "anki_export.txt"


def parse(text, name="export.txt"):
    [document], warnings = parse_document(text.encode(), name)
    return document, warnings


def refusal(text, name="export.txt"):
    with pytest.raises(ContentError) as refused:
        parse_document(text.encode(), name, "anki")
    return str(refused.value)


def test_it_reads_an_anki_export_with_guids_note_types_and_tags():
    [document], warnings = read_document(SAMPLE)

    assert warnings == []
    assert (document.kind, document.title, document.keys_are_identities) == (SourceDocument.Kind.DECK, "anki export", True)
    tcp, https = document.items
    assert (tcp.key, tcp.line, tcp.topics) == ("f;L2kq*nm{3", 6, ["networking", "transport"])
    # HTML fields are kept as written and shown as HTML (they were reduced to their text until
    # items had a markup): what the learner sees is the same words, with Anki's bold and breaks.
    assert tcp.markup == https.markup == Markup.HTML
    assert (tcp.front, tcp.back) == ("What does <b>TCP</b> guarantee?<br>(two words)", "Ordered&nbsp;delivery &amp; <i>reliability</i>")
    assert render(tcp.front, tcp.markup) == '<span class="rendered">What does <b>TCP</b> guarantee?<br>(two words)</span>'
    assert (tcp.misconception, tcp.correction) == ("", "")
    assert https.front == 'Which port, by default, does <span style="color:red">HTTPS</span> use?'
    # The script stays in the stored text, as written, and is never shown or run; nor is the style.
    assert render(https.back, https.markup) == '<span class="rendered">443</span>'
    assert render(https.front, https.markup) == '<span class="rendered">Which port, by default, does <span>HTTPS</span> use?</span>'


def test_html_is_reduced_to_the_text_a_browser_shows():
    assert html_to_text("<div>One</div><div>Two<br/>Three &lt;b&gt;</div>") == "One\nTwo\nThree <b>"
    assert html_to_text("a<br><br><br><br>b") == "a\n\nb"
    # A tag left open at the end is kept as text: the page escapes it, so it is shown, never run.
    assert html_to_text("<style>p {}</style>x &#39;y&#x27; <unclosed") == "x 'y' <unclosed"


def test_without_html_the_fields_are_kept_as_written():
    document, _ = parse("#separator:Comma\n#html:false\n#columns:Back,Front\n<b>back</b>,front\n")

    [card] = document.items
    assert (card.front, card.back, card.key, card.topics) == ("front", "<b>back</b>", "c1", None)


def test_a_file_without_headers_other_than_tags_guesses_its_separator():
    document, warnings = parse("#tags:exam anki\nOne|1|extra\nTwo|2|extra\n")

    assert [(card.front, card.back, card.topics) for card in document.items] == [
        ("One", "1", ["exam", "anki"]), ("Two", "2", ["exam", "anki"])
    ]
    assert warnings == ["export.txt:2: notes have 3 fields; only the first two (front and back) are imported"]


def test_crlf_and_a_bom_read_the_same():
    text = "#separator:tab\n#html:true\nOne\t1\n"

    assert parse_document(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode(), "e.txt")[0][0].items == \
        parse(text, "e.txt")[0].items


@pytest.mark.parametrize(
    "text, message",
    [
        ("#separator:slash\nOne/1\n", "export.txt:1: unknown separator 'slash'"),
        ("#separator:tab\n#tags column:zero\nOne\t1\n", "export.txt:2: #tags column must be a column number from 1"),
        ("#separator:tab\nOne\n", "export.txt:2: the back is empty"),
        ("#separator:tab\n#html:true\n<br>\t1\n", "export.txt:3: the front is empty"),
        ("#separator:tab\n", "export.txt:1: no notes after the header lines"),
        ("#separator:tab\n#guid column:1\ng1\tOne\t1\ng1\tTwo\t2\n", "export.txt:4: the guid 'g1' is also on line 3"),
        ('#separator:tab\nOne\t"1\n', "export.txt:2: malformed row"),
    ],
)
def test_a_malformed_export_is_refused_with_its_file_and_line(text, message):
    assert refusal(text).startswith(message)


def test_every_broken_note_is_reported_with_its_line():
    text = "#separator:tab\n#guid column:3\nF1\tB1\tg1\n\tB2\tg2\nF3\tB3\tg1\nF4\t\tg4\nF5\tB5\tg5\n"

    assert refusal(text).splitlines() == [
        "export.txt:4: the front is empty",
        "export.txt:5: the guid 'g1' is also on line 3",
        "export.txt:6: the back is empty",
    ]


@pytest.mark.django_db
def test_it_imports_into_the_database_and_a_second_import_changes_nothing():
    import_documents([SAMPLE])
    before = content_snapshot()

    import_documents([SAMPLE])

    assert content_snapshot() == before
    deck = Deck.objects.get(source__file_name=SAMPLE.name)
    card = deck.cards.get(key="f;L2kq*nm{3")
    assert (card.back, topics_of(card)) == ("Ordered&nbsp;delivery &amp; <i>reliability</i>", ["networking", "transport"])


@pytest.mark.django_db
def test_a_front_edited_in_anki_updates_the_card_with_its_guid(tmp_path):
    path = tmp_path / "export.txt"
    path.write_text("#separator:tab\n#guid column:1\ng1\tOne\t1\ng2\tTwo\t2\n")
    import_documents([path])
    two = Card.objects.get(key="g2")

    path.write_text("#separator:tab\n#guid column:1\ng2\tTwo, edited\t2\ng1\tOne\t1\n")
    import_documents([path])

    two.refresh_from_db()
    assert (Card.objects.count(), two.front) == (2, "Two, edited")
