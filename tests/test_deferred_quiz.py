"""Feedback at the end (deferred), as in Moodle: answers saved and changeable until "Submit all
and finish", previous/next, flags, the summary, the confirmation, finishing early; the timer
without JavaScript; the results page's order; nothing correct shown before the attempt ends."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from quiz.lib.days import moment_text
from quiz.models import Attempt, ReviewLog
from tests.factories import correct_choice, make_question_set, make_topic, start_attempt
from tests.helpers import HTMX, answer_all, correct_number, question_url, wrong_number


@pytest.fixture
def attempt(learner, question_set):
    return start_attempt(learner, question_set, feedback=Attempt.Feedback.DEFERRED)


def slot_at(attempt, position):
    return attempt.slots.select_related("question").get(position=position)


def summary_url(attempt):
    return reverse("attempt_summary", args=[attempt.pk])


def submit_url(attempt):
    return reverse("attempt_submit", args=[attempt.pk])


def assert_no_correctness(html, attempt):
    """Nothing in the page says which choice is right: no verdict, no marking, no explanation."""
    for marker in ("Correct!", "Not quite.", "is-correct", "Correct answer", "Explanation", '"correct"'):
        assert marker not in html, marker
    for slot in attempt.slots.select_related("question"):
        assert slot.question.explanation not in html


# --- Saving and changing answers -----------------------------------------------------------------


def test_it_acknowledges_a_saved_answer_on_the_next_question(learner_client, attempt):
    slot = slot_at(attempt, 1)

    response = learner_client.post(question_url(attempt, 1), {"choice": wrong_number(slot)}, follow=True)

    html = response.content.decode()
    assert response.redirect_chain == [(question_url(attempt, 2) + "?saved=1", 302)]
    assert "Answer to question 1 saved." in html and "Question 2 of 3" in html
    assert_no_correctness(html, attempt)


def test_a_changed_answer_replaces_the_first_and_is_counted_once(learner_client, learner, attempt):
    slot = slot_at(attempt, 1)
    learner_client.post(question_url(attempt, 1), {"choice": wrong_number(slot)})

    learner_client.post(question_url(attempt, 1), {"choice": correct_number(slot)})

    slot.refresh_from_db()
    assert (slot.chosen_index, slot.is_correct) == (correct_number(slot), True)
    assert attempt.slots.filter(answered_at__isnull=False).count() == 1
    assert not ReviewLog.objects.exists()  # nothing enters the memory queue before the submit
    learner_client.post(submit_url(attempt))
    attempt.refresh_from_db()
    assert (attempt.correct_count, attempt.question_count) == (1, 3)
    assert list(ReviewLog.objects.filter(user=learner).values_list("rating", flat=True)) == [ReviewLog.Rating.GOOD]


def test_the_time_spent_on_a_changed_answer_adds_up(learner, attempt):
    slot = slot_at(attempt, 1)
    start = attempt.started_at
    attempt.record_answer(slot, wrong_number(slot), now=start + timedelta(seconds=40))
    attempt.record_answer(slot, correct_number(slot), now=start + timedelta(seconds=70))

    slot.refresh_from_db()
    assert slot.seconds_spent == 70 and slot.answered_at == start + timedelta(seconds=70)


def test_an_answer_after_the_submit_is_refused_and_changes_nothing(learner_client, attempt):
    slot = slot_at(attempt, 1)
    learner_client.post(question_url(attempt, 1), {"choice": wrong_number(slot)})
    learner_client.post(submit_url(attempt))

    response = learner_client.post(question_url(attempt, 1), {"choice": correct_number(slot)})

    slot.refresh_from_db()
    assert response.status_code in (302, 400)
    assert slot.is_correct is False
    attempt.refresh_from_db()
    assert attempt.correct_count == 0


def test_a_bad_choice_is_refused_and_keeps_the_saved_answer(learner_client, attempt):
    slot = slot_at(attempt, 1)
    learner_client.post(question_url(attempt, 1), {"choice": wrong_number(slot)})

    response = learner_client.post(question_url(attempt, 1), {"choice": "99"})

    slot.refresh_from_db()
    assert response.status_code == 400
    assert slot.chosen_index == wrong_number(slot)
    # The page says so too: the message, and the saved answer still ticked, alone.
    html = response.content.decode()
    assert "Pick one of the choices." in html
    assert f'name="choice" value="{wrong_number(slot)}" required checked' in html and html.count(" checked") == 1


def test_immediate_feedback_answers_stay_final(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)
    slot = slot_at(attempt, 1)
    learner_client.post(question_url(attempt, 1), {"choice": wrong_number(slot)})

    learner_client.post(question_url(attempt, 1), {"choice": correct_number(slot)})

    slot.refresh_from_db()
    assert slot.is_correct is False


# --- Previous and next -------------------------------------------------------------------------


def test_previous_and_next_link_the_neighbouring_questions(learner_client, attempt):
    html = learner_client.get(question_url(attempt, 2)).content.decode()

    assert re.search(rf'rel="prev" href="{question_url(attempt, 1)}"', html)
    assert re.search(rf'rel="next" href="{question_url(attempt, 3)}"', html)
    assert f'href="{summary_url(attempt)}"' in html
    first = learner_client.get(question_url(attempt, 1)).content.decode()
    assert 'rel="prev"' not in first


def test_moving_with_htmx_returns_the_card_with_the_pages_title(learner_client, attempt, question_set):
    response = learner_client.get(question_url(attempt, 3), **HTMX)

    html = response.content.decode()
    assert html.strip().startswith(f"<title>Question 3 of 3 · {question_set.title} · Certify</title>")
    assert "<html" not in html
    assert response.headers["HX-Push-Url"] == question_url(attempt, 3)


# --- Flags -------------------------------------------------------------------------------------


def test_flagging_persists_and_shows_on_the_question_and_the_summary(learner_client, attempt):
    response = learner_client.post(reverse("flag_question", args=[attempt.pk, 2]), {"flagged": "1"})

    assert response.url == question_url(attempt, 2)
    assert slot_at(attempt, 2).flagged
    assert 'aria-pressed="true"' in learner_client.get(question_url(attempt, 2)).content.decode()
    summary = learner_client.get(summary_url(attempt)).content.decode()
    assert "1 flagged" in summary and summary.count("⚑ Flagged") == 1

    learner_client.post(reverse("flag_question", args=[attempt.pk, 2]), {"flagged": "0"})
    assert not slot_at(attempt, 2).flagged


def test_flagging_with_htmx_returns_only_the_flag_button(learner_client, attempt):
    response = learner_client.post(reverse("flag_question", args=[attempt.pk, 1]), {"flagged": "1"}, **HTMX)

    html = response.content.decode()
    assert html.strip().startswith('<form method="post"') and "flag-form" in html
    assert 'name="flagged" value="0"' in html  # the button now takes the flag off
    assert_no_correctness(html, attempt)


@pytest.mark.parametrize("value", ["", "yes", "2"])
def test_a_bad_flag_value_is_a_400_and_changes_nothing(learner_client, attempt, value):
    response = learner_client.post(reverse("flag_question", args=[attempt.pk, 1]), {"flagged": value})

    assert response.status_code == 400
    assert not attempt.slots.filter(flagged=True).exists()


def test_another_learner_cannot_flag_or_see_the_summary(other_client, attempt):
    assert other_client.post(reverse("flag_question", args=[attempt.pk, 1]), {"flagged": "1"}).status_code == 404
    assert other_client.get(summary_url(attempt)).status_code == 404
    assert other_client.post(submit_url(attempt)).status_code == 404
    assert not attempt.slots.filter(flagged=True).exists()
    attempt.refresh_from_db()
    assert not attempt.is_finished


def test_a_finished_attempts_flags_no_longer_change(learner_client, attempt):
    learner_client.post(submit_url(attempt))

    response = learner_client.post(reverse("flag_question", args=[attempt.pk, 1]), {"flagged": "1"})

    assert response.url == reverse("attempt_results", args=[attempt.pk])
    assert not attempt.slots.filter(flagged=True).exists()


def test_flag_and_submit_need_post(learner_client, attempt):
    assert learner_client.get(reverse("flag_question", args=[attempt.pk, 1])).status_code == 405


# --- Summary, confirmation, finishing early ------------------------------------------------------


def test_the_summary_counts_answered_unanswered_and_flagged_and_links_each_question(learner_client, attempt):
    slot = slot_at(attempt, 1)
    learner_client.post(question_url(attempt, 1), {"choice": correct_number(slot)})
    learner_client.post(reverse("flag_question", args=[attempt.pk, 3]), {"flagged": "1"})

    html = learner_client.get(summary_url(attempt)).content.decode()

    assert "1 answered" in html and "2 unanswered" in html and "1 flagged" in html
    for position in (1, 2, 3):
        assert f'href="{question_url(attempt, position)}"' in html
    assert html.count("Answer saved") == 1 and html.count("Not yet answered") == 2
    assert_no_correctness(html, attempt)
    assert correct_choice(slot).text not in html


def test_submit_asks_first_saying_how_many_are_unanswered(learner_client, attempt):
    slot = slot_at(attempt, 1)
    learner_client.post(question_url(attempt, 1), {"choice": correct_number(slot)})

    html = learner_client.get(submit_url(attempt)).content.decode()

    assert "You have 2 unanswered questions" in html and "Submit all and finish?" in html
    assert f'action="{submit_url(attempt)}"' in html
    attempt.refresh_from_db()
    assert not attempt.is_finished  # asking changes nothing
    assert_no_correctness(html, attempt)


def test_the_confirmation_comes_inline_with_htmx(learner_client, attempt):
    html = learner_client.get(submit_url(attempt), **HTMX).content.decode()

    assert html.strip().startswith('<div id="submit-confirm"')
    assert "<html" not in html and "You have 3 unanswered questions" in html


def test_finishing_early_counts_the_unanswered_as_not_right(learner_client, attempt):
    slot = slot_at(attempt, 2)
    learner_client.post(question_url(attempt, 2), {"choice": correct_number(slot)})

    response = learner_client.post(submit_url(attempt))

    attempt.refresh_from_db()
    assert response.url == reverse("attempt_results", args=[attempt.pk])
    assert attempt.is_finished and (attempt.correct_count, attempt.question_count) == (1, 3)
    html = learner_client.get(response.url).content.decode()
    assert "1 of 3" in html and html.count("Not answered.") == 2


def test_submitting_twice_finishes_once(learner_client, attempt):
    learner_client.post(submit_url(attempt))
    attempt.refresh_from_db()
    finished_at = attempt.finished_at

    response = learner_client.post(submit_url(attempt))

    attempt.refresh_from_db()
    assert response.url == reverse("attempt_results", args=[attempt.pk])
    assert attempt.finished_at == finished_at


def test_submitting_with_htmx_sends_the_browser_to_the_results(learner_client, attempt):
    response = learner_client.post(submit_url(attempt), **HTMX)

    assert response.headers["HX-Redirect"] == reverse("attempt_results", args=[attempt.pk])


def test_before_the_submit_no_question_shows_its_answer(learner_client, attempt):
    for position in (1, 2, 3):
        slot = slot_at(attempt, position)
        learner_client.post(question_url(attempt, position), {"choice": wrong_number(slot)})
        html = learner_client.get(question_url(attempt, position)).content.decode()
        assert_no_correctness(html, attempt)
        assert_no_correctness(learner_client.get(question_url(attempt, position), **HTMX).content.decode(), attempt)
    assert "You scored" not in learner_client.get(reverse("attempt_results", args=[attempt.pk]), follow=True).content.decode()


# --- Timer ---------------------------------------------------------------------------------------


def test_a_timed_question_says_when_time_is_up_without_javascript(learner_client, attempt):
    deadline = timezone.now() + timedelta(minutes=20)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=deadline)

    html = learner_client.get(question_url(attempt, 1)).content.decode()

    assert f"Time is up {moment_text(deadline)}" in html
    assert f"{timezone.localtime(deadline):%H:%M}" in moment_text(deadline)
    assert "time left shown here" not in html
    # The moment app.js counts down to: the same instant, in a form Date.parse reads.
    assert datetime.fromisoformat(re.search(r'data-deadline="([^"]+)"', html).group(1)) == deadline


def test_a_deadline_on_another_day_says_which_day(learner_client, attempt):
    # An attempt that closes at its assignment's due date, days away: the time alone read as today.
    deadline = timezone.now() + timedelta(days=3)
    Attempt.objects.filter(pk=attempt.pk).update(deadline=deadline)
    local = timezone.localtime(deadline)

    question = learner_client.get(question_url(attempt, 1)).content.decode()
    summary = learner_client.get(summary_url(attempt)).content.decode()

    for html in (question, summary):
        assert f"Time is up on {local:%a} {local.day} {local:%b}" in html
        assert f"at {local:%H:%M}" in html


def test_a_moment_is_today_or_another_day_in_the_readers_own_zone():
    now = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)  # 23:00 in Auckland
    later = now + timedelta(hours=2)

    with timezone.override("UTC"):
        assert moment_text(later, now) == "at 12:00"
    with timezone.override("Pacific/Auckland"):
        assert moment_text(later, now) == "on Wed 2 Dec at 01:00"
        assert moment_text(datetime(2027, 1, 8, 9, 5, tzinfo=UTC), now) == "on Fri 8 Jan 2027 at 22:05"


def test_an_untimed_question_shows_the_time_taken(learner_client, attempt):
    Attempt.objects.filter(pk=attempt.pk).update(started_at=timezone.now() - timedelta(minutes=12))

    html = learner_client.get(question_url(attempt, 1)).content.decode()

    # "12 min" on the dot, "12 min 3 s" a few seconds on: the way app.js will go on writing it.
    assert re.search(r'Time taken: <span class="timer-elapsed">12 min( \d\d? s)?</span>', html)
    started = Attempt.objects.get(pk=attempt.pk).started_at
    assert datetime.fromisoformat(re.search(r'data-started="([^"]+)"', html).group(1)) == started


# --- Results -------------------------------------------------------------------------------------


def test_results_show_the_score_then_topics_then_the_review_with_the_buttons_on_top(learner_client, learner, db):
    question_set = make_question_set(questions=3)
    networking, storage = make_topic("Networking"), make_topic("Storage")
    questions = list(question_set.questions.order_by("position"))
    networking.questions.add(questions[0], questions[1])
    storage.questions.add(questions[2])
    attempt = start_attempt(learner, question_set, feedback=Attempt.Feedback.DEFERRED)
    answer_all(attempt, right=1)  # question 1 right, 2 and 3 wrong, then submitted

    html = learner_client.get(reverse("attempt_results", args=[attempt.pk])).content.decode()

    score, topics = html.index('data-testid="score"'), html.index('data-testid="topic-scores"')
    review, retake = html.index('class="results"'), html.index("Retake my mistakes")
    try_again = html.index("Try again")
    assert score < retake < topics < review and try_again < topics
    assert re.search(r"Networking</th><td>1 of 2</td>", html) and re.search(r"Storage</th><td>0 of 1</td>", html)
    assert html.count("Retake my mistakes") == 2  # at the top, and again below the review


def test_a_perfect_score_offers_no_mistakes_to_retake(learner_client, learner, attempt):
    answer_all(attempt)

    html = learner_client.get(reverse("attempt_results", args=[attempt.pk])).content.decode()

    assert "3 of 3" in html and "Retake my mistakes" not in html


@pytest.mark.parametrize("saved", ["²", "٣", "1" * 40, "-1", "x"])
def test_a_strange_saved_parameter_is_ignored_never_a_500(learner_client, attempt, saved):
    for url in (question_url(attempt, 1), summary_url(attempt)):
        response = learner_client.get(url, {"saved": saved})
        assert response.status_code == 200
        assert "saved." not in response.content.decode()
