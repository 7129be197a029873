import hashlib
import io
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from quiz.content import export_json
from quiz.models import Card, Choice, Deck, Question, QuestionSet, SourceDocument, Topic
from tests.factories import make_user, start_attempt

pytestmark = pytest.mark.django_db

SOURCES = Path(__file__).resolve().parent.parent / "fixtures" / "sources"
QUIZ = SOURCES / "000_8e65f90cff338d65.txt"
DECK = SOURCES / "004_833c4d9b98171f65.txt"
SEED = SOURCES.parent / "seed.json"
CONTENT_MODELS = (
    SourceDocument,
    QuestionSet,
    Question,
    Choice,
    Deck,
    Card,
    Topic,
    Question.topics.through,
    Card.topics.through,
)

GOOD_QUIZ = """Good quiz
Question 1: One?
- yes (Correct answer)
- no
Correct answer: yes
Because.
Topics: Basics
"""


def run_import(*paths, dry_run=False):
    """Run the command; return (stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    options = {"dry_run": True} if dry_run else {}
    call_command("import_questions", *[str(path) for path in paths], stdout=out, stderr=err, **options)
    return out.getvalue(), err.getvalue()


def content_snapshot():
    """Every content row, so 'nothing changed' also catches updates, not only new rows."""
    return {model.__name__: list(model.objects.order_by("pk").values()) for model in CONTENT_MODELS}


def write(directory, name, text, newline="\n"):
    path = directory / name
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


def quiz_text(*blocks, title="A quiz"):
    return "\n".join([title, *blocks]) + "\n"


def question(
    number, stem="Stem?", choices=("right (Correct answer)", "wrong"), answer="right", explanation="Why.", topics=None
):
    lines = [f"Question {number}: {stem}", *[f"- {choice}" for choice in choices]]
    if answer is not None:
        lines.append(f"Correct answer: {answer}")
    if explanation is not None:
        lines.append(explanation)
    if topics is not None:
        lines.append(topics)
    return "\n".join(lines)


def deck_text(*cards, title="A deck"):
    """Cards as (question paragraph, answer, misconception, correction)."""
    return "\n\n".join([title, *(paragraph for card in cards for paragraph in card)]) + "\n"


def card_paragraphs(front="Front?", back="Back.", misconception="Myth.", correction="Fix."):
    return (front, back, misconception, correction)


def topics_of(item):
    return sorted(item.topics.values_list("name", flat=True))


def the_set():
    return QuestionSet.objects.get(source__file_name=QUIZ.name)


def number_of(slot, choice):
    """The 1-based number under which the slot showed this choice (what a learner clicks)."""
    return [shown["id"] for shown in slot.shown_choices].index(choice.pk) + 1


# The seed documents --------------------------------------------------------------------------


def test_it_imports_the_seed_quiz_with_one_correct_choice_per_question():
    out, _ = run_import(QUIZ)

    question_set = the_set()
    questions = list(question_set.questions.order_by("position"))
    assert question_set.title == "NCA Multi-GPU Computing & Scaling 5 — Questions and Answers"
    assert [q.key for q in questions] == [f"q{n}" for n in range(1, 8)]
    assert [q.position for q in questions] == list(range(1, 8))
    for q in questions:
        assert q.choices.count() == 4
        assert q.choices.filter(is_correct=True).count() == 1
        assert "(Correct answer)" not in " ".join(q.choices.values_list("text", flat=True))
    assert questions[0].correct_choice.text == (
        "A memory optimization technique that partitions optimizer states, gradients, "
        "and parameters across data-parallel ranks"
    )
    assert questions[6].explanation == (
        "1F1B interleaves forward and backward passes of micro-batches so that activations from completed "
        "backward passes are freed before new forward passes accumulate them, bounding peak memory."
    )
    assert f'{QUIZ}: quiz "{question_set.title}": 7 questions (7 new, 0 updated)' in out


def test_it_records_the_source_document_by_file_name_and_checksum():
    run_import(QUIZ)

    source = SourceDocument.objects.get()
    assert source.file_name == QUIZ.name
    assert source.kind == SourceDocument.Kind.QUIZ
    assert source.title == the_set().title
    assert source.checksum == hashlib.sha256(QUIZ.read_bytes()).hexdigest()


def test_it_imports_the_seed_deck_with_the_exact_texts():
    run_import(DECK)

    deck = Deck.objects.get(source__file_name=DECK.name)
    paragraphs = DECK.read_text(encoding="utf-8").split("\n\n")
    cards = list(deck.cards.order_by("position"))
    assert deck.title == "Free NCA-AIIO flashcards" == paragraphs[0]
    assert [card.key for card in cards] == ["c1", "c2", "c3"]
    assert [[c.front, c.back, c.misconception, c.correction] for c in cards] == [
        paragraphs[1:5],
        paragraphs[5:9],
        paragraphs[9:13],
    ]
    assert cards[2].correction.endswith("Gang scheduling is the mechanism that co-allocates all nodes at once.")


def test_it_warns_about_the_trailing_lines_of_the_seed_quiz_with_their_line_numbers():
    _, err = run_import(QUIZ)

    warnings = err.strip().splitlines()
    assert len(warnings) == 2
    # Lines 51 and 52 (1-based): the file has 52 lines, the last without a newline.
    assert f"{QUIZ}:51: ignored line" in warnings[0]
    assert "NCA Multi-GPU Computing & Scaling 5" in warnings[0]
    assert f"{QUIZ}:52: ignored line" in warnings[1]
    assert "What is 'ZeRO'" in warnings[1]
    assert "NCA Multi-GPU" not in the_set().questions.get(key="q7").explanation


def test_a_crlf_copy_with_a_bom_gives_the_same_rows(tmp_path):
    for source in (QUIZ, DECK):
        data = source.read_bytes().replace(b"\n", b"\r\n")
        (tmp_path / source.name).write_bytes(b"\xef\xbb\xbf" + data)

    run_import(tmp_path / QUIZ.name, tmp_path / DECK.name)

    assert export_json() == SEED.read_text(encoding="utf-8")


def test_it_keeps_unicode_ampersands_angle_brackets_and_quotes_word_for_word(tmp_path):
    stem = "Is <b>bold</b> & \"quoted\" 'text' — café, 東京, 😀 kept?"
    choice = "Yes: <script>alert('&amp;')</script> “curly”"
    path = write(tmp_path, "unicode.txt", quiz_text(question(1, stem, (f"{choice} (Correct answer)", "No"), choice)))

    run_import(path)

    imported = Question.objects.get()
    assert imported.stem == stem
    assert imported.correct_choice.text == choice


# Re-importing --------------------------------------------------------------------------------


def test_importing_the_same_files_again_changes_nothing():
    run_import(QUIZ, DECK)
    before = content_snapshot()

    out, _ = run_import(QUIZ, DECK)

    assert content_snapshot() == before  # same pks, same updated_at and imported_at
    assert "7 questions (0 new, 0 updated)" in out
    assert "3 cards (0 new, 0 updated)" in out


def test_editing_a_source_updates_questions_in_place_and_keeps_attempts(tmp_path):
    run_import(QUIZ)
    learner = make_user("alice")
    attempt = start_attempt(learner, the_set())
    slot = attempt.slots.get(question__key="q1")
    chosen = slot.question.choices.get(position=1)
    attempt.record_answer(slot, number_of(slot, chosen))
    question_pks = dict(Question.objects.values_list("key", "pk"))
    choice_pks = list(Choice.objects.order_by("pk").values_list("pk", flat=True))

    edited = (
        QUIZ.read_text(encoding="utf-8")
        .replace("What is 'ZeRO' (Zero Redundancy Optimizer)", "What is ZeRO")
        .replace("ZeRO (from DeepSpeed) eliminates", "ZeRO, from DeepSpeed, eliminates")
        .replace("A loss-scaling algorithm", "A loss scaling algorithm")
    )
    out, _ = run_import(write(tmp_path, QUIZ.name, edited))

    q1 = Question.objects.get(key="q1")
    assert dict(Question.objects.values_list("key", "pk")) == question_pks
    assert list(Choice.objects.order_by("pk").values_list("pk", flat=True)) == choice_pks
    assert q1.stem.startswith("What is ZeRO and which")
    assert q1.explanation.startswith("ZeRO, from DeepSpeed, eliminates")
    assert q1.choices.get(position=1).text.startswith("A loss scaling algorithm")
    slot.refresh_from_db()
    assert slot.question_id == q1.pk
    assert slot.chosen_choice_id == chosen.pk
    assert "(0 new, 1 updated)" in out


def test_reordering_choices_keeps_each_row_with_its_text_and_leaves_answers_alone(tmp_path):
    run_import(QUIZ)
    attempt = start_attempt(make_user("alice"), the_set())
    slot = attempt.slots.get(question__key="q1")
    picked = slot.question.choices.get(position=1)  # a wrong one: "A loss-scaling algorithm ..."
    attempt.record_answer(slot, number_of(slot, picked))
    slot.refresh_from_db()
    seen = (slot.stem, slot.shown_choices, slot.chosen_index, slot.is_correct)
    texts_by_pk = dict(Choice.objects.values_list("pk", "text"))
    source_order = list(slot.question.choices.order_by("position").values_list("text", flat=True))

    lines = QUIZ.read_text(encoding="utf-8").split("\n")
    lines[2:6] = reversed(lines[2:6])  # q1's four choices, last first
    out, _ = run_import(write(tmp_path, QUIZ.name, "\n".join(lines)))

    slot.refresh_from_db()
    assert (slot.stem, slot.shown_choices, slot.chosen_index, slot.is_correct) == seen
    assert slot.is_correct is False
    assert slot.chosen_choice.text == picked.text
    assert dict(Choice.objects.values_list("pk", "text")) == texts_by_pk  # no row changed its text
    q1 = the_set().questions.get(key="q1")
    assert list(q1.choices.order_by("position").values_list("text", flat=True)) == source_order[::-1]
    assert q1.correct_choice.text.startswith("A memory optimization technique")
    assert "(0 new, 1 updated)" in out


def test_a_choice_removed_from_the_source_is_deleted_and_answers_keep_their_snapshot(tmp_path):
    original = quiz_text(question(1, choices=("a (Correct answer)", "b", "c"), answer="a"), question(2))
    run_import(write(tmp_path, "quiz.txt", original))
    attempt = start_attempt(make_user("alice"), QuestionSet.objects.get())
    slot = attempt.slots.get(question__key="q1")
    attempt.record_answer(slot, number_of(slot, Choice.objects.get(text="c")))
    slot.refresh_from_db()
    shown = slot.shown_choices

    edited = quiz_text(question(1, choices=("a (Correct answer)", "b"), answer="a"), question(2))
    run_import(write(tmp_path, "quiz.txt", edited))

    slot.refresh_from_db()
    assert list(Question.objects.get(key="q1").choices.values_list("text", flat=True)) == ["a", "b"]
    assert slot.chosen_choice is None
    assert slot.shown_choices == shown
    assert shown[slot.chosen_index - 1]["text"] == "c"
    assert slot.is_correct is False


def test_a_choice_edited_in_place_keeps_its_row_and_a_new_one_gets_a_new_row(tmp_path):
    original = quiz_text(question(1, choices=("a (Correct answer)", "b", "c"), answer="a"))
    run_import(write(tmp_path, "quiz.txt", original))
    pks = dict(Choice.objects.values_list("text", "pk"))

    # "b" is fixed in place (same position, new text); "c" and "a" swap; "d" is new and
    # takes the mark from "a" (cleared first: one correct choice at any moment).
    edited = quiz_text(question(1, choices=("c", "B", "a", "d (Correct answer)"), answer="d"))
    run_import(write(tmp_path, "quiz.txt", edited))

    rows = list(Choice.objects.order_by("position").values_list("pk", "text", "is_correct"))
    assert rows[:3] == [(pks["c"], "c", False), (pks["b"], "B", False), (pks["a"], "a", False)]
    assert rows[3][1:] == ("d", True) and rows[3][0] not in pks.values()


def test_moving_the_correct_mark_to_another_choice_updates_it_in_place(tmp_path):
    original = quiz_text(question(1, choices=("a (Correct answer)", "b", "c"), answer="a"))
    moved = quiz_text(question(1, choices=("a", "b", "c (Correct answer)"), answer="c"))
    run_import(write(tmp_path, "quiz.txt", original))
    pks = list(Choice.objects.order_by("position").values_list("pk", flat=True))

    run_import(write(tmp_path, "quiz.txt", moved))

    assert list(Choice.objects.order_by("position").values_list("pk", "is_correct")) == [
        (pks[0], False),
        (pks[1], False),
        (pks[2], True),
    ]


def test_questions_and_choices_removed_from_the_source_are_deleted(tmp_path):
    run_import(
        write(
            tmp_path,
            "quiz.txt",
            quiz_text(question(1, choices=("a (Correct answer)", "b", "c"), answer="a"), question(2)),
        )
    )

    out, _ = run_import(
        write(tmp_path, "quiz.txt", quiz_text(question(1, choices=("a (Correct answer)", "b"), answer="a")))
    )

    assert list(Question.objects.values_list("key", flat=True)) == ["q1"]
    assert list(Choice.objects.values_list("text", flat=True)) == ["a", "b"]
    assert "1 questions (0 new, 1 updated, 1 removed)" in out


def test_it_refuses_to_remove_a_question_learners_have_answered(tmp_path):
    run_import(write(tmp_path, "quiz.txt", quiz_text(question(1), question(2))))
    start_attempt(make_user("alice"), QuestionSet.objects.get())
    before = content_snapshot()

    with pytest.raises(CommandError, match="quiz.txt: cannot remove question q2: learners have answered it"):
        run_import(write(tmp_path, "quiz.txt", quiz_text(question(1))))

    assert content_snapshot() == before


def test_a_dry_run_validates_and_saves_nothing():
    out, _ = run_import(QUIZ, DECK, dry_run=True)

    assert "7 questions (7 new, 0 updated)" in out
    assert "nothing was saved" in out
    assert all(not model.objects.exists() for model in CONTENT_MODELS)


def test_it_imports_documents_it_has_never_seen(tmp_path):
    quiz = write(
        tmp_path,
        "networks.txt",
        quiz_text(
            question(1, "Which layer routes packets?", ("Network (Correct answer)", "Session", "Physical"), "Network"),
            question(
                3,
                "What does DNS resolve?",
                ("MAC addresses", "Names to addresses (Correct answer)"),
                "Names to addresses",
            ),
            title="Networking drill",
        ),
    )
    deck = write(
        tmp_path,
        "storage.md",
        "Storage cards\n\nFront A\n\nBack A\n\nMyth A\n\nFix A\n\nFront B\nsecond line\n\nBack B\n\nMyth B\n\nFix B\n",
    )

    out, _ = run_import(quiz, deck)

    question_set = QuestionSet.objects.get(title="Networking drill")
    assert [(q.key, q.position, q.choices.count()) for q in question_set.questions.all()] == [
        ("q1", 1, 3),
        ("q3", 2, 2),
    ]
    assert question_set.questions.get(key="q3").correct_choice.text == "Names to addresses"
    cards = Deck.objects.get(title="Storage cards").cards.all()
    assert [(c.key, c.front, c.correction) for c in cards] == [
        ("c1", "Front A", "Fix A"),
        ("c2", "Front B\nsecond line", "Fix B"),
    ]
    assert SourceDocument.objects.get(file_name="storage.md").kind == SourceDocument.Kind.DECK
    assert 'quiz "Networking drill": 2 questions (2 new, 0 updated)' in out
    assert 'deck "Storage cards": 2 cards (2 new, 0 updated)' in out


# Malformed documents: a message pointing at FILE:LINE and an untouched database ---------------


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
        4,
        "a second choice is marked (Correct answer) (first on line 3)",
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
        "exactly one choice must have",
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


def test_a_topics_line_after_the_explanation_tags_the_question_word_for_word(tmp_path):
    text = quiz_text(
        question(1, topics="Topics: NVLink,  Parallelism — multi-GPU , 東京 😀, , NVLink,"),
        question(2, topics="tOpIcS :Networking"),
        question(3),
    )

    _, err = run_import(write(tmp_path, "quiz.txt", text))

    questions = {q.key: q for q in Question.objects.all()}
    assert topics_of(questions["q1"]) == ["NVLink", "Parallelism — multi-GPU", "東京 😀"]
    assert topics_of(questions["q2"]) == ["Networking"]
    assert topics_of(questions["q3"]) == []
    assert {q.explanation for q in questions.values()} == {"Why."}
    assert sorted(Topic.objects.values_list("name", flat=True)) == [
        "NVLink",
        "Networking",
        "Parallelism — multi-GPU",
        "東京 😀",
    ]
    assert err == ""


def test_stray_lines_after_a_topics_line_are_still_warnings_with_their_line_numbers(tmp_path):
    text = quiz_text(question(1, topics="Topics: a\nStray title\nStray stem?"))
    path = write(tmp_path, "quiz.txt", text)

    _, err = run_import(path)

    assert topics_of(Question.objects.get()) == ["a"]
    assert err.splitlines() == [
        f"warning: {path}:8: ignored line after the explanation of q1: 'Stray title'",
        f"warning: {path}:9: ignored line after the explanation of q1: 'Stray stem?'",
    ]


def test_the_seed_documents_have_no_topics_and_keep_their_warnings():
    _, err = run_import(QUIZ, DECK)

    assert not Topic.objects.exists()
    assert len(err.strip().splitlines()) == 2


def test_a_topics_line_opening_a_cards_question_paragraph_tags_the_card(tmp_path):
    text = deck_text(
        card_paragraphs(front="Topics: Storage, Café ☕\nWhat is NVMe?\nsecond line"),
        card_paragraphs(front="TOPICS: Networking\nWhat is RoCE?", back="Topics: only a word here,\nin an answer"),
        card_paragraphs(front="Untagged?"),
    )

    run_import(write(tmp_path, "cards.txt", text))

    cards = list(Card.objects.order_by("position"))
    assert [(c.front, topics_of(c)) for c in cards] == [
        ("What is NVMe?\nsecond line", ["Café ☕", "Storage"]),
        ("What is RoCE?", ["Networking"]),
        ("Untagged?", []),
    ]
    assert cards[1].back == "Topics: only a word here,\nin an answer"  # only a question paragraph has topics


def test_questions_and_cards_share_one_row_per_topic_name(tmp_path):
    Topic.objects.create(name="Existing")
    quiz = write(
        tmp_path,
        "quiz.txt",
        quiz_text(question(1, topics="Topics: Shared, Existing"), question(2, topics="Topics: Shared")),
    )
    deck = write(tmp_path, "cards.txt", deck_text(card_paragraphs(front="Topics: Shared, Existing\nFront?")))

    run_import(quiz, deck)

    assert sorted(Topic.objects.values_list("name", flat=True)) == ["Existing", "Shared"]
    assert Topic.objects.get(name="Shared").questions.count() == 2
    assert Topic.objects.get(name="Existing").cards.count() == 1


def test_importing_a_tagged_document_again_changes_nothing(tmp_path):
    quiz = write(tmp_path, "quiz.txt", quiz_text(question(1, topics="Topics: b, a"), question(2)))
    deck = write(tmp_path, "cards.txt", deck_text(card_paragraphs(front="Topics: a\nFront?")))
    run_import(quiz, deck)
    before = content_snapshot()

    out, _ = run_import(quiz, deck)

    assert content_snapshot() == before  # no new topic or link rows, same updated_at
    assert "2 questions (0 new, 0 updated)" in out
    assert "1 cards (0 new, 0 updated)" in out


def test_topics_added_in_the_admin_survive_a_reimport_without_a_topics_line(tmp_path):
    run_import(QUIZ, DECK)
    admin_topic = Topic.objects.create(name="Added in the admin")
    q1 = the_set().questions.get(key="q1")
    first_card = Card.objects.get(key="c1")
    q1.topics.add(admin_topic)
    first_card.topics.add(admin_topic)
    before = content_snapshot()

    out, _ = run_import(QUIZ, DECK)

    assert content_snapshot() == before
    assert topics_of(q1) == topics_of(first_card) == ["Added in the admin"]
    assert "7 questions (0 new, 0 updated)" in out


def test_a_changed_topics_line_replaces_the_topics_and_counts_as_an_update(tmp_path):
    path = write(tmp_path, "quiz.txt", quiz_text(question(1, topics="Topics: old, kept"), question(2)))
    run_import(path)
    q1 = Question.objects.get(key="q1")
    q1.topics.add(Topic.objects.create(name="from the admin"))
    stamp = q1.updated_at

    out, _ = run_import(write(tmp_path, "quiz.txt", quiz_text(question(1, topics="Topics: kept, new"), question(2))))

    q1.refresh_from_db()
    assert topics_of(q1) == ["kept", "new"]
    assert q1.updated_at > stamp
    assert Topic.objects.filter(name="old").exists()  # other items may still use it; only the link goes
    assert "2 questions (0 new, 1 updated)" in out


def test_a_changed_topics_line_on_a_card_replaces_its_topics(tmp_path):
    run_import(write(tmp_path, "cards.txt", deck_text(card_paragraphs(front="Topics: old\nFront?"))))

    out, _ = run_import(write(tmp_path, "cards.txt", deck_text(card_paragraphs(front="Topics: new\nFront?"))))

    assert topics_of(Card.objects.get()) == ["new"]
    assert "1 cards (0 new, 1 updated)" in out


def test_an_empty_topics_line_clears_the_topics(tmp_path):
    run_import(write(tmp_path, "quiz.txt", quiz_text(question(1, topics="Topics: a, b"))))

    run_import(write(tmp_path, "quiz.txt", quiz_text(question(1, topics="Topics:  , "))))

    assert topics_of(Question.objects.get()) == []


def test_a_topic_name_of_exactly_100_characters_fits_even_outside_the_basic_plane(tmp_path):
    name = "😀" * 100
    run_import(write(tmp_path, "quiz.txt", quiz_text(question(1, topics=f"Topics: {name}"))))

    assert topics_of(Question.objects.get()) == [name]


def test_a_dry_run_creates_no_topics(tmp_path):
    path = write(tmp_path, "quiz.txt", quiz_text(question(1, topics="Topics: a")))

    out, _ = run_import(path, dry_run=True)

    assert "1 questions (1 new, 0 updated)" in out
    assert not Topic.objects.exists()
