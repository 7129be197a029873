"""The parsers of quiz.content on their own, without the database.

No test here asks for the `db` fixture, and pytest-django refuses any query made without it,
so these tests passing is what shows that reading and parsing a document never touches the
database (only saving it does).
"""

import json

import pytest

from quiz.content import ContentError, parse_document, read_document
from quiz.content.deck_format import parse_deck
from quiz.content.json_format import parse_export
from quiz.content.quiz_format import parse_quiz
from quiz.content.reading import looks_like_quiz
from quiz.models import SourceDocument

QUIZ = """Networking basics
Question 1: Which layer routes packets?
- Network (Correct answer)
- Transport
Correct answer: Network
Routing is layer 3.
Topics: OSI, Routing
Question 2: Which port is HTTPS?
- 80
- 443 (correct ANSWER)
Correct answer: 443
TLS on the default port.
"""

DECK = """Protocols

Topics: TCP
What does TCP guarantee?

Ordered, reliable delivery.

That it is fast.

It trades speed for reliability.
"""

EXPORT = {
    "question_sets": [
        {
            "title": "Exported set",
            "source": None,
            "questions": [
                {
                    "key": "q7",
                    "stem": "Two plus two?",
                    "explanation": "",
                    "choices": [{"text": "4", "correct": True}, {"text": "5", "correct": False}],
                    "topics": ["Maths"],
                }
            ],
        }
    ],
    "decks": [
        {
            "title": "Exported deck",
            "source": "deck.txt",
            "cards": [{"key": "c1", "front": "F", "back": "B", "misconception": "", "correction": ""}],
        }
    ],
}


def test_a_quiz_is_parsed_into_questions_with_their_choices_and_topics():
    [document], warnings = parse_document(QUIZ.encode(), "docs/net.txt")

    assert warnings == []
    assert (document.kind, document.title) == (SourceDocument.Kind.QUIZ, "Networking basics")
    assert document.file_name == "net.txt"
    first, second = document.items
    assert (first.key, first.stem, first.line) == ("q1", "Which layer routes packets?", 2)
    assert first.topics == ["OSI", "Routing"]
    assert first.choices == [("Network", True), ("Transport", False)]
    assert first.explanation == "Routing is layer 3."
    assert (second.key, second.choices, second.topics) == ("q2", [("80", False), ("443", True)], None)


def test_a_bom_and_crlf_give_the_same_questions_and_only_the_checksum_differs():
    [plain], _ = parse_document(QUIZ.encode(), "net.txt")
    [windows], _ = parse_document(b"\xef\xbb\xbf" + QUIZ.replace("\n", "\r\n").encode(), "net.txt")

    assert windows.items == plain.items
    assert windows.checksum != plain.checksum


def test_a_deck_is_parsed_into_cards_of_four_paragraphs():
    [document], warnings = parse_document(DECK.encode(), "protocols.txt")

    assert warnings == []
    assert (document.kind, document.title) == (SourceDocument.Kind.DECK, "Protocols")
    [card] = document.items
    assert (card.key, card.line, card.topics) == ("c1", 3, ["TCP"])
    assert (card.front, card.back) == ("What does TCP guarantee?", "Ordered, reliable delivery.")
    assert (card.misconception, card.correction) == ("That it is fast.", "It trades speed for reliability.")


def test_an_export_file_is_parsed_into_its_sets_and_decks():
    text = json.dumps(EXPORT, indent=2)

    question_set, deck = parse_export(text, "export.json")

    assert (question_set.kind, question_set.title, question_set.file_name) == ("quiz", "Exported set", None)
    assert question_set.checksum_of_source is False
    [question] = question_set.items
    assert (question.key, question.choices, question.topics) == ("q7", [("4", True), ("5", False)], ["Maths"])
    assert (deck.kind, deck.file_name, [card.key for card in deck.items]) == ("deck", "deck.txt", ["c1"])
    assert parse_document(text.encode(), "export.json") == ([question_set, deck], [])


def test_the_text_parsers_can_be_called_on_lines_directly():
    [document], _ = parse_quiz(QUIZ.split("\n"), "net.txt", checksum="x")
    deck = parse_deck(DECK.split("\n"), "protocols.txt", checksum="y")

    assert [item.key for item in document.items] == ["q1", "q2"]
    assert [item.key for item in deck.items] == ["c1"]


def test_a_question_line_starts_a_quiz_only_when_choices_follow_it():
    assert looks_like_quiz(QUIZ.split("\n"))
    assert not looks_like_quiz(["A deck", "", "Question 1: what is TCP?", "", "A protocol."])


