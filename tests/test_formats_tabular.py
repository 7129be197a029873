"""CSV and TSV tables with a header row: questions or cards, one per row."""

from pathlib import Path

import pytest

from quiz.content import ContentError, import_documents, parse_document, read_document
from quiz.models import Card, Deck, QuestionSet, SourceDocument
from tests.importing import content_snapshot, topics_of

SAMPLES = Path(__file__).parent / "samples"
QUESTIONS, CARDS = SAMPLES / "questions.csv", SAMPLES / "cards.tsv"


def parse(text, name="table.csv"):
    [document], warnings = parse_document(text.encode(), name)
    return document, warnings


def refusal(text, name="table.csv"):
    with pytest.raises(ContentError) as refused:
        parse_document(text.encode(), name, "csv")
    return str(refused.value)


def test_a_question_table_with_crlf_quoted_fields_and_answers_by_letter_text_and_number():
    [document], warnings = read_document(QUESTIONS)

    assert warnings == []
    assert (document.kind, document.title) == (SourceDocument.Kind.QUIZ, "questions")
    layers, port, bits = document.items
    assert (layers.key, layers.line, layers.topics) == ("q1", 2, ["OSI", "Routing"])
    assert layers.choices == [("Transport", False), ("Network", True), ("Link", False)]
    assert layers.explanation == "Routing happens at layer 3."
    assert (port.line, port.stem) == (3, "Which port does HTTPS use,\nby default?")
    assert port.choices == [("80", False), ("443", True), ("22", False)]
    assert (bits.line, bits.choices[1], bits.topics) == (5, ("32", True), [])


def test_a_card_table_with_synonyms_optional_misconceptions_and_ignored_columns():
    document, warnings = parse("Question;Answer;Notes\nWhat is TCP?;A protocol;mine\n", "cards.csv")

    assert document.kind == SourceDocument.Kind.DECK
    [card] = document.items
    assert (card.front, card.back, card.misconception, card.correction) == ("What is TCP?", "A protocol", "", "")
    assert warnings == ["cards.csv:1: ignored column 'Notes'"]


def test_the_sample_deck_is_tab_separated_with_topics():
    [document], _ = read_document(CARDS)

    tcp, udp = document.items
    assert (tcp.front, tcp.misconception, tcp.topics) == ("TCP", "TCP is always faster than UDP.", ["Transport"])
    assert (udp.misconception, udp.correction, udp.topics) == ("", "", [])


def test_choice_columns_keep_their_letters_when_one_is_empty():
    document, _ = parse("stem,a,b,c,d,answer\nPick four,one,two,,four,D\n")

    assert document.items[0].choices == [("one", False), ("two", False), ("four", True)]


def test_numbered_choice_columns_and_a_semicolon_delimiter():
    document, _ = parse("Question;Choice1;Choice2;Choice3;Correct Answer\nWhich?;x;y;z;3\n")

    assert document.items[0].choices == [("x", False), ("y", False), ("z", True)]


def test_an_answer_that_is_both_a_choice_text_and_another_choice_letter_takes_the_text_and_says_so():
    document, warnings = parse("stem,choices,answer\nWhich letter comes first?,B|A,A\n")

    assert document.items[0].choices == [("B", False), ("A", True)]
    assert warnings == [
        "table.csv:2: the answer 'A' is the text of choice 2 and the label of choice 1; took the choice whose text it is"
    ]


@pytest.mark.parametrize(
    "text, message",
    [
        ("stem,choices,explanation\nQ?,a|b,x\n", "table.csv:1: the header has no 'answer' column"),
        ("Just a title\n", "table.csv:1: the first line is not a header"),
        ("stem,choices,answer\nQ?,a|b,c\n", "table.csv:2: the answer 'c' matches no choice"),
        ("stem,choices,answer\nQ?,a,a\n", "table.csv:2: the question has 1 choice(s), needs at least 2"),
        ("stem,choices,answer\n,a|b,a\n", "table.csv:2: the stem is empty"),
        ("stem,choices,answer\nQ?,a|b,a,extra\n", "table.csv:2: 4 fields, but the header has 3"),
        ('stem,choices,answer\n"Q?,a|b,a\n', "table.csv:2: malformed row"),
        ("front,back,misconception\nF,B,M\n", "table.csv:2: the correction is empty"),
        ("front,back\n\n", "table.csv:1: no rows after the header"),
        ("front,back,answer\nF,B,A\n", "table.csv:1: two columns hold the back: 'back' and 'answer'"),
        ("stem,choices,a,b,answer\nQ?,x|y,x,y,A\n", "table.csv:1: a 'choices' column and numbered choice columns"),
    ],
)
def test_a_malformed_table_is_refused_with_its_file_and_line(text, message):
    assert refusal(text).startswith(message)


def test_every_broken_row_is_reported_and_a_malformed_one_does_not_stop_the_reading():
    text = 'stem,choices,answer\nQ1?,a|b,Z\nQ2?,a|b,A\n"Q3"x,a|b,A\n,a|b,A\nQ5?,a|b,B\n'

    assert refusal(text).splitlines() == [
        "table.csv:2: the answer 'Z' matches no choice (give its letter, its number or its exact text)",
        "table.csv:4: malformed row: ',' expected after '\"'",
        "table.csv:5: the stem is empty",
    ]


def test_problems_beyond_a_hundred_are_counted_not_listed():
    text = "front,back\n" + "F,\n" * 150

    lines = refusal(text).splitlines()

    assert len(lines) == 101
    assert lines[0] == "table.csv:2: the back is empty"
    assert lines[99] == "table.csv:101: the back is empty"
    assert lines[100] == "… and 50 more"


def test_a_deck_document_whose_title_has_a_comma_stays_a_deck():
    document, _ = parse("Protocols, ports\n\nFront\n\nBack\n\nMyth\n\nFix\n", "deck.txt")

    assert (document.kind, document.title) == (SourceDocument.Kind.DECK, "Protocols, ports")


@pytest.mark.django_db
def test_both_tables_import_into_the_database_and_a_second_import_changes_nothing():
    import_documents([QUESTIONS, CARDS])
    before = content_snapshot()

    import_documents([QUESTIONS, CARDS])

    assert content_snapshot() == before
    question_set = QuestionSet.objects.get(source__file_name=QUESTIONS.name)
    first = question_set.questions.get(key="q1")
    assert (first.correct_choice.text, topics_of(first)) == ("Network", ["OSI", "Routing"])
    deck = Deck.objects.get(source__file_name=CARDS.name)
    assert list(deck.cards.values_list("front", "misconception")) == [
        ("TCP", "TCP is always faster than UDP."), ("UDP", "")
    ]


@pytest.mark.django_db
def test_an_edited_row_updates_its_card_in_place(tmp_path):
    path = tmp_path / "cards.csv"
    path.write_text("front,back\nTCP,Reliable\nUDP,Fast\n")
    import_documents([path])
    udp = Card.objects.get(front="UDP")

    path.write_text("front,back\nTCP,Reliable\nUDP,Fast and unreliable\n")
    import_documents([path])

    udp.refresh_from_db()
    assert (Card.objects.count(), udp.back) == (2, "Fast and unreliable")


def test_an_answer_in_superscript_digits_is_a_choice_text_not_a_number():
    # "²".isdigit() is true but int("²") fails: the answer is matched as text.
    documents, _ = parse_document("stem,choice1,choice2,answer\nPick?,²,0,²\n".encode(), "sup.csv", "csv")

    assert documents[0].items[0].choices == [("²", True), ("0", False)]
