"""Malformed documents are refused with `FILE:LINE: what is wrong` and nothing is written;
harmless variations of the formats are read as meant."""


import pytest
from django.core.management import CommandError

from quiz.models import Deck, Question, QuestionSet
from tests.importing import GOOD_QUIZ, QUIZ, card_paragraphs, content_snapshot, deck_text, question, quiz_text, run_import, write

pytestmark = pytest.mark.django_db


def _json_set(title='"T"', source="null", stem='"S"', correct="true", choices=None):
    """An export file with one set of one question; the set starts on line 1, the question
    on line 2, its choices on line 3. Arguments are JSON source text."""
    choices = choices or f'[\n    {{"text": "a", "correct": {correct}}}, {{"text": "b", "correct": false}}]'
    return (
        f'{{"question_sets": [{{"title": {title}, "source": {source}, "questions": [\n'
        f'  {{"key": "q1", "stem": {stem}, "explanation": "", "choices": {choices}}}]}}]}}\n'
    )


def _json_set_with_topics(topics):
    """As _json_set, with a "topics" value (JSON source text) on the question of line 2."""
    return _json_set().replace('"explanation": ""', f'"explanation": "", "topics": {topics}')


BAD_DOCUMENTS = {
    "no_marker": (quiz_text(question(1, choices=("a", "b"))), 2, "no choice ends with (Correct answer)"),
    "two_markers": (
        quiz_text(question(1, choices=("a (Correct answer)", "b (Correct answer)"), answer="a")),
        5,
        "2 choices are marked (Correct answer) (lines 3, 4) but 'Correct answer:' names one",
    ),
    "answer_disagrees": (quiz_text(question(1, answer="wrong")), 5, "'Correct answer:' does not match"),
    "missing_answer_line": (
        quiz_text(question(1, answer=None), question(2)),
        5,
        "expected a 'Correct answer: ...' line",
    ),
    "missing_explanation": (quiz_text(question(1), question(2, explanation=None)), 11, "expected one explanation line"),
    "missing_explanation_before_next": (
        quiz_text(question(1, explanation=None), question(2)),
        6,
        "expected one explanation",
    ),
    "one_choice": (quiz_text(question(1, choices=("a (Correct answer)",), answer="a")), 2, "has 1 choice(s)"),
    "duplicate_number": (
        quiz_text(question(1), question(2), question(1)),
        12,
        "Question 1 appears twice (first on line 2)",
    ),
    "incomplete_card": (
        "Deck\n\nQ1\n\nA1\n\nM1\n\nC1\n\nQ2\n\nA2\n\nM2\n",
        11,
        "card 2 is incomplete: 3 paragraph(s) left",
    ),
    "title_only_deck": ("Just a title\n", 1, "no cards"),
    "empty": ("", 1, "file is empty"),
    "blank_lines_only": ("\n  \n", 1, "file is empty"),
    "bad_json": ('{"question_sets": [\n  {"title": "x",\n}', 3, "invalid JSON"),
    "json_two_correct": (
        '{"question_sets": [{"title": "T", "source": null, "questions": [\n'
        '  {"key": "q1", "stem": "S", "explanation": "", "choices": [\n'
        '    {"text": "a", "correct": true}, {"text": "b", "correct": true}]}]}],\n "decks": []}\n',
        2,
        "a single-answer question has exactly one right choice",
    ),
    "json_missing_key": (
        '{"decks": [\n {"title": "D", "source": "d.txt", "cards": [\n  {"key": "c1", "front": "F"}]}]}',
        3,
        '"back" must be',
    ),
    # Inputs that used to crash (ValueError, DataError, RecursionError) instead of a message.
    "huge_question_number": (quiz_text(question(1), question("9" * 5000)), 7, "question number is longer than 9"),
    "question_number_longer_than_the_key": (
        quiz_text(question("1" * 70)),
        2,
        "question number is longer than 9 digits",
    ),
    "nul_in_text": (quiz_text(question(1, stem="Nul\x00?")), 2, "contains a NUL character"),
    "nul_in_deck": ("Deck\n\nQ1\n\nA1\n\nM1\x00\n\nC1\n", 7, "contains a NUL character"),
    "nul_escape_in_json": (_json_set(stem='"S\\u0000"'), 2, "contains a NUL character"),
    "lone_surrogate_in_json": (_json_set(stem='"S\\ud800"'), 2, "unpaired surrogate"),
    "json_source_too_long": (_json_set(source=f'"{"s" * 256}.txt"'), 1, '"source" is longer than 255'),
    "json_title_too_long": (_json_set(title=f'"{"t" * 256}"'), 1, "title is longer than 255"),
    "json_text_too_long": (_json_set(stem=f'"{"x" * 10_001}"'), 2, '"stem" is longer than 10000'),
    "choice_too_long": (
        quiz_text(question(1, choices=("a (Correct answer)", "b" * 10_001), answer="a")),
        4,
        "a choice of q1 is longer than 10000",
    ),
    "card_too_long": ("Deck\n\nQ1\n\n" + "A" * 10_001 + "\n\nM1\n\nC1\n", 5, "a paragraph is longer"),
    "json_huge_number": (_json_set(correct="1" * 5000), 3, '"correct" must be true or false'),
    "json_nested_too_deep_for_the_parser": (
        '{"decks": [],\n "x": ' + "[" * 100_000 + "]" * 100_000 + "}",
        2,
        "JSON is nested more than 32 levels deep",
    ),
    "json_nested_deeper_than_an_export": (
        '{"decks": [],\n "x": ' + '{"y": ' * 40 + "1" + "}" * 40 + "}",
        2,
        "JSON is nested more than 32 levels deep",
    ),
    "duplicate_choice": (
        quiz_text(question(1, choices=("same (Correct answer)", "other", "same"), answer="same")),
        5,
        "question q1: the choice 'same' appears twice (first on line 3)",
    ),
    "json_duplicate_choice": (
        _json_set(choices='[{"text": "a", "correct": true}, {"text": "a", "correct": false}]'),
        2,
        "the choice 'a' appears twice in one question",
    ),
    # Topics
    "topic_too_long": (
        quiz_text(question(1, topics="Topics: fine, " + "t" * 101)),
        7,
        "the topic 'tttttttt",
    ),
    "topics_line_instead_of_the_explanation": (
        quiz_text(question(1, explanation="Topics: a"), question(2)),
        6,
        "expected one explanation line after 'Correct answer:', found a 'Topics:' line",
    ),
    "topics_line_after_a_stray_line": (
        quiz_text(question(1, topics="Stray line\nTopics: a")),
        8,
        "question q1: a 'Topics:' line must be the one line right after the explanation",
    ),
    "second_topics_line": (
        quiz_text(question(1, topics="Topics: a\nTopics: b")),
        8,
        "a 'Topics:' line must be the one line right after the explanation",
    ),
    "topics_line_before_the_first_question": (
        "A quiz\nTopics: a\n" + question(1) + "\n",
        2,
        "a 'Topics:' line belongs right after a question's explanation",
    ),
    "card_topic_too_long": (
        deck_text(card_paragraphs(), card_paragraphs(front="Topics: " + "t" * 101 + "\nFront?")),
        11,
        "is longer than 100 characters",
    ),
    "card_paragraph_that_is_only_a_topics_line": (
        deck_text(card_paragraphs(front="Topics: a, b")),
        3,
        "a 'Topics:' line must be the first line of a card's question paragraph",
    ),
    # A blank line after the Topics line shifts the paragraphs: the message names the Topics
    # line, not the "incomplete card" at the end of the file.
    "card_topics_line_set_apart_by_a_blank_line": (
        deck_text(card_paragraphs(), ("Topics: a", *card_paragraphs())),
        11,
        "with the question on the next line (no blank line between them)",
    ),
    "card_with_two_topics_lines": (
        deck_text(card_paragraphs(front="Topics: a\nTopics: b\nFront?")),
        4,
        "card 1 has a second 'Topics:' line",
    ),
    "json_topics_not_a_list": (_json_set_with_topics('"a, b"'), 2, '"topics" must be a list of non-empty strings'),
    "json_topics_null": (_json_set_with_topics("null"), 2, '"topics" must be a list of non-empty strings'),
    "json_topic_not_a_string": (_json_set_with_topics('["a", 1]'), 2, '"topics" must be a list of non-empty strings'),
    "json_topic_blank": (_json_set_with_topics('["a", "  "]'), 2, '"topics" must be a list of non-empty strings'),
    "json_topic_too_long": (_json_set_with_topics(f'["{"t" * 101}"]'), 2, "is longer than 100 characters"),
    "json_card_topics_not_a_list": (
        (
            '{"decks": [{"title": "D", "source": null, "cards": [\n'
            '  {"key": "c1", "front": "F", "back": "B", "misconception": "", "correction": "", "topics": {}}]}]}\n'
        ),
        2,
        '"topics" must be a list of non-empty strings',
    ),
}


