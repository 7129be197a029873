"""export_questions: all content as JSON by default, or one set or deck in a chosen format."""

import io

import pytest
from django.core.management import CommandError, call_command

from quiz.content import export_one
from quiz.models import Deck, QuestionSet
from tests.export_content import SEED_DECK_TITLE, SEED_SET_TITLE, import_content
from tests.factories import make_deck, make_question_set

pytestmark = pytest.mark.django_db


def export(*args):
    out = io.StringIO()
    call_command("export_questions", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_it_writes_one_set_by_id_in_the_chosen_format(tmp_path):
    import_content(tmp_path)
    question_set = QuestionSet.objects.get(title=SEED_SET_TITLE)

    assert export("--set", str(question_set.pk), "--format", "gift") == export_one(question_set, "gift").text


def test_it_finds_a_deck_by_its_title_and_writes_json_by_default(tmp_path):
    import_content(tmp_path)

    assert export("--deck", SEED_DECK_TITLE) == export_one(Deck.objects.get(title=SEED_DECK_TITLE), "json").text


def test_it_writes_into_a_folder_under_the_name_that_reads_back_as_the_title(tmp_path):
    make_deck("Routing basics", cards=1)

    out = export("--deck", "Routing basics", "--format", "anki", "-o", str(tmp_path))

    assert out == f"Wrote {tmp_path / 'Routing_basics.txt'}\n"
    assert (tmp_path / "Routing_basics.txt").read_text(encoding="utf-8").startswith("#separator:tab\n")


def test_it_writes_to_the_file_it_is_given(tmp_path):
    make_question_set("Set", questions=1)

    export("--set", "Set", "--format", "aiken", "-o", str(tmp_path / "chosen.txt"))

    assert (tmp_path / "chosen.txt").read_text(encoding="utf-8").endswith("ANSWER: A\n")


def test_it_refuses_a_format_other_than_json_without_a_set_or_deck():
    with pytest.raises(CommandError, match="--format csv writes one set or deck"):
        export("--format", "csv")


def test_it_refuses_a_deck_format_for_a_set():
    make_question_set("Set", questions=1)

    with pytest.raises(CommandError, match="a question set can be exported as json, quiz, gift, aiken, csv, moodle, not anki"):
        export("--set", "Set", "--format", "anki")


def test_it_refuses_a_title_no_set_has():
    with pytest.raises(CommandError, match="no question set has the id or title 'Missing'"):
        export("--set", "Missing")


def test_it_refuses_a_title_two_decks_share_and_names_their_ids():
    first, second = make_deck("Twin", cards=1), make_deck("Twin", cards=1)

    with pytest.raises(CommandError, match=f"2 decks are titled 'Twin' \\(ids {first.pk}, {second.pk}\\)"):
        export("--deck", "Twin")


def test_it_refuses_both_a_set_and_a_deck():
    with pytest.raises(CommandError):
        export("--set", "1", "--deck", "1")


def test_it_reports_content_the_format_cannot_write():
    deck = make_deck("Plain", cards=1)
    deck.cards.update(misconception="", correction="")

    with pytest.raises(CommandError, match="card 1 .* has no misconception"):
        export("--deck", "Plain", "--format", "deck")
