"""Aiken files: questions, `A.`/`A)` choices and `ANSWER: X`; no explanations, no topics."""

from pathlib import Path

import pytest

from quiz.content import ContentError, import_documents, parse_document, read_document
from quiz.models import QuestionSet, SourceDocument
from tests.importing import content_snapshot

SAMPLE = Path(__file__).parent / "samples" / "networking.aiken"


def refusal(text):
    with pytest.raises(ContentError) as refused:
        parse_document(text.encode(), "quiz.txt", "aiken")
    return str(refused.value)


def test_it_reads_questions_with_multi_line_stems_and_both_choice_labels():
    [document], warnings = read_document(SAMPLE)

    assert warnings == []
    assert (document.kind, document.title) == (SourceDocument.Kind.QUIZ, "networking")
    first, second = document.items
    assert (first.key, first.line, first.explanation, first.topics) == ("q1", 1, "", None)
    assert first.choices == [("Transport", False), ("Network", True), ("Link", False)]
    assert (second.key, second.line) == ("q2", 7)
    assert second.stem == "Which port does HTTPS use\nby default?"
    assert second.choices == [("80", False), ("443", True)]


def test_it_is_recognised_by_content_with_crlf_a_bom_and_no_final_line_break():
    data = b"\xef\xbb\xbf" + b"One?\r\nA. yes\r\nB. no\r\nANSWER: A"

    [document], _ = parse_document(data, "quiz.txt")

    assert document.items[0].choices == [("yes", True), ("no", False)]


def test_a_choice_needs_no_space_after_its_label_as_in_moodle():
    text = "Which layer routes?\nA)Transport\nB)Network\nC.Link\nANSWER: B\n"

    [document], _ = parse_document(text.encode(), "quiz.txt")  # recognised as Aiken, not as a deck

    assert document.kind == SourceDocument.Kind.QUIZ
    assert document.items[0].choices == [("Transport", False), ("Network", True), ("Link", False)]


def test_a_stem_line_with_a_label_but_no_space_stays_text_unless_it_is_the_choice_due():
    text = "Pick one.\nI.e. the best.\nA) yes\nB) no\nANSWER: A\n"

    [document], _ = parse_document(text.encode(), "quiz.txt", "aiken")

    assert document.items[0].stem == "Pick one.\nI.e. the best."
    assert document.items[0].choices == [("yes", True), ("no", False)]


@pytest.mark.parametrize(
    "text, message",
    [
        ("One?\nA. yes\nB. no\n", "quiz.txt:1: the question has no 'ANSWER: X' line"),
        ("One?\nA. yes\nB. no\nANSWER: C\n", "quiz.txt:4: ANSWER must be one of A, B, found 'C'"),
        ("One?\nA. yes\nC. no\nANSWER: A\n", "quiz.txt:3: expected choice B, found C"),
        ("One?\nA. yes\nANSWER: A\n", "quiz.txt:3: a question needs at least 2 choices"),
        ("One?\nA. yes\nstray\nB. no\nANSWER: A\n", "quiz.txt:3: expected the next choice or 'ANSWER: X'"),
        ("A. yes\nB. no\nANSWER: A\n", "quiz.txt:1: a choice before any question text"),
        ("One?\nA. yes\nB. yes\nANSWER: A\n", "quiz.txt:1: the question: the choice 'yes' appears twice"),
        ("ANSWER: A\n", "quiz.txt:1: 'ANSWER:' without a question"),
    ],
)
def test_a_malformed_question_is_refused_with_its_file_and_line(text, message):
    assert refusal(text).startswith(message)


def test_every_broken_question_is_reported_and_each_is_skipped_up_to_its_answer_line():
    text = (
        "Q1?\nA. a\nC. c\nD. d\nANSWER: A\n\n"  # one problem: the choices after it would only echo it
        "Q2?\nA. a\nB. b\nANSWER: B\n\n"
        "Q3?\nA. a\nB. b\nANSWER: E\n\n"
        "Q4?\nA. a\nANSWER: A\n"
    )

    assert refusal(text).splitlines() == [
        "quiz.txt:3: expected choice B, found C",
        "quiz.txt:15: ANSWER must be one of A, B, found 'E'",
        "quiz.txt:19: a question needs at least 2 choices",
    ]


@pytest.mark.django_db
def test_it_imports_into_the_database_and_a_second_import_changes_nothing():
    import_documents([SAMPLE])
    before = content_snapshot()

    import_documents([SAMPLE])

    assert content_snapshot() == before
    question_set = QuestionSet.objects.get(source__file_name=SAMPLE.name)
    assert [q.correct_choice.text for q in question_set.questions.order_by("position")] == ["Network", "443"]
    assert set(question_set.questions.values_list("explanation", flat=True)) == {""}
