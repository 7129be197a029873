"""Exporting one set or deck in every format: export, import into an empty database, export
again gives the same bytes, and what is lost on the way is exactly what the format cannot hold."""

import pytest

from quiz.content import ExportError, export_one, parse_document
from quiz.content.reading import recognise
from quiz.models import Card, Question, QuestionSet
from tests.export_content import (
    SEED_DECK_TITLE,
    SEED_SET_TITLE,
    TRICKY_DECK,
    TRICKY_SET,
    container,
    held,
    import_content,
    plain_data,
    reimport,
)
from tests.factories import make_deck, make_question_set

pytestmark = pytest.mark.django_db

SEED_SET, SEED_DECK = SEED_SET_TITLE, SEED_DECK_TITLE
SET_FORMATS = ["json", "quiz", "gift", "aiken", "csv"]
DECK_FORMATS = ["json", "deck", "csv", "anki"]
ROUND_TRIPS = [(format, title) for format in SET_FORMATS for title in (SEED_SET, TRICKY_SET)] + [
    (format, title) for format in DECK_FORMATS for title in (SEED_DECK, TRICKY_DECK)
]


@pytest.mark.parametrize(("format", "title"), ROUND_TRIPS)
def test_it_exports_the_same_bytes_after_a_round_trip_through_an_empty_database(tmp_path, format, title):
    import_content(tmp_path)
    first = export_one(container(title), format)

    second = export_one(reimport(first, format, tmp_path), format)

    assert second == first


@pytest.mark.parametrize(("format", "title"), ROUND_TRIPS)
def test_it_loses_exactly_what_the_format_cannot_hold(tmp_path, format, title):
    import_content(tmp_path)
    original = plain_data(container(title))
    exported = export_one(container(title), format)

    imported = plain_data(reimport(exported, format, tmp_path))

    assert imported == held(original, format, exported.file_name)


@pytest.mark.parametrize(
    ("format", "title"), [(f, SEED_SET) for f in SET_FORMATS] + [(f, SEED_DECK) for f in DECK_FORMATS]
)
def test_an_export_of_the_seed_is_recognised_by_its_content(tmp_path, format, title):
    import_content(tmp_path)

    text = export_one(container(title), format).text

    assert recognise(text) == format


def test_aiken_drops_the_explanation_and_the_topics(tmp_path):
    import_content(tmp_path)

    reimport(export_one(container(TRICKY_SET), "aiken"), "aiken", tmp_path)

    assert set(Question.objects.values_list("explanation", flat=True)) == {""}
    assert not Question.topics.through.objects.exists()


def test_gift_keeps_one_topic_per_question_as_its_category(tmp_path):
    import_content(tmp_path)

    reimport(export_one(container(TRICKY_SET), "gift"), "gift", tmp_path)

    topics = {question.stem[:10]: [t.name for t in question.topics.all()] for question in Question.objects.all()}
    assert list(topics.values()) == [[], ["Routing"], ["Routing"], []]


def test_gift_writes_a_single_answer_question_with_true_and_false_choices_as_it_is(tmp_path):
    # Only a true/false question is written {TRUE}/{FALSE}, which reads back as one: two ordinary
    # choices that happen to say True and False stay a single-answer question.
    import_content(tmp_path)

    text = export_one(container(TRICKY_SET), "gift").text

    assert "Routers keep no per-packet state. {~True =False ####They forward each packet alone.}" in text


def test_anki_drops_the_misconception_and_writes_topics_as_tags(tmp_path):
    import_content(tmp_path)

    reimport(export_one(container(TRICKY_DECK), "anki"), "anki", tmp_path)

    assert set(Card.objects.values_list("misconception", "correction")) == {("", "")}
    assert sorted(Card.topics.through.objects.values_list("topic__name", flat=True)) == ["Two_words", "Ünïcode"]


def test_the_quiz_document_writes_each_text_on_one_line(tmp_path):
    import_content(tmp_path)

    reimport(export_one(container(TRICKY_SET), "quiz"), "quiz", tmp_path)

    assert Question.objects.get(position=2).stem == "// looks like a comment after a blank line"


def test_the_deck_document_keeps_line_breaks_but_not_blank_lines(tmp_path):
    import_content(tmp_path)

    reimport(export_one(container(TRICKY_DECK), "deck"), "deck", tmp_path)

    card = Card.objects.get(position=1)
    assert card.front == 'Front with {braces}, "quotes"\tand a tab\nsecond line'
    assert card.back == "Back: ~ = # :\nafter a blank line"


def test_a_csv_answer_is_the_right_choices_text_so_a_choice_named_like_a_letter_stays_right(tmp_path):
    import_content(tmp_path)
    exported = export_one(container(TRICKY_SET), "csv")

    reimport(exported, "csv", tmp_path)

    assert Question.objects.get(position=4).choices.get(is_correct=True).text == "B"
    assert exported.text.splitlines()[0] == "stem,choice1,choice2,choice3,choice4,answer,explanation,topics"


# What a format cannot write at all is refused, never written to be misread --------------------


def test_a_quiz_document_refuses_a_question_without_an_explanation():
    question_set = make_question_set("No explanations", questions=1)
    question_set.questions.update(explanation="")

    with pytest.raises(ExportError, match="question 1 .* has no explanation"):
        export_one(question_set, "quiz")


def test_a_deck_document_refuses_a_card_without_a_misconception():
    deck = make_deck("Plain cards", cards=1)
    deck.cards.update(misconception="", correction="")

    with pytest.raises(ExportError, match="card 1 .* has no misconception"):
        export_one(deck, "deck")


def test_a_csv_refuses_a_topic_with_a_comma():
    deck = make_deck("Tagged", cards=1)
    Card.objects.get().topics.create(name="Routing, switching")

    with pytest.raises(ExportError, match="contains a comma"):
        export_one(deck, "csv")


def test_gift_refuses_the_characters_its_parser_uses_as_placeholders():
    question_set = make_question_set("Private use", questions=1)
    question_set.questions.update(stem="A \ue001 placeholder")

    with pytest.raises(ExportError, match="private-use"):
        export_one(question_set, "gift")


def test_aiken_refuses_a_stem_line_that_reads_as_a_choice():
    question_set = make_question_set("Aiken", questions=1)
    question_set.questions.update(stem="Pick one:\nA. this line looks like a choice")

    with pytest.raises(ExportError, match="reads as a choice"):
        export_one(question_set, "aiken")


def test_a_set_cannot_be_written_in_a_deck_format():
    with pytest.raises(KeyError):
        export_one(make_question_set(questions=1), "anki")


def test_the_file_name_reads_back_as_the_title(tmp_path):
    make_deck("Routing / switching basics", cards=1)
    exported = export_one(container("Routing / switching basics"), "anki")

    documents, _ = parse_document(exported.text.encode(), exported.file_name, "anki")

    assert exported.file_name == "Routing_-_switching_basics.txt"
    assert documents[0].title == "Routing - switching basics"


def test_it_reads_one_set_in_a_fixed_number_of_queries(django_assert_num_queries, tmp_path):
    import_content(tmp_path)
    question_set = QuestionSet.objects.get(title=SEED_SET)

    # the source, the questions, their choices, their topics
    with django_assert_num_queries(4):
        export_one(question_set, "gift")