@pytest.mark.parametrize("name", BAD_DOCUMENTS)
def test_a_malformed_document_is_refused_with_its_line_and_nothing_is_saved(tmp_path, name):
    text, line, message = BAD_DOCUMENTS[name]
    run_import(QUIZ)
    good = write(tmp_path, "good.txt", GOOD_QUIZ)
    bad = write(tmp_path, f"{name}.txt", text)
    before = content_snapshot()

    with pytest.raises(CommandError) as error:
        run_import(good, bad)

    assert str(error.value).startswith(f"{bad}:{line}: ")
    assert message in str(error.value)
    assert content_snapshot() == before


def test_the_command_prints_every_problem_of_every_file_and_saves_nothing(tmp_path):
    run_import(QUIZ)
    good = write(tmp_path, "good.txt", GOOD_QUIZ)
    three = write(tmp_path, "three.txt", quiz_text(
        question(1, choices=("a", "b")), question(2), question(3, answer="wrong"), question(4, explanation=None),
    ))
    one = write(tmp_path, "one.txt", "Deck\n\nQ1\n\nA1\n\nM1\n")
    before = content_snapshot()

    with pytest.raises(CommandError) as error:
        run_import(good, three, one)

    assert str(error.value).splitlines() == [
        f"{three}:2: question q1: no choice ends with (Correct answer)",
        f"{three}:15: question q3: 'Correct answer:' does not match the choice marked (Correct answer)",
        f"{three}:21: question q4: expected one explanation line after 'Correct answer:'",
        f"{one}:3: card 1 is incomplete: 3 paragraph(s) left, each card needs 4 (question, answer, misconception, correction)",
    ]
    assert content_snapshot() == before


