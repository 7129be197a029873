import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from quiz.models import (
    Attempt,
    AttemptSlot,
    Choice,
    MemoryState,
    ReviewLog,
    SourceDocument,
    User,
)
from tests.factories import make_deck, make_question_set, make_user, start_attempt
from tests.helpers import logged_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client():
    return logged_in(User.objects.create_superuser("root", "root@example.com", "a-long-admin-password"))


def question_form(question, correct_positions):
    """The POST an admin sends from the question page, with the given choices ticked."""
    choices = list(question.choices.order_by("position"))
    data = {
        "question_set": question.question_set_id,
        "key": question.key,
        "position": question.position,
        "stem": question.stem,
        "explanation": question.explanation,
        "kind": question.kind,
        "markup": question.markup,
        "choices-TOTAL_FORMS": len(choices),
        "choices-INITIAL_FORMS": len(choices),
        "choices-MIN_NUM_FORMS": 0,
        "choices-MAX_NUM_FORMS": 1000,
    }
    for index, choice in enumerate(choices):
        data |= {
            f"choices-{index}-id": choice.pk,
            f"choices-{index}-question": question.pk,
            f"choices-{index}-position": choice.position,
            f"choices-{index}-text": choice.text,
        }
        if choice.position in correct_positions:
            data[f"choices-{index}-is_correct"] = "on"
    return data


def change_url(question):
    return reverse("admin:quiz_question_change", args=[question.pk])


def test_the_question_change_page_shows_its_choices(admin_client):
    question = make_question_set(questions=1).questions.get()

    response = admin_client.get(change_url(question))

    assert response.status_code == 200
    assert question.choices.first().text in response.content.decode()


def test_saving_a_question_with_two_correct_choices_is_refused_and_changes_nothing(admin_client):
    question = make_question_set(questions=1).questions.get()  # choice at position 0 is correct
    before = list(Choice.objects.order_by("pk").values())

    response = admin_client.post(change_url(question), question_form(question, correct_positions={0, 1}))

    assert response.status_code == 200
    assert "A single-answer question has exactly one right choice (this one has 2)." in response.content.decode()
    assert list(Choice.objects.order_by("pk").values()) == before


def test_moving_the_correct_mark_to_an_earlier_choice_saves(admin_client):
    # Earlier forms are saved first: the old mark must be cleared before the new one is saved.
    question = make_question_set(questions=2).questions.get(key="q2")  # position 1 is correct

    response = admin_client.post(change_url(question), question_form(question, correct_positions={0}))

    assert response.status_code == 302
    assert question.choices.get(is_correct=True).position == 0


def test_every_admin_list_and_change_page_renders(admin_client):
    question_set = make_question_set(questions=2)
    deck = make_deck(cards=1)
    attempt = start_attempt(make_user("alice"), question_set)
    source = SourceDocument.objects.create(file_name="a.txt", kind="quiz", title="A", checksum="0" * 64)
    memory, review = make_memory_and_review(attempt.user, deck.cards.first())
    objects = [question_set, question_set.questions.first(), deck, deck.cards.first(), attempt, attempt.user, source]
    objects += [memory, review]

    for obj in objects:
        meta = obj._meta
        assert admin_client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")).status_code == 200
        assert (
            admin_client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])).status_code
            == 200
        )


# History is read-only ------------------------------------------------------------------------


def answered_attempt():
    question_set = make_question_set(questions=2)
    attempt = start_attempt(make_user("alice"), question_set)
    slot = attempt.slots.get(position=1)
    attempt.record_answer(slot, slot.correct_number)
    return attempt, slot


def test_the_attempt_page_shows_what_the_learner_saw_without_a_save_button(admin_client):
    attempt, slot = answered_attempt()

    response = admin_client.get(reverse("admin:quiz_attempt_change", args=[attempt.pk]))

    page = response.content.decode()
    assert response.status_code == 200
    assert slot.stem in page
    assert 'name="_save"' not in page
    assert 'name="_continue"' not in page
    assert re.findall(r'<(?:input|select|textarea)(?![^>]*type="hidden")[^>]*name=', page) == []  # no fields
    assert reverse("admin:quiz_attempt_delete", args=[attempt.pk]) not in page  # nor may it be deleted
    assert admin_client.post(reverse("admin:quiz_attempt_delete", args=[attempt.pk]), {"post": "yes"}).status_code == 403
    assert Attempt.objects.filter(pk=attempt.pk).exists()


