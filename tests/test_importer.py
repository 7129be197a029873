"""Importing the seed documents and re-importing edited ones: rows are updated in place by
stable key, and learners' attempts survive."""

import hashlib

import pytest
from django.core.management import CommandError

from quiz.content import export_json
from quiz.models import Choice, Deck, Question, QuestionSet, SourceDocument
from tests.factories import make_user, start_attempt
from tests.importing import (
    CONTENT_MODELS,
    DECK,
    QUIZ,
    SEED,
    content_snapshot,
    number_of,
    question,
    quiz_text,
    run_import,
    the_set,
    write,
)

pytestmark = pytest.mark.django_db


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

    with pytest.raises(CommandError, match=r"quiz.txt: cannot remove question q2 \('Stem\?'\): learners have answered it"):
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