def test_a_file_that_is_not_utf8_is_refused_with_its_line(tmp_path):
    good = write(tmp_path, "good.txt", GOOD_QUIZ)
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("Title\nQuestion 1: Caf\u00e9?\n".encode("latin-1"))

    with pytest.raises(CommandError, match=rf"^{bad}:2: not UTF-8 text"):
        run_import(good, bad)

    assert not Question.objects.exists()


def test_a_missing_file_is_refused_and_nothing_is_saved(tmp_path):
    good = write(tmp_path, "good.txt", GOOD_QUIZ)
    missing = tmp_path / "missing.txt"

    with pytest.raises(CommandError, match=rf"^{missing}: cannot read file: No such file"):
        run_import(good, missing)

    assert not Question.objects.exists()


def test_the_same_source_twice_in_one_run_is_refused(tmp_path):
    (tmp_path / "other").mkdir()
    first = write(tmp_path, "quiz.txt", GOOD_QUIZ)
    second = write(tmp_path / "other", "quiz.txt", GOOD_QUIZ)

    with pytest.raises(CommandError, match="quiz.txt is also imported from"):
        run_import(first, second)


# Ordinary variations in hand-written documents -----------------------------------------------


def test_tabs_or_several_spaces_after_the_dash_and_any_letter_case_of_the_marker_are_accepted(tmp_path):
    text = (
        "Variations\n"
        "Question 1: Tab?\n"
        "-\tright (correct answer)\n"
        "-   wrong\n"
        "correct answer: right\n"
        "Why.\n"
        "Question  2 : Spaces?\n"
        "-  wrong\n"
        "- right   (CORRECT ANSWER)\n"
        "Correct Answer:   right\n"
        "Why 2.\n"
    )

    run_import(write(tmp_path, "variations.txt", text))

    questions = list(Question.objects.order_by("position"))
    assert [q.key for q in questions] == ["q1", "q2"]
    assert [list(q.choices.values_list("text", "is_correct")) for q in questions] == [
        [("right", True), ("wrong", False)],
        [("wrong", False), ("right", True)],
    ]
    assert [q.explanation for q in questions] == ["Why.", "Why 2."]


def test_a_deck_whose_card_starts_with_question_1_is_read_as_a_deck(tmp_path):
    text = (
        "Interview cards\n\n"
        "Question 1: what does NCCL stand for?\n\n"
        "NVIDIA Collective Communications Library.\n\n"
        "It is a network driver.\n\n"
        "It is a library of collective operations.\n"
    )

    out, _ = run_import(write(tmp_path, "cards.txt", text))

    card = Deck.objects.get(title="Interview cards").cards.get()
    assert card.front == "Question 1: what does NCCL stand for?"
    assert card.back == "NVIDIA Collective Communications Library."
    assert not QuestionSet.objects.exists()
    assert 'deck "Interview cards": 1 cards (1 new, 0 updated)' in out


def test_a_quiz_with_blank_lines_between_its_parts_is_still_a_quiz(tmp_path):
    text = "Spaced quiz\n\nQuestion 1: One?\n\n- yes (Correct answer)\n- no\n\nCorrect answer: yes\n\nBecause.\n"

    run_import(write(tmp_path, "spaced.txt", text))

    assert Question.objects.get().correct_choice.text == "yes"


# Topics --------------------------------------------------------------------------------------
