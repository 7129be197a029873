import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from quiz.content import export_json
from quiz.models import Card, Choice, Deck, Question, QuestionSet, SourceDocument, Topic
from tests.factories import make_deck, make_question_set

pytestmark = pytest.mark.django_db

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SOURCES = sorted(str(path) for path in (FIXTURES / "sources").glob("*.txt"))
SEED = FIXTURES / "seed.json"


def run(command, *args, **options):
    out = io.StringIO()
    call_command(command, *args, stdout=out, stderr=io.StringIO(), **options)
    return out.getvalue()


def delete_all_content():
    QuestionSet.objects.all().delete()
    Deck.objects.all().delete()
    SourceDocument.objects.all().delete()
    Topic.objects.all().delete()


def tag(item, *names):
    item.topics.add(*(Topic.objects.get_or_create(name=name)[0] for name in names))


def topic_links():
    """Every (item key, topic name) link, so a comparison also catches links, not only rows."""
    questions = Question.topics.through.objects.values_list("question__key", "topic__name")
    cards = Card.topics.through.objects.values_list("card__key", "topic__name")
    return sorted(questions) + sorted(cards)


def test_seed_json_is_the_export_of_a_fresh_import_of_the_sources():
    # If this fails, the sources changed: run `make fixture` and commit fixtures/seed.json.
    run("import_questions", *SOURCES)

    assert run("export_questions") == SEED.read_text(encoding="utf-8")


def test_untagged_content_exports_no_topics_key_so_the_seed_keeps_its_bytes():
    run("import_questions", *SOURCES)

    assert '"topics"' not in run("export_questions")
    assert '"topics"' not in SEED.read_text(encoding="utf-8")


def test_export_round_trips_through_an_empty_database(tmp_path):
    run("import_questions", *SOURCES)
    make_question_set("Unsourced set", questions=2)
    make_deck("Unsourced deck", cards=2)
    exported = tmp_path / "export.json"
    run("export_questions", "-o", str(exported))
    delete_all_content()

    run("import_questions", str(exported))

    assert export_json() == exported.read_text(encoding="utf-8")


def test_the_export_is_sorted_indented_unescaped_and_ends_with_a_newline():
    make_question_set("Zebra set", questions=1)
    make_question_set("Alpha set — ünïcode", questions=2)

    text = run("export_questions")

    data = json.loads(text)
    assert [s["title"] for s in data["question_sets"]] == ["Alpha set — ünïcode", "Zebra set"]
    assert data["question_sets"][0]["source"] is None
    assert [q["key"] for q in data["question_sets"][0]["questions"]] == ["q1", "q2"]
    assert data["question_sets"][0]["questions"][0]["choices"][0] == {"text": "Choice 1.0", "correct": True}
    assert data["decks"] == []
    assert "ünïcode" in text
    assert text.startswith('{\n  "question_sets": [\n')
    assert text.endswith("}\n") and not text.endswith("\n\n")


def test_reimporting_the_seed_after_the_sources_changes_nothing():
    run("import_questions", *SOURCES)
    before = {model: list(model.objects.order_by("pk").values()) for model in (SourceDocument, Question, Choice, Card)}

    out = run("import_questions", str(SEED))

    assert "7 questions (0 new, 0 updated)" in out
    assert "3 cards (0 new, 0 updated)" in out
    assert {model: list(model.objects.order_by("pk").values()) for model in before} == before


def test_reimporting_the_seed_is_idempotent():
    run("import_questions", str(SEED))
    before = {model: list(model.objects.order_by("pk").values()) for model in (SourceDocument, Question, Choice, Card)}

    run("import_questions", str(SEED))

    assert {model: list(model.objects.order_by("pk").values()) for model in before} == before
    assert SourceDocument.objects.count() == 2


def test_a_set_without_a_source_is_matched_by_title_on_reimport(tmp_path):
    make_question_set("Hand-made set", questions=2)
    exported = tmp_path / "export.json"
    run("export_questions", "-o", str(exported))

    run("import_questions", str(exported))  # renumbers the factory's 0-based choice positions
    out = run("import_questions", str(exported))

    assert QuestionSet.objects.count() == 1
    assert Question.objects.count() == 2
    assert 'quiz "Hand-made set": 2 questions (0 new, 0 updated)' in out


# Topics --------------------------------------------------------------------------------------


