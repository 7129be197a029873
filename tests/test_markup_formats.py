"""How each format says an item's markup (docs/formats.md, "Formatting"), read and written back:
GIFT's `[markdown]`/`[html]` prefixes, the quiz and deck documents' `Format:` first line, the
CSV `markup` column, Anki's HTML kept as HTML, and Aiken's refusal."""

import pytest

from quiz.content import ContentError, parse_document
from quiz.content.aiken_format import write_aiken
from quiz.content.anki_format import write_anki
from quiz.content.deck_format import write_deck
from quiz.content.documents import ExportError
from quiz.content.gift_format import write_gift
from quiz.content.quiz_format import write_quiz
from quiz.content.tabular_format import write_cards_table, write_questions_table
from quiz.models import Markup


def parse(text, file, format=None):
    [document], warnings = parse_document(text.encode(), file, format)
    return document


def question(stem, markup=Markup.PLAIN, choices=("`a`", "b"), explanation="Because **so**."):
    data = {"key": "q1", "stem": stem, "explanation": explanation,
            "choices": [{"text": text, "correct": number == 0} for number, text in enumerate(choices)]}
    return {**data, "markup": markup} if markup != Markup.PLAIN else data


def card(front, markup=Markup.PLAIN, back="The **back**.", misconception="A *myth*.", correction="Why `not`."):
    data = {"key": "c1", "front": front, "back": back, "misconception": misconception, "correction": correction}
    return {**data, "markup": markup} if markup != Markup.PLAIN else data


def round_trip(write, data, file, format=None):
    """Written, read back, written again: the same bytes, and the items it read."""
    text = write(data)
    document = parse(text, file, format)
    items = [_plain_data(item) for item in document.items]
    again = write({**data, data_key(data): items})
    assert again == text
    return text, document.items


def data_key(data):
    return "questions" if "questions" in data else "cards"


def _plain_data(item):
    """A parsed item as export.py's plain data, for writing again."""
    if hasattr(item, "stem"):
        data = question(item.stem, item.markup, [choice[0] for choice in item.choices], item.explanation)
        for written, choice in zip(data["choices"], item.choices):
            written["correct"] = choice[1]
        return data
    return card(item.front, item.markup, item.back, item.misconception, item.correction)


# --- GIFT -----------------------------------------------------------------------------------------

def test_gift_markdown_and_html_prefixes_set_the_questions_markup_and_keep_the_text():
    text = (
        "::a::[markdown]What does `x \\= 1` do?\\n\\n```\\nx \\= 1\\n```{=Assigns ~Compares ####It **assigns**.}\n\n"
        "::b::[html]<p>Is <b>TCP</b> reliable?</p>{T}\n\n"
        "::c::[moodle]Plain *as typed*{T}\n\n"
        "::d::[plain]Plain <b>too</b>{T}\n\n"
        "::e::No prefix{T}\n"
    )
    first, second, third, fourth, fifth = parse(text, "x.gift").items

    assert (first.markup, first.stem) == (Markup.MARKDOWN, "What does `x = 1` do?\n\n```\nx = 1\n```")
    assert first.explanation == "It **assigns**."
    assert (second.markup, second.stem) == (Markup.HTML, "<p>Is <b>TCP</b> reliable?</p>")
    assert [item.markup for item in (third, fourth, fifth)] == [Markup.PLAIN] * 3
    assert (third.stem, fourth.stem) == ("Plain *as typed*", "Plain <b>too</b>")


def test_a_prefix_on_an_answer_is_dropped_and_the_question_keeps_its_stems_markup():
    [item] = parse("[markdown]Which? {=[html]<b>this</b> ~[plain]that}\n", "x.gift").items
    assert item.markup == Markup.MARKDOWN and [text for text, _ in item.choices] == ["<b>this</b>", "that"]


