"""The rules a learner must be able to trust: no early answers, no lost or double answers,
nobody else's attempts, CSRF everywhere."""

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import IntegrityError, transaction
from django.middleware.csrf import _unmask_cipher_token
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from quiz.models import (
    AssignmentOverride,
    Attempt,
    AttemptSlot,
    Choice,
    MemoryState,
    ReviewLog,
    User,
)
from tests.class_factories import NOW, make_assignment, make_classroom
from tests.factories import correct_choice, make_deck, make_question_set, start_attempt
from tests.helpers import HTMX, correct_number, question_url, rate_item, wrong_number


def answered_slots(attempt):
    return AttemptSlot.objects.filter(attempt=attempt, answered_at__isnull=False)


# --- The correct answer is never sent before the learner answers -------------------------

def assert_reveals_nothing(html, slot):
    assert "correct" not in html.lower(), "a marker, class or word hints at the right choice"
    assert "Explanation" not in html
    assert slot.question.explanation not in html
    # Every choice is rendered the same way: a label, its on-screen number and its text.
    values = re.findall(r'<label class="choice" data-hotkey="\d+">\s*<input type="radio" name="choice" value="(\d+)" required\s*>', html)
    assert values == [str(n) for n in range(1, len(slot.shown_choices) + 1)]
    for choice in slot.question.choices.all():
        assert f'value="{choice.pk}"' not in html or choice.pk <= len(values), "database ids follow source order"
    assert "<!--" not in html
    assert "data-" not in re.sub(r"data-(hotkey|autofocus|testid|deadline|started)", "", html.split("<main", 1)[1])