def test_the_export_lists_topics_sorted_by_name_only_on_tagged_items():
    question_set = make_question_set("Tagged set", questions=2)
    deck = make_deck("Tagged deck", cards=2)
    tag(question_set.questions.get(key="q1"), "Zeta", "alpha", "Émile", "NVLink")
    tag(deck.cards.get(key="c2"), "東京")

    data = json.loads(run("export_questions"))

    first, second = data["question_sets"][0]["questions"]
    assert first["topics"] == ["NVLink", "Zeta", "alpha", "Émile"]  # by code point, on every database
    assert list(first) == ["key", "stem", "explanation", "choices", "topics"]
    assert "topics" not in second
    cards = data["decks"][0]["cards"]
    assert "topics" not in cards[0]
    assert cards[1]["topics"] == ["東京"]


def test_topics_round_trip_through_an_empty_database(tmp_path):
    run("import_questions", *SOURCES)
    make_question_set("Unsourced set", questions=2)
    tag(Question.objects.get(question_set__title="Unsourced set", key="q2"), "Unsourced", "Ünïcode — 😀")
    tag(Question.objects.get(question_set__source__isnull=False, key="q1"), "Parallelism", "Memory")
    tag(Card.objects.get(key="c3"), "Scheduling", "Parallelism")
    exported = tmp_path / "export.json"
    run("export_questions", "-o", str(exported))
    links = topic_links()
    delete_all_content()

    run("import_questions", str(exported))

    assert export_json() == exported.read_text(encoding="utf-8")
    assert topic_links() == links
    assert Topic.objects.count() == 5


def test_reimporting_an_export_with_topics_changes_nothing(tmp_path):
    make_question_set("Hand-made set", questions=2)
    tag(Question.objects.get(key="q1"), "a", "b")
    exported = tmp_path / "export.json"
    run("export_questions", "-o", str(exported))
    run("import_questions", str(exported))  # renumbers the factory's 0-based choice positions
    before = {
        model: list(model.objects.order_by("pk").values()) for model in (Question, Topic, Question.topics.through)
    }

    out = run("import_questions", str(exported))

    assert {model: list(model.objects.order_by("pk").values()) for model in before} == before
    assert 'quiz "Hand-made set": 2 questions (0 new, 0 updated)' in out


def test_an_export_sets_the_topics_it_lists_and_leaves_the_others_alone(tmp_path):
    make_question_set("Hand-made set", questions=2)
    tag(Question.objects.get(key="q1"), "exported")
    exported = tmp_path / "export.json"
    run("export_questions", "-o", str(exported))
    tag(Question.objects.get(key="q1"), "added after the export")
    tag(Question.objects.get(key="q2"), "added in the admin")

    run("import_questions", str(exported))

    assert topic_links() == [("q1", "exported"), ("q2", "added in the admin")]


def test_an_export_file_with_a_topics_list_tags_the_items_it_names(tmp_path):
    exported = tmp_path / "export.json"
    exported.write_text(
        json.dumps(
            {
                "question_sets": [
                    {
                        "title": "From JSON",
                        "source": None,
                        "questions": [
                            {
                                "key": "q1",
                                "stem": "S?",
                                "explanation": "",
                                "choices": [{"text": "a", "correct": True}, {"text": "b", "correct": False}],
                                "topics": [" padded ", "padded", "Ünïcode"],
                            }
                        ],
                    }
                ],
                "decks": [
                    {
                        "title": "From JSON",
                        "source": None,
                        "cards": [
                            {
                                "key": "c1",
                                "front": "F",
                                "back": "B",
                                "misconception": "",
                                "correction": "",
                                "topics": [],
                            }
                        ],
                    }
                ],
            }
        ),
        encoding="utf-8",
    )

    run("import_questions", str(exported))

    assert topic_links() == [("q1", "padded"), ("q1", "Ünïcode")]


def test_the_export_reads_topics_in_one_query_per_kind_however_many_items(django_assert_num_queries):
    for number in range(3):
        question_set = make_question_set(f"Set {number}", questions=3)
        deck = make_deck(f"Deck {number}", cards=3)
        for question in question_set.questions.all():
            tag(question, "a", f"q{number}")
        for card in deck.cards.all():
            tag(card, "b", f"c{number}")

    # sets with their sources, questions, choices, question topics;
    # decks with their sources, cards, card topics.
    with django_assert_num_queries(7):
        data = json.loads(export_json())

    assert data["question_sets"][2]["questions"][0]["topics"] == ["a", "q2"]
    assert data["decks"][2]["cards"][0]["topics"] == ["b", "c2"]
