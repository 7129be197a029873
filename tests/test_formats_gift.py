"""Moodle GIFT files: what is imported, what is skipped (with its line) and what is refused.

The parser tests ask for no database; the import tests at the end save into the real one.
"""

import io
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import call_command

from quiz.content import ContentError, import_documents, parse_document, read_document
from quiz.models import Question, QuestionSet, SourceDocument
from tests.importing import content_snapshot, run_import, topics_of

SAMPLE = Path(__file__).parent / "samples" / "networking.gift"


def parse(text, name="quiz.gift"):
    [document], warnings = parse_document(text.encode(), name, "gift")
    return document, warnings


def refusal(text, name="quiz.gift"):
    with pytest.raises(ContentError) as refused:
        parse_document(text.encode(), name, "gift")
    return str(refused.value)


def test_it_reads_the_multiple_choice_and_true_false_questions_of_a_moodle_file():
    [document], _ = read_document(SAMPLE)

    assert (document.kind, document.title, document.file_name) == (SourceDocument.Kind.QUIZ, "networking", SAMPLE.name)
    first, blank = document.items[:2]
    assert [item.key for item in document.items] == [f"q{n}" for n in range(1, 11)]
    assert (first.stem, first.line) == ("Which layer routes packets?", 4)
    assert first.choices == [("Network", True), ("Transport", False), ("Link", False)]
    assert first.explanation == "Routing happens at layer 3."
    assert first.topics == ["Networking/Routing"]
    assert blank.stem == "A router forwards _____ between networks."
    assert blank.choices == [("frames", False), ("packets", True), ("segments", False)]


def test_true_false_becomes_a_true_false_question_explained_by_the_feedback_for_a_right_answer():
    [document], _ = read_document(SAMPLE)
    true_false = document.items[2]

    assert true_false.kind == Question.Kind.TRUE_FALSE
    assert true_false.stem == "IP is **connectionless**."  # [markdown] dropped, the text kept as written
    assert true_false.markup == "markdown"  # and shown as Markdown
    assert true_false.choices == [("True", True), ("False", False)]
    assert true_false.explanation == "Right, each packet travels alone."
    assert parse("Is 2 odd?{F}\n")[0].items[0].choices == [("True", False), ("False", True)]


def test_escaped_characters_are_text_and_html_is_kept_as_text_not_run():
    [document], _ = read_document(SAMPLE)
    escapes, html = document.items[3:5]

    assert escapes.stem == "Which URL scheme is secure: http or https {TLS}?"
    assert escapes.choices == [("https: with TLS", True), ("http#plain", False)]
    assert html.stem == "<p>Which port does <b>HTTPS</b> use?</p>"
    assert html.topics == ["Security"]


def test_every_kind_the_app_cannot_hold_is_listed_as_skipped_with_its_line():
    _, warnings = read_document(SAMPLE)

    assert warnings == [
        f"{SAMPLE}:21: skipped: essay questions are not supported",
    ]


def test_several_right_answers_make_a_choose_n_question_and_weights_moodles_multiple_answer():
    [document], _ = read_document(SAMPLE)
    several, weighted = document.items[8:]

    assert (several.kind, several.partial_credit) == (Question.Kind.CHOOSE, False)
    assert several.choices == [("TCP", True), ("UDP", True), ("IP", False)]
    assert (weighted.kind, weighted.partial_credit) == (Question.Kind.SELECT_ALL, True)
    assert weighted.choices == [("TCP", True, Decimal("0.5")), ("UDP", True, Decimal("0.5")), ("IP", False, Decimal(-1))]


def test_an_answer_without_a_weight_weighs_nothing_and_weights_beside_an_equals_are_skipped():
    document, warnings = parse("Pick.{~%100%a ~b ~%-50%c}\n\nOdd.{=a ~%50%b ~c}\n")

    assert document.items[0].choices == [("a", True, Decimal(1)), ("b", False, Decimal(0)), ("c", False, Decimal("-0.5"))]
    assert warnings == ["quiz.gift:3: skipped: % weights beside a '=' answer (partial credit on a one-answer "
                        "question) are not supported"]


@pytest.mark.parametrize(
    "text, message",
    [
        ("Q?{~%150%a ~b}\n", "quiz.gift:1: an answer: a weight is a percentage from -100 to 100, not '150'"),
        ("Q?{~%50%a ~%25%b ~c}\n", "quiz.gift:1: the question: the right choices' weights add up to less than 100%"),
        ("Q?{~%5a ~b}\n", "quiz.gift:1: a weight is written %50%"),
    ],
)
def test_weights_that_cannot_give_full_credit_or_are_malformed_are_refused(text, message):
    assert refusal(text).startswith(message)


def test_a_text_without_an_answer_block_is_skipped_as_a_description():
    document, warnings = parse("Read this first.\n\nOne?{=yes ~no}\n")

    assert [item.stem for item in document.items] == ["One?"]
    assert warnings == ["quiz.gift:1: skipped: text without an answer block {...} (a description) is not a question"]


def test_a_multi_line_answer_block_comments_and_crlf_with_a_bom():
    text = "// about TCP\n::T::TCP is\n// inside\n{\n~fast\n=reliable # yes\n}\n"
    plain, _ = parse(text)
    windows, _ = parse_document(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode(), "quiz.gift", "gift")

    assert plain.items[0].stem == "TCP is"
    assert plain.items[0].choices == [("fast", False), ("reliable", True)]
    assert plain.items[0].explanation == "yes"
    assert plain.items[0].line == 2
    assert windows[0].items == plain.items


