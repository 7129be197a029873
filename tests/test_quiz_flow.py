"""Taking a quiz as a learner, with plain form posts and with HTMX."""

import random
import re

import pytest
from django.conf import settings
from django.urls import reverse

from quiz.models import Attempt, QuestionSet
from tests.factories import correct_choice, make_question_set, start_attempt
from tests.helpers import HTMX, correct_number, question_url, wrong_number


def test_it_starts_an_attempt_and_redirects_to_the_first_question(learner_client, learner, question_set):
    response = learner_client.post(reverse("start_attempt", args=[question_set.pk]))

    attempt = Attempt.objects.get(user=learner)
    assert response.status_code == 302
    assert response.url == reverse("attempt", args=[attempt.pk])
    assert learner_client.get(response.url).url == question_url(attempt, 1)
    assert attempt.slots.count() == 3


def test_starting_twice_resumes_the_open_attempt(learner_client, learner, question_set):
    learner_client.post(reverse("start_attempt", args=[question_set.pk]))
    learner_client.post(reverse("start_attempt", args=[question_set.pk]))

    assert Attempt.objects.filter(user=learner).count() == 1


def test_start_needs_post(learner_client, question_set):
    assert learner_client.get(reverse("start_attempt", args=[question_set.pk])).status_code == 405


def test_an_empty_set_cannot_be_started(learner_client, db):
    empty = QuestionSet.objects.create(title="Empty")

    response = learner_client.post(reverse("start_attempt", args=[empty.pk]), follow=True)

    assert "has no questions yet" in response.content.decode()
    assert not Attempt.objects.exists()


def test_start_refuses_an_unknown_feedback_mode(learner_client, learner, question_set):
    response = learner_client.post(reverse("start_attempt", args=[question_set.pk]), {"feedback": "never"})

    assert response.status_code == 400
    assert not Attempt.objects.exists()