@pytest.mark.parametrize("markup", [Markup.MARKDOWN, Markup.HTML, Markup.PLAIN])
def test_gift_round_trips_each_markup(markup):
    stems = ["Which `code` {runs}?\n\n```\nprint('#~=:')\n```", "[html] starts like a prefix", "// like a comment"]
    data = {"title": "Set", "questions": [question(stem, markup) for stem in stems]}

    text, items = round_trip(write_gift, data, "set.gift")

    assert [item.stem for item in items] == stems and {item.markup for item in items} == {markup}
    if markup != Markup.PLAIN:
        assert f"\n[{markup}]Which `code` \\{{runs\\}}?" in text


# --- The quiz and deck documents --------------------------------------------------------------------

QUIZ = """Format: markdown
Networking
Question 1: Which flag lists **every** GPU?
- `--list-gpus` (Correct answer)
- `--all`
Correct answer: `--list-gpus`
See `nvidia-smi --help`.
"""


def test_a_quiz_document_says_its_format_on_its_first_line():
    document = parse(QUIZ, "net.txt")

    assert document.title == "Networking"
    [item] = document.items
    assert (item.markup, item.stem, item.line) == (Markup.MARKDOWN, "Which flag lists **every** GPU?", 3)
    assert parse(QUIZ.replace("markdown", "HTML"), "net.txt").items[0].markup == Markup.HTML
    assert parse(QUIZ.replace("Format: markdown\n", "\n  \n format :  markdown \n"), "net.txt").items[0].markup == Markup.MARKDOWN


def test_a_format_line_anywhere_else_or_with_other_words_changes_nothing():
    plain = QUIZ.replace("Format: markdown\n", "")
    assert parse(plain, "net.txt").items[0].markup == Markup.PLAIN
    # The title of a quiz about file formats, and a line further down: plain text still.
    document = parse("Format: markdown or HTML?\n" + plain.split("\n", 1)[1], "net.txt")
    assert (document.title, document.items[0].markup) == ("Format: markdown or HTML?", Markup.PLAIN)
    deck = "Formats\n\nFormat: markdown\n\nThe back.\n\nA myth.\n\nIts correction.\n"
    [item] = parse(deck, "formats.txt").items
    assert (item.front, item.markup) == ("Format: markdown", Markup.PLAIN)


@pytest.mark.parametrize("format", ["quiz", "deck"])
def test_a_document_with_nothing_after_its_format_line_is_refused(format):
    with pytest.raises(ContentError, match="nothing after the 'Format:' line"):
        parse("Format: markdown\n", "x.txt", format)


@pytest.mark.parametrize("markup", [Markup.MARKDOWN, Markup.HTML, Markup.PLAIN])
def test_the_quiz_document_round_trips_each_markup(markup):
    data = {"title": "Set", "questions": [question("Which `one`?", markup)]}
    text, [item] = round_trip(write_quiz, data, "set.txt")
    assert item.markup == markup
    assert text.startswith(f"Format: {markup}\n\nSet\n") if markup != Markup.PLAIN else text.startswith("Set\n")


def test_a_plain_document_titled_like_a_format_line_says_it_is_plain():
    data = {"title": "Format: html", "questions": [question("Which?")]}
    text, [item] = round_trip(write_quiz, data, "set.txt")
    assert text.startswith("Format: plain\n\nFormat: html\n") and item.markup == Markup.PLAIN
    deck = {"title": "Format: html", "cards": [card("Front")]}
    text, [item] = round_trip(write_deck, deck, "deck.txt", "deck")
    assert text.startswith("Format: plain\n\nFormat: html\n") and item.markup == Markup.PLAIN


@pytest.mark.parametrize("markup", [Markup.MARKDOWN, Markup.HTML, Markup.PLAIN])
def test_the_deck_document_round_trips_each_markup(markup):
    data = {"title": "Deck", "cards": [card("What is `x`?", markup), {**card("Second", markup), "key": "c2"}]}
    text, items = round_trip(write_deck, data, "deck.txt", "deck")
    assert {item.markup for item in items} == {markup}
    assert items[0].back == "The **back**."


@pytest.mark.parametrize("write, data", [
    (write_quiz, {"title": "Set", "questions": [question("One?"), {**question("Two?", Markup.MARKDOWN), "key": "q2"}]}),
    (write_deck, {"title": "Deck", "cards": [card("One", Markup.HTML), {**card("Two"), "key": "c2"}]}),
])
def test_a_document_of_mixed_markups_is_refused_naming_the_item(write, data):
    with pytest.raises(ExportError, match=r"(question|card) 2 of 'Set'|(question|card) 2 of 'Deck'"):
        write(data)


