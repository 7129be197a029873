import pytest
from django.test import Client
from django.urls import reverse

from quiz.models import Choice, SourceDocument, User
from tests.factories import make_deck, make_question_set, make_user, start_attempt

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client():
    User.objects.create_superuser("root", "root@example.com", "a-long-admin-password")
    client = Client()
    client.login(username="root", password="a-long-admin-password")
    return client


def question_form(question, correct_positions):
    """The POST an admin sends from the question page, with the given choices ticked."""
    choices = list(question.choices.order_by("position"))
    data = {
        "question_set": question.question_set_id,
        "key": question.key,
        "position": question.position,
        "stem": question.stem,
        "explanation": question.explanation,
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
    assert "Mark exactly one choice as correct (now 2 are marked)." in response.content.decode()
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
    objects = [question_set, question_set.questions.first(), deck, deck.cards.first(), attempt, attempt.user, source]

    for obj in objects:
        meta = obj._meta
        assert admin_client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist")).status_code == 200
        assert (
            admin_client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[obj.pk])).status_code
            == 200
        )
