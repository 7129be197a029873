"""Assignment rules on a fixed clock: opening and due dates, attempts allowed, time limits,
overrides, grading rules, random draws, and feedback held back until the chosen moment."""

import random
from datetime import timedelta

import pytest
from django.urls import reverse

from quiz.models import Assignment, AssignmentOverride, Attempt, MemoryState
from quiz.study import answers
from quiz.study.catch_up import catch_up_learner
from quiz.teaching import rules, standing
from quiz.teaching.rules import RuleViolation, Status
from tests.class_factories import NOW, make_assignment, make_classroom, make_pool
from tests.factories import make_question_set
from tests.helpers import answer_all, correct_number, wrong_number


@pytest.fixture
def classroom(teacher, learner):
    return make_classroom(teacher, learners=[learner])


def seen(learner, assignment, now=NOW):
    return rules.get_learner_assignment(user=learner, assignment_id=assignment.pk, now=now)


def start(learner, assignment, now=NOW, rng=None):
    return rules.start_attempt(user=learner, seen=seen(learner, assignment, now), now=now, rng=rng)


# --- Status and dates --------------------------------------------------------------------------

def test_status_moves_from_upcoming_to_missed(learner, classroom):
    assignment = make_assignment(classroom)

    assert seen(learner, assignment, NOW - timedelta(days=2)).status == Status.UPCOMING
    assert seen(learner, assignment, NOW).status == Status.NOT_STARTED
    assert seen(learner, assignment, NOW + timedelta(days=2)).status == Status.MISSED


def test_status_in_progress_then_submitted(learner, classroom):
    assignment = make_assignment(classroom)
    attempt = start(learner, assignment)
    assert seen(learner, assignment).status == Status.IN_PROGRESS

    answer_all(attempt, now=NOW + timedelta(minutes=5))

    assert seen(learner, assignment).status == Status.SUBMITTED


def test_a_submission_after_the_due_date_is_marked_late(learner, classroom):
    assignment = make_assignment(classroom)
    attempt = start(learner, assignment, now=NOW + timedelta(days=2))

    answer_all(attempt, now=NOW + timedelta(days=2, minutes=3))

    assert attempt.is_late
    assert seen(learner, assignment, NOW + timedelta(days=3)).status == Status.LATE


def test_it_cannot_be_started_before_it_opens(learner, classroom):
    assignment = make_assignment(classroom, opens_at=NOW + timedelta(hours=1))

    with pytest.raises(RuleViolation, match="not open yet"):
        start(learner, assignment)
    assert not Attempt.objects.exists()


def test_an_override_opens_it_early_and_moves_the_due_date(learner, classroom):
    assignment = make_assignment(classroom, opens_at=NOW + timedelta(hours=1))
    AssignmentOverride.objects.create(
        assignment=assignment, learner=learner, opens_at=NOW - timedelta(hours=1), due_at=NOW + timedelta(days=5)
    )

    attempt = start(learner, assignment)
    answer_all(attempt, now=NOW + timedelta(days=3))

    assert not attempt.is_late
    assert seen(learner, assignment, NOW + timedelta(days=3)).status == Status.SUBMITTED


def test_an_override_for_one_learner_does_not_change_anothers(learner, other_learner, classroom):
    classroom.join(other_learner)
    assignment = make_assignment(classroom)
    AssignmentOverride.objects.create(assignment=assignment, learner=learner, due_at=NOW + timedelta(days=9))

    assert seen(other_learner, assignment).rules.due_at == assignment.due_at
    assert seen(learner, assignment).rules.due_at == NOW + timedelta(days=9)


# --- Attempts allowed ----------------------------------------------------------------------------

def test_attempts_are_limited(learner, classroom):
    assignment = make_assignment(classroom, max_attempts=2)
    for _ in range(2):
        answer_all(start(learner, assignment), now=NOW)

    with pytest.raises(RuleViolation, match="used all your attempts"):
        start(learner, assignment)
    assert Attempt.objects.count() == 2


def test_an_override_grants_an_extra_attempt(learner, classroom):
    assignment = make_assignment(classroom, max_attempts=1)
    answer_all(start(learner, assignment), now=NOW)
    AssignmentOverride.objects.create(assignment=assignment, learner=learner, max_attempts=2)

    assert start(learner, assignment).assignment == assignment


def test_starting_twice_resumes_the_open_attempt(learner, classroom):
    assignment = make_assignment(classroom, max_attempts=1)

    assert start(learner, assignment) == start(learner, assignment)


