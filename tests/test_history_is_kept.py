"""No learner's history is ever lost or moved onto another item: not by re-importing a
document, not by deleting content, a class or an assignment, not by editing a question."""

import random
import re

import pytest
from django.core.management import CommandError, call_command
from django.db.models import ProtectedError
from django.urls import reverse
from django.utils import timezone

from quiz.models import Attempt, Card, MemoryState, Question, ReviewLog
from tests.class_factories import make_assignment, make_classroom
from tests.factories import make_deck, make_question_set, start_attempt
from tests.helpers import answer_all, answer_at, rate_item, rate_shown_card
from tests.importing import card_paragraphs, content_snapshot, deck_text, question, quiz_text, run_import, write

pytestmark = pytest.mark.django_db

CARDS = [card_paragraphs(f"Front {n}?", f"Back {n}.", f"Myth {n}.", f"Fix {n}.") for n in (1, 2, 3)]


def card(front):
    return Card.objects.get(front=front)


def studied(learner, front):
    return rate_item(learner, card(front), 3, at=timezone.now())


def test_a_reimport_that_drops_a_studied_card_is_refused_and_changes_nothing(tmp_path, learner):
    run_import(write(tmp_path, "deck.txt", deck_text(*CARDS)))
    studied(learner, "Front 2?")
    before = content_snapshot(), MemoryState.objects.count(), ReviewLog.objects.count()

    with pytest.raises(CommandError, match=r"deck.txt: cannot remove card c2 \('Front 2\?'\): learners have studied it"):
        run_import(write(tmp_path, "deck.txt", deck_text(CARDS[0], CARDS[2])))

    assert (content_snapshot(), MemoryState.objects.count(), ReviewLog.objects.count()) == before


def test_removing_an_earlier_card_keeps_each_history_with_its_own_text(tmp_path, learner):
    run_import(write(tmp_path, "deck.txt", deck_text(*CARDS)))
    memory = studied(learner, "Front 2?").memory

    out, err = run_import(write(tmp_path, "deck.txt", deck_text(CARDS[1], CARDS[2])))  # card 1 removed

    memory.refresh_from_db()
    assert memory.card.front == "Front 2?" and memory.card.position == 1
    assert "1 removed" in out and not err


def test_reordering_cards_and_questions_moves_no_history(tmp_path, learner):
    run_import(write(tmp_path, "deck.txt", deck_text(*CARDS)))
    run_import(write(tmp_path, "quiz.txt", quiz_text(question(1, "First?"), question(2, "Second?"))))
    memory = studied(learner, "Front 3?").memory
    attempt = answer_all(start_attempt(learner, Question.objects.get(stem="First?").question_set))

    run_import(write(tmp_path, "deck.txt", deck_text(CARDS[2], CARDS[0], CARDS[1])))
    run_import(write(tmp_path, "quiz.txt", quiz_text(question(1, "Second?"), question(2, "First?"))))

    memory.refresh_from_db()
    assert memory.card.front == "Front 3?"
    assert [slot.question.stem for slot in attempt.slots.order_by("position")] == [slot.stem for slot in attempt.slots.order_by("position")]


def test_editing_the_text_of_a_studied_card_says_that_its_history_goes_with_it(tmp_path, learner):
    run_import(write(tmp_path, "deck.txt", deck_text(*CARDS)))
    memory = studied(learner, "Front 2?").memory
    edited = card_paragraphs("Front two, reworded?", "Back 2.", "Myth 2.", "Fix 2.")

    _, err = run_import(write(tmp_path, "deck.txt", deck_text(CARDS[0], edited, CARDS[2])))

    memory.refresh_from_db()
    assert memory.card.front == "Front two, reworded?"
    assert "deck.txt:11: card c2 was 'Front 2?'; its text changed" in err


def test_an_export_file_matches_rows_by_their_keys(tmp_path, learner):
    run_import(write(tmp_path, "deck.txt", deck_text(*CARDS)))
    memory = studied(learner, "Front 1?").memory
    export = tmp_path / "export.json"
    call_command("export_questions", "-o", str(export))
    text = export.read_text().replace('"Front 1?"', '"Front one?"')  # an edit in the export file
    export.write_text(text)

    run_import(export)

    memory.refresh_from_db()
    assert memory.card.front == "Front one?"


def test_a_deck_cut_off_inside_its_last_paragraph_is_refused(tmp_path):
    whole = deck_text(*CARDS)
    cut = whole[: whole.index("Fix 3.") + 2]  # "...\n\nFi"

    with pytest.raises(CommandError, match=r"deck.txt:25: the document stops in mid-sentence"):
        run_import(write(tmp_path, "deck.txt", cut))

    assert not Card.objects.exists()


@pytest.mark.parametrize("target", ["question_set", "assignment", "classroom"])
def test_deleting_content_a_class_or_an_assignment_never_deletes_attempts(learner, teacher, target):
    classroom = make_classroom(teacher, learners=[learner])
    assignment = make_assignment(classroom)
    question_set = make_question_set(questions=2)
    answer_all(start_attempt(learner, question_set))
    Attempt.objects.create_with_slots(user=learner, questions=assignment.pool.questions_for_attempt(),
                                      feedback="immediate", rng=random, assignment=assignment)
    owner = {"question_set": question_set, "assignment": assignment, "classroom": classroom}[target]

    with pytest.raises(ProtectedError):
        owner.delete()

    assert Attempt.objects.filter(user=learner).count() == 2


def test_the_admin_refuses_to_delete_a_class_with_attempts(learner, teacher, admin_user, client):
    classroom = make_classroom(teacher, learners=[learner])
    assignment = make_assignment(classroom)
    Attempt.objects.create_with_slots(user=learner, questions=assignment.pool.questions_for_attempt(),
                                      feedback="immediate", rng=random, assignment=assignment)
    client.force_login(admin_user)

    response = client.post(reverse("admin:quiz_classroom_delete", args=[classroom.pk]), {"post": "yes"})

    assert response.status_code == 200 and "Cannot delete classroom" in response.content.decode()
    assert Attempt.objects.count() == 1


def test_deleting_a_studied_card_is_refused(learner):
    deck = make_deck(cards=1)
    rate_item(learner, deck.cards.get(), 3, at=timezone.now())

    with pytest.raises(ProtectedError):
        deck.delete()
    assert ReviewLog.objects.count() == 1


def test_a_review_shows_the_question_as_it_was_answered_after_an_edit(learner_client, learner):
    attempt = start_attempt(learner, make_question_set(questions=1))
    slot = attempt.slots.get()
    answer_at(attempt, slot, right=False, at=timezone.now())
    review = ReviewLog.objects.get()
    question = slot.question
    right = question.choices.get(is_correct=True)
    other = question.choices.exclude(pk=right.pk).exclude(pk=slot.chosen_choice_id).first()
    # The author moves the right answer and rewrites the stem afterwards.
    question.choices.update(is_correct=False)
    other.is_correct = True
    other.save()
    Question.objects.filter(pk=question.pk).update(stem="A reworded stem?")

    html = learner_client.get(reverse("review_answer", args=[review.pk])).content.decode()

    assert slot.stem in html and "A reworded stem?" not in html
    correct = re.findall(r'class="review-choice is-correct[^"]*">\s*<span class="choice-text">([^<]*)<', html)
    assert correct == [right.text]  # the choice that was right when answered, not the new one


def test_rating_a_card_through_the_page_keeps_working(learner_client):
    deck = make_deck(cards=1)
    _, response = rate_shown_card(learner_client, deck)
    assert response.status_code == 302 and ReviewLog.objects.count() == 1