def test_the_question_page_shows_progress_and_the_choices_in_the_stored_order(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get(position=2)

    html = learner_client.get(question_url(attempt, 2)).content.decode()

    assert "Question 2 of 3" in html
    assert re.findall(r'<span class="choice-text">([^<]*)</span>', html) == slot.choice_texts
    assert re.findall(r'name="choice" value="(\d+)"', html) == ["1", "2", "3", "4"]


def test_a_past_attempt_shows_what_the_learner_saw_even_after_the_content_changes(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get(position=1)
    seen = slot.choice_texts
    attempt.record_answer(slot, wrong_number(slot))
    question = slot.question
    question.stem = "Rewritten stem"
    question.save()
    question.choices.update(text="Rewritten choice")

    html = learner_client.get(question_url(attempt, 1)).content.decode()

    assert "Rewritten" not in html
    assert re.findall(r'<span class="choice-text">([^<]*)</span>', html) == seen
    assert "Not quite." in html


def test_choice_order_is_shuffled_per_attempt(learner, db):
    question_set = make_question_set(questions=1, choices=6)
    orders = {tuple(start_attempt_and_close(learner, question_set, seed)) for seed in range(8)}

    assert len(orders) > 1


def start_attempt_and_close(user, question_set, seed):
    attempt, _ = Attempt.objects.start_or_resume(user=user, question_set=question_set, rng=random.Random(seed))
    order = attempt.slots.get().choice_order
    attempt.finish()
    return order


def test_answering_with_a_plain_post_redirects_to_feedback(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get(position=1)
    number = wrong_number(slot)

    response = learner_client.post(question_url(attempt, 1), {"choice": number})

    assert response.status_code == 302
    assert response.url == question_url(attempt, 1)
    html = learner_client.get(response.url).content.decode()
    assert "Not quite." in html
    assert correct_choice(slot).text in html
    assert "Explanation 1." in html
    assert 'href="%s"' % reverse("attempt", args=[attempt.pk]) in html


def test_answering_with_htmx_returns_only_the_feedback_fragment(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get(position=1)

    response = learner_client.post(question_url(attempt, 1), {"choice": correct_number(slot)}, follow=True, **HTMX)

    html = response.content.decode()
    assert response.status_code == 200
    # The page's <title> first (htmx sets the tab's title from it), then the card.
    title, card = html.strip().split("\n", 1)
    assert title == f"<title>Question 1 of 3 · {question_set.title} · Certify</title>"
    assert card.lstrip().startswith('<section id="question-card"')
    assert "<html" not in html
    assert "Correct!" in html
    assert response.headers["HX-Push-Url"] == question_url(attempt, 1)


@pytest.mark.parametrize("questions", [3, 1], ids=["an-answer", "the-last-answer"])
def test_an_htmx_answer_gets_in_its_own_response_the_page_its_redirect_would_show(learner_client, learner, questions):
    # One request from click to feedback, not a POST and then the GET it redirects to.
    question_set = make_question_set(questions=questions)
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get(position=1)

    response = learner_client.post(question_url(attempt, 1), {"choice": wrong_number(slot)}, **HTMX)

    assert response.status_code == 200
    assert response.headers["HX-Push-Url"] == question_url(attempt, 1)
    html = response.content.decode()
    assert "Not quite." in html and correct_choice(slot).text in html and "Explanation 1." in html
    shown_by_get = learner_client.get(question_url(attempt, 1), **HTMX).content.decode()
    masked_token = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')  # masked afresh on each page
    assert masked_token.sub("", html) == masked_token.sub("", shown_by_get)
    # Sent again once answered (the form of a page loaded before): the same page, nothing recorded.
    again = learner_client.post(question_url(attempt, 1), {"choice": correct_number(slot)}, **HTMX)
    assert masked_token.sub("", again.content.decode()) == masked_token.sub("", shown_by_get)
    assert attempt.slots.filter(answered_at__isnull=False).count() == 1


def test_without_htmx_an_answer_still_redirects_to_its_question(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get(position=1)

    response = learner_client.post(question_url(attempt, 1), {"choice": correct_number(slot)})

    assert (response.status_code, response.url) == (302, question_url(attempt, 1))


def test_an_empty_answer_re_renders_the_question_with_a_message(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)

    response = learner_client.post(question_url(attempt, 1), {})

    assert response.status_code == 400
    assert "Pick one of the choices." in response.content.decode()
    assert not attempt.slots.filter(answered_at__isnull=False).exists()


def test_a_choice_not_shown_re_renders_the_question_with_a_message_and_nothing_picked(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    count = len(attempt.slots.get(position=1).choice_texts)

    response = learner_client.post(question_url(attempt, 1), {"choice": str(count + 1)})

    html = response.content.decode()
    assert response.status_code == 400
    assert "Pick one of the choices." in html
    assert html.count('name="choice"') == count and " checked" not in html
    assert not attempt.slots.filter(answered_at__isnull=False).exists()


def test_with_htmx_a_refused_answer_swaps_in_the_card_with_its_message(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)

    response = learner_client.post(question_url(attempt, 1), {"choice": "x"}, **HTMX)

    html = response.content.decode()
    assert response.status_code == 400
    assert '<section id="question-card"' in html and "<html" not in html
    assert "Pick one of the choices." in html and " checked" not in html


def test_next_goes_to_the_first_unanswered_question(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    slot = attempt.slots.get(position=1)
    attempt.record_answer(slot, correct_number(slot))

    response = learner_client.get(reverse("attempt", args=[attempt.pk]))

    assert response.url == question_url(attempt, 2)


def test_answering_the_last_question_finishes_the_attempt_with_its_score(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    for slot in attempt.slots.all():
        number = correct_number(slot) if slot.position != 2 else wrong_number(slot)
        learner_client.post(question_url(attempt, slot.position), {"choice": number})

    attempt.refresh_from_db()
    assert attempt.is_finished
    assert (attempt.correct_count, attempt.question_count) == (2, 3)
    html = learner_client.get(question_url(attempt, 3)).content.decode()
    assert reverse("attempt_results", args=[attempt.pk]) in html


def test_the_attempt_finishes_with_whichever_question_is_answered_last(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    for position in (3, 1):  # out of order, the middle one left open
        slot = attempt.slots.get(position=position)
        learner_client.post(question_url(attempt, position), {"choice": correct_number(slot)})
        attempt.refresh_from_db()
        assert not attempt.is_finished

    middle = attempt.slots.get(position=2)
    learner_client.post(question_url(attempt, 2), {"choice": wrong_number(middle)})

    attempt.refresh_from_db()
    assert attempt.is_finished and attempt.correct_count == 2
    assert attempt.finished_at == attempt.slots.get(position=2).answered_at


def test_next_goes_to_the_first_question_still_open_after_answers_out_of_order(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    for position in (1, 3):
        slot = attempt.slots.get(position=position)
        learner_client.post(question_url(attempt, position), {"choice": correct_number(slot)})

    assert learner_client.get(reverse("attempt", args=[attempt.pk])).url == question_url(attempt, 2)


def test_the_results_page_shows_score_choices_and_explanations(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    for slot in attempt.slots.all():
        attempt.record_answer(slot, wrong_number(slot) if slot.position == 1 else correct_number(slot))

    html = learner_client.get(reverse("attempt_results", args=[attempt.pk])).content.decode()

    assert "2 of 3" in html
    assert html.count("Your answer") == 3
    for number in (1, 2, 3):
        assert f"Explanation {number}." in html
    assert html.count("Not quite.") == 1


def test_an_unfinished_attempt_has_no_results_yet(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)

    response = learner_client.get(reverse("attempt_results", args=[attempt.pk]))

    assert response.url == reverse("attempt", args=[attempt.pk])


def test_deferred_feedback_moves_on_without_revealing_the_answer(learner_client, learner, question_set):
    learner_client.post(reverse("start_attempt", args=[question_set.pk]), {"feedback": "deferred"})
    attempt = Attempt.objects.get(user=learner)
    slot = attempt.slots.get(position=1)

    response = learner_client.post(question_url(attempt, 1), {"choice": wrong_number(slot)}, follow=True)

    html = response.content.decode()
    assert response.redirect_chain[-1][0] == question_url(attempt, 2) + "?saved=1"
    assert "Answer to question 1 saved." in html
    assert "Not quite." not in html and "Correct answer" not in html
    # Back on question 1: the saved pick, still changeable, and nothing about whether it is right.
    again = learner_client.get(question_url(attempt, 1)).content.decode()
    assert f'name="choice" value="{wrong_number(slot)}" required checked' in again
    assert "Answer saved. You can change it until you submit the attempt." in again
    assert "Not quite." not in again and "is-correct" not in again


def test_answering_every_deferred_question_leads_to_the_summary_not_the_results(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set, feedback=Attempt.Feedback.DEFERRED)
    for slot in attempt.slots.order_by("position"):
        response = learner_client.post(question_url(attempt, slot.position), {"choice": correct_number(slot)})

    assert response.url == reverse("attempt_summary", args=[attempt.pk]) + "?saved=3"
    assert learner_client.get(reverse("attempt", args=[attempt.pk])).url == reverse("attempt_summary", args=[attempt.pk])
    attempt.refresh_from_db()
    assert not attempt.is_finished

    response = learner_client.post(reverse("attempt_submit", args=[attempt.pk]))

    assert response.url == reverse("attempt_results", args=[attempt.pk])
    html = learner_client.get(response.url).content.decode()
    assert "3 of 3" in html and html.count("Correct!") == 3


def test_the_last_deferred_answer_sends_htmx_to_the_summary_page(learner_client, learner, db):
    question_set = make_question_set(questions=1)
    attempt = start_attempt(learner, question_set, feedback=Attempt.Feedback.DEFERRED)
    slot = attempt.slots.get()

    response = learner_client.post(question_url(attempt, 1), {"choice": correct_number(slot)}, follow=True, **HTMX)

    assert response.headers["HX-Redirect"] == reverse("attempt_summary", args=[attempt.pk]) + "?saved=1"


def test_a_question_of_a_finished_attempt_left_unanswered_goes_to_results(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    attempt.finish()

    response = learner_client.get(question_url(attempt, 1))

    assert response.url == reverse("attempt_results", args=[attempt.pk])


@pytest.mark.parametrize("page", ["attempt", "attempt_question", "attempt_results", "attempt_list"])
def test_learner_pages_need_a_login(client, learner, question_set, page):
    attempt = start_attempt(learner, question_set)
    args = {"attempt": [attempt.pk], "attempt_question": [attempt.pk, 1], "attempt_results": [attempt.pk]}

    response = client.get(reverse(page, args=args.get(page, [])))

    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_a_page_and_its_htmx_partial_say_they_vary_on_the_htmx_header(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    url = question_url(attempt, 1)

    page, fragment = learner_client.get(url), learner_client.get(url, **HTMX)

    assert "<html" in page.content.decode() and "<html" not in fragment.content.decode()
    for response in (page, fragment):
        assert "HX-Request" in response["Vary"]


def test_stems_choices_and_explanations_keep_their_line_breaks(learner_client, learner, db):
    question_set = make_question_set(questions=1)
    question = question_set.questions.get()
    question.stem, question.explanation = "Which port?\n  (two lines)", "Because\nof TCP."
    question.save()
    right = question.choices.get(is_correct=True)
    right.text = "Port 443\nover TLS"
    right.save()
    attempt = start_attempt(learner, question_set)

    html = learner_client.get(question_url(attempt, 1)).content.decode()
    learner_client.post(question_url(attempt, 1), {"choice": attempt.slots.get().correct_number})
    feedback = learner_client.get(question_url(attempt, 1)).content.decode()

    assert '<h2 class="stem">Which port?\n  (two lines)</h2>' in html
    assert '<span class="choice-text">Port 443\nover TLS</span>' in html
    assert '<p class="as-written">Because\nof TCP.</p>' in feedback
    assert '<span class="choice-text">Port 443\nover TLS</span>' in feedback
    # ...and the style sheet shows those elements' text as written.
    css = (settings.BASE_DIR / "static/css/app.css").read_text()
    rule = re.search(r"\.as-written, \.stem, \.choice-text,[^{]*\{([^}]*)\}", css)
    assert rule and "white-space: pre-wrap" in rule.group(1) and "overflow-wrap: anywhere" in rule.group(1)