def test_posting_to_an_attempt_is_refused_and_changes_nothing(admin_client):
    attempt, _ = answered_attempt()
    before = (list(Attempt.objects.values()), list(AttemptSlot.objects.order_by("pk").values()))

    response = admin_client.post(
        reverse("admin:quiz_attempt_change", args=[attempt.pk]),
        {"user": attempt.user_id, "feedback": "deferred", "correct_count": 99, "question_count": 99},
    )

    assert response.status_code == 403
    assert (list(Attempt.objects.values()), list(AttemptSlot.objects.order_by("pk").values())) == before


@pytest.mark.parametrize("model", ["attempt", "memorystate", "reviewlog"])
def test_history_cannot_be_added_by_hand(admin_client, model):
    assert admin_client.get(reverse(f"admin:quiz_{model}_add")).status_code == 403


def make_memory_and_review(user, card):
    now = timezone.now()
    memory = MemoryState.objects.create(user=user, kind=MemoryState.Kind.CARD, card=card, due=now, reps=1)
    review = ReviewLog.objects.create(
        user=user, memory=memory, source=ReviewLog.Source.STUDY, rating=ReviewLog.Rating.GOOD, reviewed_at=now, due_after=now
    )
    return memory, review


def test_memory_states_and_reviews_are_shown_read_only(admin_client):
    memory, review = make_memory_and_review(make_user("alice"), make_deck(cards=1).cards.get())

    for obj in (memory, review):
        name = obj._meta.model_name
        change = admin_client.get(reverse(f"admin:quiz_{name}_change", args=[obj.pk]))
        assert change.status_code == 200
        assert 'name="_save"' not in change.content.decode()
        assert admin_client.post(reverse(f"admin:quiz_{name}_change", args=[obj.pk]), {}).status_code == 403
        assert admin_client.get(reverse(f"admin:quiz_{name}_delete", args=[obj.pk])).status_code == 403
    changelist = admin_client.get(reverse("admin:quiz_memorystate_changelist")).content.decode()
    assert "Front 1" in changelist


@pytest.mark.parametrize("model", ["attempt", "memorystate", "reviewlog"])
def test_history_list_pages_take_the_same_queries_for_one_row_or_many(admin_client, model):
    def rows(count):
        for _ in range(count):
            user = make_user()
            start_attempt(user, question_set)
            make_memory_and_review(user, deck.cards.get())

    def queries():
        with CaptureQueriesContext(connection) as captured:
            assert admin_client.get(reverse(f"admin:quiz_{model}_changelist")).status_code == 200
        return len(captured)

    question_set, deck = make_question_set(questions=1), make_deck(cards=1)
    rows(1)
    one = queries()
    rows(3)
    assert queries() == one


def test_topics_are_editable_on_questions_and_cards_in_the_admin(db):
    from django.contrib import admin as django_admin

    from quiz.models import Card, Question, Topic

    assert django_admin.site.is_registered(Topic)
    assert django_admin.site._registry[Question].filter_horizontal == ("topics",)
    assert django_admin.site._registry[Card].filter_horizontal == ("topics",)


def test_class_and_assignment_pages_render(admin_client, db):
    from tests.class_factories import make_assignment, make_classroom, make_instructor

    teacher = make_instructor("admin_teacher")
    classroom = make_classroom(teacher, learners=[make_user("enrolled")])
    assignment = make_assignment(classroom)
    for obj in (classroom, assignment.pool, assignment, teacher):
        meta = obj._meta
        assert admin_client.get(reverse(f"admin:quiz_{meta.model_name}_changelist")).status_code == 200
        page = admin_client.get(reverse(f"admin:quiz_{meta.model_name}_change", args=[obj.pk]))
        assert page.status_code == 200
    assert "is_instructor" in admin_client.get(reverse("admin:quiz_user_change", args=[teacher.pk])).content.decode()