def test_the_question_page_does_not_reveal_the_correct_choice(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    for slot in attempt.slots.all():
        assert_reveals_nothing(learner_client.get(question_url(attempt, slot.position)).content.decode(), slot)


def test_the_htmx_question_fragment_does_not_reveal_the_correct_choice(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get(position=1)
    attempt.record_answer(slot, correct_number(slot))

    response = learner_client.get(reverse("attempt", args=[attempt.pk]), follow=True, **HTMX)

    title, html = response.content.decode().strip().split("\n", 1)
    assert title.startswith("<title>Question 2 of 3") and html.lstrip().startswith('<section id="question-card"')
    assert_reveals_nothing("<main>" + html, attempt.slots.get(position=2))


def test_a_rejected_answer_does_not_reveal_the_correct_choice(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)

    response = learner_client.post(question_url(attempt, 1), {"choice": "999999"})
    html = response.content.decode()

    assert response.status_code == 400 and attempt.slots.get(position=1).stem in html  # the question again
    assert "correct answer" not in html.lower()
    assert attempt.slots.get(position=1).question.explanation not in html


def test_the_results_of_an_unfinished_attempt_are_not_shown(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)

    response = learner_client.get(reverse("attempt_results", args=[attempt.pk]), follow=True)

    assert response.redirect_chain[-1][0] == question_url(attempt, 1)  # back to the first open question
    assert "Explanation" not in response.content.decode()


# --- One answer per question, never lost, never counted twice ----------------------------

def test_submitting_the_same_answer_twice_records_one_answer(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get(position=1)
    number = correct_number(slot)

    first = learner_client.post(question_url(attempt, 1), {"choice": number})
    second = learner_client.post(question_url(attempt, 1), {"choice": number})

    assert first.status_code == second.status_code == 302
    assert answered_slots(attempt).count() == 1
    slot.refresh_from_db()
    assert (slot.chosen_index, slot.chosen_choice) == (number, correct_choice(slot))


def test_a_second_tab_cannot_change_an_answer_already_given(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get(position=1)
    learner_client.post(question_url(attempt, 1), {"choice": wrong_number(slot)})

    learner_client.post(question_url(attempt, 1), {"choice": correct_number(slot)}, **HTMX)

    slot.refresh_from_db()
    assert slot.chosen_index == wrong_number(slot)
    assert slot.is_correct is False


def test_record_answer_reports_a_repeat_and_the_score_counts_it_once(learner, db):
    question_set = make_question_set(questions=1)
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get()

    assert attempt.record_answer(slot, correct_number(slot)) is True
    assert attempt.record_answer(slot, correct_number(slot)) is False

    attempt.refresh_from_db()
    assert attempt.correct_count == 1
    assert attempt.is_finished


def test_a_choice_deleted_since_the_attempt_started_can_still_be_picked(learner_client, learner, question_set):
    """An import may delete a choice that an open attempt shows: the answer is recorded from the
    snapshot, and only the link to the live choice is empty (on the slot and in the log)."""
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get(position=1)
    Choice.objects.filter(pk=slot.shown_choices[0]["id"]).delete()

    assert learner_client.post(question_url(attempt, 1), {"choice": 1}).status_code == 302

    slot.refresh_from_db()
    assert (slot.chosen_index, slot.chosen_choice) == (1, None)
    assert ReviewLog.objects.get(user=learner).chosen_choice is None


def test_it_refuses_a_choice_number_that_was_not_shown(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    database_id_of_another_question = correct_choice(attempt.slots.get(position=2)).pk + 100

    # Numbers as int() reads them but no form sends: each a refusal, never choice 1 or 2.
    for value in (0, 5, database_id_of_another_question, "1.0", " 2", "+1", "1_0", "١", "2 ", "9" * 5000):
        response = learner_client.post(question_url(attempt, 1), {"choice": value})
        assert response.status_code == 400
    assert not answered_slots(attempt).exists()


@pytest.mark.parametrize("value", ["", "abc", "-1", "1.5", "99999999999999999999999"])
def test_it_refuses_a_malformed_choice(learner_client, learner, question_set, value):
    attempt = start_attempt(learner, question_set)

    response = learner_client.post(question_url(attempt, 1), {"choice": value})

    assert response.status_code == 400
    assert not answered_slots(attempt).exists()


def test_it_refuses_a_question_outside_the_attempt(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    number = correct_number(attempt.slots.get(position=1))

    response = learner_client.post(question_url(attempt, 4), {"choice": number})

    assert response.status_code == 404
    assert not answered_slots(attempt).exists()


def test_a_finished_attempt_takes_no_more_answers(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    attempt.finish()
    slot = attempt.slots.get(position=1)

    response = learner_client.post(question_url(attempt, 1), {"choice": correct_number(slot)})

    assert response.status_code == 400
    assert not answered_slots(attempt).exists()


def test_the_model_refuses_a_number_outside_the_slot(learner, question_set):
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get(position=1)

    for number in (0, 5):
        with pytest.raises(ValueError):
            attempt.record_answer(slot, number)
    assert not answered_slots(attempt).exists()


# --- A learner sees only their own attempts ----------------------------------------------

@pytest.mark.parametrize("page", ["attempt", "attempt_question", "attempt_results"])
def test_another_learners_attempt_is_a_404(other_client, learner, question_set, page):
    attempt = start_attempt(learner, question_set)
    if page == "attempt_results":
        attempt.finish()
    args = [attempt.pk, 1] if page == "attempt_question" else [attempt.pk]

    assert other_client.get(reverse(page, args=args)).status_code == 404


def test_answering_in_another_learners_attempt_is_a_404_and_writes_nothing(other_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get(position=1)

    response = other_client.post(question_url(attempt, 1), {"choice": correct_number(slot)})

    assert response.status_code == 404
    assert not answered_slots(attempt).exists()


def test_my_attempts_lists_only_my_own(learner_client, learner, other_learner, question_set):
    mine = start_attempt(learner, question_set)
    theirs = start_attempt(other_learner, question_set)

    html = learner_client.get(reverse("attempt_list")).content.decode()

    assert reverse("attempt", args=[mine.pk]) in html
    assert reverse("attempt", args=[theirs.pk]) not in html


# --- CSRF stays on -----------------------------------------------------------------------

@pytest.fixture
def csrf_client(learner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(learner)
    return client


def test_an_answer_without_a_csrf_token_is_refused(csrf_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get(position=1)

    response = csrf_client.post(question_url(attempt, 1), {"choice": correct_number(slot)}, **HTMX)

    assert response.status_code == 403
    assert not answered_slots(attempt).exists()


def test_an_htmx_answer_with_the_token_header_from_the_page_is_accepted(csrf_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get(position=1)
    page = csrf_client.get(question_url(attempt, 1)).content.decode()
    token = re.search(r"hx-headers='\{\"x-csrftoken\": \"([^\"]+)\"\}'", page).group(1)

    response = csrf_client.post(
        question_url(attempt, 1), {"choice": correct_number(slot)}, HTTP_X_CSRFTOKEN=token, **HTMX
    )

    assert response.status_code == 200 and "Correct!" in response.content.decode()  # the feedback, at once
    assert answered_slots(attempt).count() == 1


def test_each_page_masks_the_csrf_secret_afresh_and_its_plain_form_is_accepted(csrf_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get(position=1)
    csrf_client.get(question_url(attempt, 1))  # the first page makes the secret and sets its cookie
    secret = csrf_client.cookies[settings.CSRF_COOKIE_NAME].value
    pages = [csrf_client.get(question_url(attempt, 1)).content.decode() for _ in range(2)]
    tokens = [re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1] for page in pages]

    assert tokens[0] != tokens[1], "the same bytes on every page would let compression reveal the secret"
    assert all(len(token) == 64 and token.isalnum() and _unmask_cipher_token(token) == secret for token in tokens)
    answer = {"choice": correct_number(slot), "csrfmiddlewaretoken": tokens[1]}
    assert csrf_client.post(question_url(attempt, 1), answer).status_code == 302
    assert answered_slots(attempt).count() == 1


def test_starting_without_a_csrf_token_is_refused(csrf_client, question_set):
    response = csrf_client.post(reverse("start_attempt", args=[question_set.pk]))

    assert response.status_code == 403
    assert not Attempt.objects.exists()


# --- The database refuses rows that break the rules, whatever path writes them ------------

def _refused(write):
    with pytest.raises(IntegrityError), transaction.atomic():
        write()


def test_a_slot_is_answered_whole_or_not_at_all(learner, question_set):
    slot = start_attempt(learner, question_set).slots.first()
    slots = AttemptSlot.objects.filter(pk=slot.pk)

    _refused(lambda: slots.update(answered_at=timezone.now()))  # a time without a pick or a grade
    _refused(lambda: slots.update(chosen_index=1, is_correct=True, credit=1))  # a pick without a time
    _refused(lambda: slots.update(answered_at=timezone.now(), chosen_index=1, is_correct=True))  # no credit
    _refused(lambda: slots.update(answered_at=timezone.now(), is_correct=True, credit=1))  # no pick
    slots.update(answered_at=timezone.now(), chosen_numbers=[1, 2], is_correct=False, credit=0)  # several picks: fine
    slots.update(answered_at=timezone.now(), chosen_numbers=None, chosen_index=1, is_correct=False, credit=0)  # one: fine


def test_a_score_cannot_exceed_the_question_count(learner, question_set):
    attempt = start_attempt(learner, question_set)
    _refused(lambda: Attempt.objects.filter(pk=attempt.pk).update(correct_count=attempt.question_count + 1))


@pytest.mark.parametrize("rating", [0, 5])
def test_ratings_are_one_to_four(learner, rating):
    review = rate_item(learner, make_deck(cards=1).cards.get(), 3, at=timezone.now())
    _refused(lambda: ReviewLog.objects.filter(pk=review.pk).update(rating=rating))
    _refused(lambda: MemoryState.objects.filter(pk=review.memory_id).update(last_rating=rating))


def test_an_override_is_due_after_it_opens(learner, teacher):
    assignment = make_assignment(make_classroom(teacher, learners=[learner]))
    _refused(lambda: AssignmentOverride.objects.create(
        assignment=assignment, learner=learner, opens_at=NOW, due_at=NOW - timedelta(hours=1)
    ))


@pytest.mark.parametrize("retention", [0.5, 0.98, 1.0])
def test_the_target_retention_stays_in_its_range(learner, retention):
    _refused(lambda: User.objects.filter(pk=learner.pk).update(target_retention=retention))


def test_a_refused_answer_inside_a_callers_transaction_leaves_the_rest_of_it_alone(learner, question_set):
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get(position=1)
    attempt.record_answer(slot, correct_number(slot))
    slot = attempt.slots.get(position=1)
    with transaction.atomic():
        User.objects.filter(pk=learner.pk).update(new_cards_per_day=7)  # the caller's own write
        assert attempt.record_answer(slot, wrong_number(slot)) is False  # already answered: refused

    learner.refresh_from_db()
    assert learner.new_cards_per_day == 7