# --- Time limit ----------------------------------------------------------------------------------

def test_an_answer_after_the_time_limit_is_refused_and_the_attempt_closes(learner, classroom):
    assignment = make_assignment(classroom, time_limit=timedelta(minutes=10))
    attempt = start(learner, assignment)
    first, second, _ = attempt.slots.order_by("position")
    answers.submit_answer(attempt=attempt, slot=first, number=correct_number(first), now=NOW + timedelta(minutes=5))

    recorded = answers.submit_answer(
        attempt=attempt, slot=second, number=correct_number(second), now=NOW + timedelta(minutes=11)
    )

    attempt.refresh_from_db()
    second.refresh_from_db()
    assert recorded is False and second.answered_at is None
    assert attempt.finished_at == NOW + timedelta(minutes=10)
    assert attempt.correct_count == 1


def test_the_view_refuses_a_late_answer_and_shows_the_results(learner, learner_client, classroom):
    assignment = make_assignment(classroom, time_limit=timedelta(minutes=1))
    attempt = start(learner, assignment, now=NOW)  # started long ago in wall-clock time
    slot = attempt.slots.get(position=1)

    response = learner_client.post(
        reverse("attempt_question", args=[attempt.pk, 1]), {"choice": correct_number(slot)}, follow=True
    )

    slot.refresh_from_db()
    attempt.refresh_from_db()
    assert slot.answered_at is None
    assert attempt.is_finished
    assert "Time is up" in response.content.decode()


def test_attempts_left_running_past_their_deadline_are_closed_and_scored(learner, classroom):
    assignment = make_assignment(classroom, time_limit=timedelta(minutes=10))
    attempt = start(learner, assignment)
    slot = attempt.slots.get(position=1)
    answers.submit_answer(attempt=attempt, slot=slot, number=correct_number(slot), now=NOW + timedelta(minutes=1))

    catch_up_learner(learner, now=NOW + timedelta(hours=1))
    status = seen(learner, assignment, NOW + timedelta(hours=1)).status

    attempt.refresh_from_db()
    assert status == Status.SUBMITTED
    assert (attempt.finished_at, attempt.correct_count) == (NOW + timedelta(minutes=10), 1)


def test_an_override_gives_one_learner_extra_time(learner, classroom):
    assignment = make_assignment(classroom, time_limit=timedelta(minutes=10))
    AssignmentOverride.objects.create(assignment=assignment, learner=learner, time_limit=timedelta(minutes=30))

    attempt = start(learner, assignment)

    assert attempt.deadline == NOW + timedelta(minutes=30)


# --- Questions drawn, order, grading ------------------------------------------------------------------

def test_a_random_draw_is_recorded_per_attempt(learner, classroom, teacher):
    pool = make_question_set(questions=6).questions.all()
    assignment = make_assignment(classroom, make_pool(teacher, pool, draw_count=2))

    attempt = start(learner, assignment, rng=random.Random(3))

    assert attempt.slots.count() == 2 == attempt.question_count
    assert set(attempt.slots.values_list("question", flat=True)) <= set(pool.values_list("pk", flat=True))


def test_without_shuffle_questions_and_choices_keep_their_order(learner, classroom):
    assignment = make_assignment(classroom, shuffle=False)

    attempt = start(learner, assignment)

    slots = list(attempt.slots.order_by("position").select_related("question"))
    assert [s.question.position for s in slots] == [1, 2, 3]
    assert all(s.choice_texts == [c.text for c in s.question.choices.order_by("position")] for s in slots)


@pytest.mark.parametrize("rule, expected", [("best", 100), ("last", 0), ("first", 67), ("average", 56)])
def test_the_grading_rule_picks_the_counted_score(rule, expected):
    assert standing.counted_score([67, 100, 0], rule) == expected


# --- Feedback timing ---------------------------------------------------------------------------------