@pytest.mark.parametrize(
    "text, message",
    [
        ("::Q:: One?\n{=yes ~no\n", "quiz.gift:2: '{' is not closed by '}' (write \\{ for a brace in the text)"),
        ("One?} {=yes ~no}\n", "quiz.gift:1: '}' without an opening '{' (write \\} for a brace in the text)"),
        ("::Q:: One?\n{~yes\n~no}\n", "quiz.gift:2: no right answer: mark the right one with '='"),
        ("One?{~yes}\n", "quiz.gift:1: a multiple-choice question needs at least 2 answers"),
        ("One?{=yes ~yes}\n", "quiz.gift:1: the question: the choice 'yes' appears twice"),
        ("One?{=yes ~}\n", "quiz.gift:1: the question: a choice has no text"),
        ("One?{=a ~b}\nTwo?{=c ~d}\n", "quiz.gift:2: a second answer block: a question has one {...}"),
        ("::Q One?{=a ~b}\n", "quiz.gift:1: the question name is not closed"),
        ("{=a ~b}\n", "quiz.gift:1: the question has no text before its answer block"),
        ("One?{maybe =a ~b}\n", "quiz.gift:1: expected '=' or '~' before each answer"),
        ("Essay?{}\n", "quiz.gift: no question to import (1 skipped)"),
    ],
)
def test_a_malformed_question_is_refused_with_its_file_and_line(text, message):
    assert refusal(text).startswith(message)


def test_every_broken_question_is_reported_with_its_line_not_only_the_first():
    text = (
        "::Q1:: No right answer {~a ~b}\n\n"
        "::Q2:: Fine {=a ~b}\n\n"
        "::Q3:: Unclosed {=a ~b\n\n"
        "::Q4:: Two blocks {=a ~b}{=c ~d}\n"
    )

    assert refusal(text).splitlines() == [
        "quiz.gift:1: no right answer: mark the right one with '=' (or a positive %weight%)",
        "quiz.gift:5: '{' is not closed by '}' (write \\{ for a brace in the text)",
        "quiz.gift:7: a second answer block: a question has one {...}",
    ]


def test_a_gift_file_is_recognised_by_its_content():
    assert parse_document(SAMPLE.read_bytes(), "anything.txt")[0][0].kind == SourceDocument.Kind.QUIZ
    assert parse_document(b"One?{=yes ~no}\n", "x.txt")[0][0].items[0].stem == "One?"


def test_an_empty_category_stops_setting_topics():
    document, _ = parse("$CATEGORY: Maths\n\nOne?{=1 ~2}\n\n$CATEGORY:\n\nTwo?{=1 ~2}\n")

    assert [item.topics for item in document.items] == [["Maths"], []]


@pytest.mark.django_db
def test_it_imports_into_the_database_and_a_second_import_changes_nothing():
    import_documents([SAMPLE])
    question_set = QuestionSet.objects.get(source__file_name=SAMPLE.name)
    before = content_snapshot()

    import_documents([SAMPLE])

    assert content_snapshot() == before
    questions = list(question_set.questions.order_by("position"))
    assert [question.key for question in questions] == [f"q{n}" for n in range(1, 11)]
    assert questions[0].correct_choice.text == "Network"
    assert topics_of(questions[4]) == ["Security"]
    assert [(q.kind, q.partial_credit) for q in questions[5:]] == [
        ("numerical", False), ("matching", True), ("short_answer", False), ("choose", False), ("select_all", True),
    ]
    assert [choice.weight for choice in questions[9].choices.all()] == [Decimal("0.5"), Decimal("0.5"), Decimal(-1)]


@pytest.mark.django_db
def test_an_edited_file_updates_its_questions_in_place(tmp_path):
    path = tmp_path / "quiz.gift"
    path.write_text("One?{=yes ~no}\n\nTwo?{=a ~b}\n")
    import_documents([path])
    first = Question.objects.get(stem="One?")

    path.write_text("One?{=yes ~no ~maybe}\n\nTwo, edited?{=a ~b}\n")
    report = import_documents([path])

    assert Question.objects.count() == 2
    first.refresh_from_db()
    assert [choice.text for choice in first.choices.all()] == ["yes", "no", "maybe"]
    assert [(outcome.created, outcome.updated) for outcome in report.outcomes] == [(0, 2)]


@pytest.mark.django_db
def test_import_questions_reads_a_gift_file_and_prints_what_it_skipped():
    out, err = run_import(SAMPLE)

    assert f'{SAMPLE}: quiz "networking": 10 questions (10 new, 0 updated)' in out
    assert f"warning: {SAMPLE}:21: skipped: essay questions are not supported" in err
    assert Question.objects.filter(question_set__source__file_name=SAMPLE.name).count() == 10


@pytest.mark.django_db
def test_import_questions_reads_a_file_in_the_format_it_is_told(tmp_path):
    path = tmp_path / "plain.txt"
    # An answer block in mid-sentence alone does not make a file GIFT: on its own it reads as a deck.
    path.write_text("Grant is {~buried =entombed} in his tomb.\n")

    call_command("import_questions", str(path), format="gift", stdout=io.StringIO())

    assert Question.objects.get().stem == "Grant is _____ in his tomb."