def test_stray_lines_are_returned_as_warnings_with_their_line_numbers():
    _, warnings = parse_document(("Preamble\nstray\n" + QUIZ.split("\n", 1)[1]).encode(), "net.txt")

    assert warnings == ["net.txt:2: ignored line before the first question: 'stray'"]


@pytest.mark.parametrize(
    "name, text, message",
    [
        (
            "quiz.txt",
            "A quiz\nQuestion 1: One?\n- yes (Correct answer)\n- no\nBecause.\n",
            "quiz.txt:5: question q1: expected a 'Correct answer: ...' line after the choices",
        ),
        (
            "deck.txt",
            "A deck\n\nFront\n\nBack\n\nMyth\n\nFix\n\nOrphan\n",
            "deck.txt:11: card 2 is incomplete: 1 paragraph(s) left, each card needs 4 "
            "(question, answer, misconception, correction)",
        ),
        (
            "export.json",
            '{"question_sets": [\n  {"title": "T", "source": null, "questions": [\n'
            '    {"key": "q1", "stem": "S", "explanation": "", "choices": []}\n  ]}\n]}\n',
            "export.json:3: a question needs at least 2 choices",
        ),
        ("export.json", '{"decks": [\n  {"title": "T",\n]}\n', "export.json:3: invalid JSON:"),
        ("bad.txt", b"Title\n\xff\n", "bad.txt:2: not UTF-8 text (byte 0xff); save it as UTF-8"),
    ],
)
def test_a_malformed_document_is_refused_with_its_file_and_line(name, text, message):
    data = text if isinstance(text, bytes) else text.encode()

    with pytest.raises(ContentError) as refused:
        parse_document(data, name)

    assert str(refused.value).startswith(message)


def test_reading_a_missing_file_is_refused_without_a_line(tmp_path):
    with pytest.raises(ContentError) as refused:
        read_document(tmp_path / "missing.txt")

    assert refused.value.line is None
    assert str(refused.value).startswith(f"{tmp_path / 'missing.txt'}: cannot read file")


def _question(number, choices="- a (Correct answer)\n- b", answer="a"):
    return f"Question {number}: Q{number}?\n{choices}\nCorrect answer: {answer}\nWhy.\n"


def _card(front, back="Back."):
    return f"{front}\n\n{back}\n\nMyth.\n\nFix.\n\n"


def _json_question(key, stem="S", right=("true", "false")):
    choices = f'[{{"text": "a", "correct": {right[0]}}}, {{"text": "b", "correct": {right[1]}}}]'
    return f'    {{"key": "{key}", "stem": "{stem}", "explanation": "", "choices": {choices}}}'


THREE_BAD_ITEMS = {
    "quiz": (
        "A quiz\n" + _question(1, choices="- a\n- b") + _question(2) + _question(3, answer="b") + _question(2),
        [
            "quiz.txt:2: question q1: no choice ends with (Correct answer)",
            "quiz.txt:15: question q3: 'Correct answer:' does not match the choice marked (Correct answer)",
            "quiz.txt:17: Question 2 appears twice (first on line 7)",
        ],
    ),
    "deck": (
        "A deck\n\n" + _card("Topics: a\nTopics: b\nQ1?") + _card("Q2?", "B" * 10_001) + _card("Q3?")
        + _card(f"Topics: {'t' * 101}\nQ4?"),
        [
            "quiz.txt:4: card 1 has a second 'Topics:' line",
            "quiz.txt:15: a paragraph is longer than 10000 characters (a missing blank line?)",
            f"quiz.txt:29: the topic '{'t' * 57}...' is longer than 100 characters",
        ],
    ),
    "json": (
        '{"question_sets": [{"title": "T", "source": null, "questions": [\n'
        + ",\n".join([_json_question("q1", right=("true", "true")), _json_question("q2"),
                      _json_question("q3", stem=""), _json_question("q2")])
        + "\n]}]}\n",
        [
            'quiz.txt:2: question "q1": a single-answer question has exactly one right choice (this one has 2)',
            'quiz.txt:4: "stem" must be a non-empty string',
            'quiz.txt:5: key "q2" appears twice in one set or deck',
        ],
    ),
}


@pytest.mark.parametrize("format", THREE_BAD_ITEMS)
def test_every_broken_item_is_reported_with_its_line_and_the_first_is_the_error(format):
    text, problems = THREE_BAD_ITEMS[format]

    with pytest.raises(ContentError) as refused:
        parse_document(text.encode(), "quiz.txt", format)

    assert str(refused.value).splitlines() == problems
    # Callers that show one problem see the first.
    assert f"{refused.value.file}:{refused.value.line}: {refused.value.message}" == problems[0]