# --- CSV ----------------------------------------------------------------------------------------------

def test_the_csv_markup_column_says_each_rows_markup():
    text = "stem,choices,answer,markup\nWhich `one`?,a|b,A,Markdown\nWhich <b>two</b>?,a|b,A,html\nPlain?,a|b,A,\n"
    assert [item.markup for item in parse(text, "x.csv").items] == [Markup.MARKDOWN, Markup.HTML, Markup.PLAIN]
    cards = "front,back,markup\n**F**,B,markdown\n"
    assert parse(cards, "x.csv").items[0].markup == Markup.MARKDOWN


def test_an_unknown_markup_in_csv_is_the_rows_problem():
    with pytest.raises(ContentError, match="x.csv:2: the markup 'rtf' is none of: plain, markdown, html"):
        parse("front,back,markup\nF,B,rtf\n", "x.csv")


def test_csv_round_trips_markup_and_writes_no_column_for_plain_items():
    data = {"title": "Set", "questions": [question("Which `one`?", Markup.MARKDOWN), {**question("Plain?"), "key": "q2"}]}
    text, items = round_trip(write_questions_table, data, "set.csv")
    assert text.splitlines()[0].endswith(",markup") and [item.markup for item in items] == [Markup.MARKDOWN, Markup.PLAIN]
    plain = write_questions_table({"title": "Set", "questions": [question("Plain?")]})
    assert "markup" not in plain
    deck = {"title": "Deck", "cards": [card("<b>F</b>", Markup.HTML)]}
    text, [item] = round_trip(write_cards_table, deck, "deck.csv")
    assert item.markup == Markup.HTML and item.front == "<b>F</b>"


# --- Anki and Aiken -------------------------------------------------------------------------------

def test_anki_html_is_kept_as_written_and_marked_html():
    text = "#separator:tab\n#html:true\nWhat does <b>TCP</b> guarantee?<br>(two words)\tOrdered&nbsp;delivery\n"
    [item] = parse(text, "export.txt").items
    assert (item.front, item.back, item.markup) == ("What does <b>TCP</b> guarantee?<br>(two words)", "Ordered&nbsp;delivery", Markup.HTML)
    # Without the header, HTML in the fields says so; without HTML, plain text as before.
    assert parse("#separator:tab\n<i>a</i>\tb\n", "export.txt").items[0].markup == Markup.HTML
    assert parse("#separator:tab\na < b\tc\n", "export.txt").items[0].markup == Markup.PLAIN


def test_anki_writes_html_cards_as_html_and_plain_ones_beside_them_escaped():
    deck = {"title": "Deck", "cards": [card("<b>TCP</b>", Markup.HTML), {**card("a < b\nc"), "key": "c2"}]}
    text = write_anki(deck)
    assert "#html:true\n" in text and "a &lt; b<br>c\t" in text
    document = parse(text, "deck.txt")
    assert [(item.front, item.markup) for item in document.items] == [("<b>TCP</b>", Markup.HTML), ("a &lt; b<br>c", Markup.HTML)]
    assert write_anki({**deck, "cards": [_plain_data(item) for item in document.items]}) == text
    assert "#html:false\n" in write_anki({"title": "Deck", "cards": [card("a < b")]})


def test_anki_refuses_markdown_cards():
    with pytest.raises(ExportError, match="'What is `x`\\?' is written in Markdown, which Anki does not read"):
        write_anki({"title": "Deck", "cards": [card("What is `x`?", Markup.MARKDOWN)]})


@pytest.mark.parametrize("markup", [Markup.MARKDOWN, Markup.HTML])
def test_aiken_refuses_markdown_and_html_naming_the_question(markup):
    with pytest.raises(ExportError, match="the question 'Which `one`\\?' is written in .*Aiken holds plain text only"):
        write_aiken({"title": "Set", "questions": [question("Which `one`?", markup)]})