def test_feedback_after_the_due_date_is_in_no_response_before_then(learner, learner_client, classroom):
    assignment = make_assignment(
        classroom,
        opens_at=NOW - timedelta(days=400),
        due_at=NOW + timedelta(days=400),  # still ahead in wall-clock time while the test runs
        feedback_timing=Assignment.FeedbackTiming.AFTER_DUE,
    )
    attempt = start(learner, assignment)
    slots = list(attempt.slots.order_by("position").select_related("question"))
    pages = []
    for slot in slots:
        url = reverse("attempt_question", args=[attempt.pk, slot.position])
        pages.append(learner_client.get(url).content.decode())
        response = learner_client.post(url, {"choice": wrong_number(slot)}, follow=True)
        pages.append(response.content.decode())
    # Before submitting: the summary and the confirmation ("Submit all and finish?").
    before_submit = [
        learner_client.get(reverse("attempt_summary", args=[attempt.pk])).content.decode(),
        learner_client.get(reverse("attempt_submit", args=[attempt.pk])).content.decode(),
    ]
    assert "unanswered" in before_submit[0] and "Submit all and finish?" in before_submit[1]
    learner_client.post(reverse("attempt_submit", args=[attempt.pk]))
    pages.append(learner_client.get(reverse("attempt_results", args=[attempt.pk])).content.decode())
    pages.append(learner_client.get(reverse("attempt_question", args=[attempt.pk, 1]), follow=True).content.decode())
    pages.append(learner_client.get(reverse("attempt_list")).content.decode())
    pages.append(learner_client.get(reverse("learner_assignment", args=[assignment.pk])).content.decode())

    attempt.refresh_from_db()
    assert attempt.is_finished
    # The pages are there, each with what it is for...
    assert all(slot.stem in page for slot, page in zip(slots, pages[0::2]))
    assert "hidden for now: you see them on " in pages[-4] and assignment.title in pages[-1]
    # ...and none says whether an answer was right.
    for html in pages + before_submit:
        assert "Correct answer" not in html and "Not quite" not in html and "Correct!" not in html
        for slot in slots:
            assert slot.question.explanation not in html
    assert f"0/{attempt.question_count}" not in "".join(pages), "the score is held back too"
    assert not MemoryState.objects.filter(user=learner).exists(), "kept out of the review queue until then"


def test_after_the_due_date_the_answers_are_shown(learner, learner_client, classroom):
    assignment = make_assignment(
        classroom,
        opens_at=NOW - timedelta(days=400),
        due_at=NOW - timedelta(days=300),
        feedback_timing=Assignment.FeedbackTiming.AFTER_DUE,
    )
    attempt = answer_all(start(learner, assignment, now=NOW - timedelta(days=350)), now=NOW - timedelta(days=350))

    html = learner_client.get(reverse("attempt_results", args=[attempt.pk])).content.decode()

    assert "Correct answer" in html
    assert attempt.slots.first().question.explanation in html


def test_feedback_after_the_attempt_waits_for_the_end(learner, learner_client, classroom):
    assignment = make_assignment(
        classroom, due_at=NOW + timedelta(days=400), feedback_timing=Assignment.FeedbackTiming.AFTER_ATTEMPT
    )
    attempt = start(learner, assignment)
    first = attempt.slots.get(position=1)

    response = learner_client.post(
        reverse("attempt_question", args=[attempt.pk, 1]), {"choice": correct_number(first)}, follow=True
    )

    assert "Correct!" not in response.content.decode()
    assert "Question 2 of 3" in response.content.decode()


def test_a_deferred_attempt_answered_but_never_submitted_is_submitted_at_the_due_date(learner, classroom):
    # Feedback at the end waits for "Submit all and finish"; a learner who answers everything and
    # forgets the button still has their work graded when the assignment closes, as in Moodle.
    assignment = make_assignment(classroom, feedback_timing=Assignment.FeedbackTiming.AFTER_ATTEMPT)
    attempt = start(learner, assignment)
    assert attempt.deadline == assignment.due_at
    for index, slot in enumerate(attempt.slots.order_by("position")):
        number = correct_number(slot) if index < 2 else wrong_number(slot)
        answers.submit_answer(attempt=attempt, slot=slot, number=number, now=NOW + timedelta(minutes=5))
    attempt.refresh_from_db()
    assert attempt.finished_at is None  # saved, not submitted

    catch_up_learner(learner, now=assignment.due_at + timedelta(days=30))

    attempt.refresh_from_db()
    assert attempt.finished_at == assignment.due_at and attempt.correct_count == 2 and not attempt.is_late
    seen = rules.get_learner_assignment(user=learner, assignment_id=assignment.pk, now=assignment.due_at + timedelta(days=30))
    assert seen.standing.score == 67 and seen.status == Status.SUBMITTED


def test_a_deferred_attempt_started_after_the_due_date_is_left_to_the_learner(learner, classroom):
    assignment = make_assignment(classroom, feedback_timing=Assignment.FeedbackTiming.AFTER_ATTEMPT)
    attempt = start(learner, assignment, now=assignment.due_at + timedelta(hours=1))
    assert attempt.deadline is None  # late work: no deadline in the past to close it at once


