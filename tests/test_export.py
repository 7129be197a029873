import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from quiz.importer import export_json
from quiz.models import Card, Choice, Deck, Question, QuestionSet, SourceDocument
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


def test_seed_json_is_the_export_of_a_fresh_import_of_the_sources():
    # If this fails, the sources changed: run `make fixture` and commit fixtures/seed.json.
    run("import_questions", *SOURCES)

    assert run("export_questions") == SEED.read_text(encoding="utf-8")


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
