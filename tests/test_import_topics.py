"""Topics lines in quiz and deck documents: tagging, re-importing and clearing."""


import pytest

from quiz.models import Card, Question, Topic
from tests.importing import (
    DECK,
    QUIZ,
    card_paragraphs,
    content_snapshot,
    deck_text,
    question,
    quiz_text,
    run_import,
    the_set,
    topics_of,
    write,
)

pytestmark = pytest.mark.django_db


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