# --- Found in review --------------------------------------------------------------------------------

def test_answers_shown_after_the_due_date_close_the_assignment_then(learner, classroom):
    assignment = make_assignment(classroom, feedback_timing=Assignment.FeedbackTiming.AFTER_DUE)
    attempt = start(learner, assignment, now=assignment.due_at - timedelta(minutes=30))

    assert attempt.deadline == assignment.due_at  # an attempt still open at the due date closes
    answer_all(attempt, now=assignment.due_at - timedelta(minutes=10))
    with pytest.raises(RuleViolation, match="closed on its due date"):
        start(learner, assignment, now=assignment.due_at + timedelta(minutes=1))


def test_extra_time_given_mid_attempt_counts_at_once(learner, classroom):
    assignment = make_assignment(classroom, time_limit=timedelta(minutes=10))
    attempt = start(learner, assignment)

    AssignmentOverride.objects.create(assignment=assignment, learner=learner, time_limit=timedelta(minutes=60))
    rules.apply_rules_to_attempts(assignment=assignment, learner=learner)

    attempt.refresh_from_db()
    assert attempt.deadline == NOW + timedelta(minutes=60)


# --- Answers held until the due date follow each learner's own due date ----------------------------

def test_an_extension_keeps_attempt_ones_answers_hidden_until_the_learners_own_due_date(learner, learner_client, classroom):
    assignment = make_assignment(classroom, feedback_timing=Assignment.FeedbackTiming.AFTER_DUE, max_attempts=2)
    first = answer_all(start(learner, assignment), now=NOW + timedelta(minutes=5))
    extended = assignment.due_at + timedelta(days=7)

    rules.save_override(assignment=assignment, learner=learner, rules={"due_at": extended})

    first.refresh_from_db()
    after_class_due = assignment.due_at + timedelta(hours=1)
    assert first.reveal_at == extended and not first.answers_visible(after_class_due)
    second = start(learner, assignment, now=after_class_due)  # still allowed: the learner's due date is ahead
    assert second.reveal_at == extended
    assert first.answers_visible(extended + timedelta(seconds=1))


def test_an_extension_given_after_a_late_finish_recomputes_lateness(learner, classroom):
    assignment = make_assignment(classroom)
    late = answer_all(start(learner, assignment, now=NOW), now=assignment.due_at + timedelta(hours=2))
    assert late.is_late

    rules.save_override(assignment=assignment, learner=learner, rules={"due_at": assignment.due_at + timedelta(days=1)})

    late.refresh_from_db()
    assert not late.is_late and late.due_at == assignment.due_at + timedelta(days=1)


def test_answers_given_after_the_rule_moves_to_after_due_show_no_verdict_before_it(learner, learner_client, teacher):
    # Feedback after each answer when the learner started; then the instructor holds answers
    # until the due date. What they answer from then on is recorded, not marked, until that date.
    from django.utils import timezone

    from tests.helpers import HTMX, question_url

    now = timezone.now()
    pool = make_pool(teacher, questions=make_question_set(questions=4).questions.all())
    assignment = make_assignment(make_classroom(teacher, learners=[learner]), pool, opens_at=now - timedelta(days=1),
                                 due_at=now + timedelta(days=1), feedback_timing="immediate")
    attempt = rules.start_attempt(user=learner, seen=rules.get_learner_assignment(
        user=learner, assignment_id=assignment.pk, now=now), now=now)
    slots = {slot.position: slot for slot in attempt.slots.select_related("question")}
    page = learner_client.post(question_url(attempt, 1), {"choice": correct_number(slots[1])}, follow=True)
    assert "Correct!" in page.content.decode()  # the rule as it was

    Assignment.objects.filter(pk=assignment.pk).update(feedback_timing="after_due")
    rules.apply_rules_to_everyone(Assignment.objects.get(pk=assignment.pk))

    for position, extra in ((2, {}), (3, HTMX)):  # redirected to the page, or given it at once
        response = learner_client.post(question_url(attempt, position), {"choice": correct_number(slots[position])},
                                       follow=True, **extra)
        page = response.content.decode()
        assert 'data-testid="answer-recorded"' in page
        assert "Correct!" not in page and "Explanation" not in page and "Correct answer" not in page and "is-correct" not in page
    assert attempt.slots.filter(answered_at__isnull=False).count() == 3
    # The whole attempt follows the new rule, as its results page does: the first answer too.
    assert 'data-testid="answer-recorded"' in learner_client.get(question_url(attempt, 1)).content.decode()
