"""Edits never rewrite history, and a deleted item that learners used is retired: kept for
their history, said so on the page, and offered nowhere new (attempts, study, pools, the
bank, counts, exports, re-imports). An item nobody used is deleted."""

import json

import pytest
from django.urls import reverse
from django.utils import timezone

from quiz.content.export import export_content
from quiz.content.pending import apply_pending, preview_pending, stage_import
from quiz.models import Attempt, Card, Deck, MemoryState, Question, QuestionSet
from quiz.study import scheduling
from quiz.study.queue import Scope, next_entry
from tests.class_factories import make_instructor, make_pool
from tests.factories import make_deck, make_question_set, start_attempt
from tests.helpers import HTMX, answer_all, logged_in
from tests.test_editor import form_data


@pytest.fixture
def own_set(learner):
    return make_question_set("My set", questions=3, owner=learner, visibility="everyone")


def test_past_attempts_keep_the_text_the_learner_saw(learner_client, own_set, other_learner, other_client):
    attempt = answer_all(start_attempt(other_learner, own_set, feedback="immediate"))
    question = own_set.questions.get(position=1)
    old_right = question.choices.get(is_correct=True).text

    data = form_data(stem="Rewritten stem?", choices=("Brand new right", "Brand new wrong"), correct=1)
    assert learner_client.post(reverse("edit_question", args=[question.pk]), data).status_code == 302

    html = other_client.get(reverse("attempt_results", args=[attempt.pk])).content.decode()
    assert "Question 1 stem?" in html and old_right in html
    assert "Rewritten stem?" not in html and "Brand new right" not in html
    attempt.refresh_from_db()
    assert attempt.correct_count == 3  # graded on what was shown, never regraded


def test_an_unused_question_is_deleted(learner_client, own_set):
    question = own_set.questions.get(position=2)

    response = learner_client.post(reverse("delete_question", args=[question.pk]))

    assert response.status_code == 302
    assert not Question.objects.filter(pk=question.pk).exists()


def test_an_answered_question_is_retired_and_the_page_says_for_how_many_learners(learner_client, own_set, other_learner):
    answer_all(start_attempt(other_learner, own_set))
    question = own_set.questions.get(position=2)

    confirm = learner_client.get(reverse("delete_question", args=[question.pk])).content.decode()
    response = learner_client.post(reverse("delete_question", args=[question.pk]), follow=True)

    assert "it will be <strong>retired</strong>" in confirm
    question.refresh_from_db()
    assert question.is_retired and question.slots.count() == 1
    html = response.content.decode()
    assert "Retired the question" in html
    assert "Retired: kept for the history of 1 learner" in html
    assert html.count('data-testid="question"') == 2


def test_a_studied_card_is_retired_with_htmx(learner_client, learner, other_learner):
    deck = make_deck(owner=learner, visibility="everyone", cards=2)
    card = deck.cards.get(position=1)
    for user in (learner, other_learner):
        scheduling.rate(user=user, kind=MemoryState.Kind.CARD, item=card, rating=3, source="study")

    response = learner_client.post(reverse("delete_card", args=[card.pk]), **HTMX)

    assert response.status_code == 200
    assert "Retired: kept for the history of 2 learners" in response.content.decode()
    assert Card.objects.get(pk=card.pk).is_retired and MemoryState.objects.filter(card=card).count() == 2


def test_a_question_in_a_pool_is_retired_not_deleted(learner_client, own_set):
    question = own_set.questions.get(position=1)
    make_pool(make_instructor("prof"), [question])

    learner_client.post(reverse("delete_question", args=[question.pk]))

    assert Question.objects.get(pk=question.pk).is_retired


# --- Retired items are offered nowhere new ------------------------------------------------------

@pytest.fixture
def retired_question(own_set, other_learner):
    answer_all(start_attempt(other_learner, own_set))
    question = own_set.questions.get(position=1)
    question.retired_at = timezone.now()
    question.save(update_fields=["retired_at"])
    return question


def test_a_new_attempt_leaves_retired_questions_out(retired_question, own_set, learner):
    attempt = start_attempt(learner, own_set)

    assert attempt.question_count == 2
    assert retired_question.pk not in set(attempt.slots.values_list("question", flat=True))


def test_counts_leave_retired_items_out(retired_question, own_set, learner):
    assert QuestionSet.objects.with_progress_for(learner).get(pk=own_set.pk).question_count == 2

    deck = make_deck(owner=learner, cards=3)
    card = deck.cards.get(position=1)
    scheduling.rate(user=learner, kind=MemoryState.Kind.CARD, item=card, rating=3, source="study")
    Card.objects.filter(pk=card.pk).update(retired_at=timezone.now())
    counted = Deck.objects.with_counts_for(learner).get(pk=deck.pk)
    assert (counted.card_count, counted.new_count) == (2, 2)


def test_new_cards_come_from_current_cards_only(learner):
    deck = make_deck(owner=learner, cards=2)
    deck.cards.filter(position=1).update(retired_at=timezone.now())

    entry = next_entry(user=learner, scope=Scope(kinds=(MemoryState.Kind.CARD,), deck=deck))

    assert entry.item.front == "Front 2"


def test_pools_and_the_bank_leave_retired_questions_out(retired_question, own_set, learner):
    teacher = make_instructor("prof")
    pool = make_pool(teacher, own_set.questions.order_by("position"))  # made before the retirement counts too
    assert retired_question not in pool.questions_for_attempt()

    empty = make_pool(teacher, [])
    empty.add_questions([q.pk for q in own_set.questions.all()])
    assert set(empty.entries.values_list("question", flat=True)) == set(own_set.questions.current().values_list("pk", flat=True))

    response = logged_in(teacher).get(reverse("pool", args=[empty.pk]), {"question_set": own_set.pk})
    assert "Question 1 stem?" not in response.content.decode()


def test_exports_and_reimports_leave_retired_items_alone(retired_question, own_set, learner):
    exported = next(s for s in export_content()["question_sets"] if s["title"] == "My set")
    assert [q["stem"] for q in exported["questions"]] == ["Question 2 stem?", "Question 3 stem?"]

    # Re-importing that export with a new question keyed "q1": the retired q1 is neither
    # removed (which its history would refuse) nor overwritten, and the new one gets a key of its own.
    new = {"key": "q1", "stem": "A new first?", "explanation": "", "choices": [
        {"text": "yes", "correct": True}, {"text": "no", "correct": False}]}
    document = json.dumps({"question_sets": [{**exported, "questions": [new, *exported["questions"]]}]})
    pending = stage_import(owner=learner, files=[("export.json", document.encode())], format="json")
    report = apply_pending(pending, previewed=preview_pending(pending).fingerprint)

    assert [outcome.created for outcome in report.outcomes] == [1]
    retired_question.refresh_from_db()
    assert retired_question.is_retired and retired_question.stem == "Question 1 stem?"
    assert own_set.questions.get(stem="A new first?").key.startswith("q1-")


def test_a_retired_question_with_an_open_attempt_still_grades_from_its_snapshot(own_set, other_learner):
    attempt = start_attempt(other_learner, own_set)
    own_set.questions.filter(position=1).update(retired_at=timezone.now(), stem="Changed later")

    attempt = answer_all(attempt)

    assert attempt.is_finished and attempt.correct_count == 3
    assert Attempt.objects.get(pk=attempt.pk).slots.get(position=1).stem.startswith("Question")
