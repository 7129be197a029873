"""The gradebook, the learner's own pages, the CSVs and item analysis agree, each number
recomputed here from raw rows on a fixed clock: status with a late best attempt, lateness
after an extension, removed learners, and random draws with shuffle off."""

import random
import re
from datetime import timedelta

import pytest
from django.urls import reverse

from quiz.models import AssignmentOverride, Attempt, AttemptSlot
from quiz.teaching import gradebook, rules
from tests.class_factories import NOW, make_assignment, make_classroom, make_pool, take
from tests.factories import make_question_set, make_user
from tests.helpers import logged_in

LATER = NOW + timedelta(days=30)


def raw_standing(assignment, learner):
    """Status and counted score for "best attempt counts", from the attempt rows and the
    learner's due date (their override's, if any), without the app's helpers."""
    override = AssignmentOverride.objects.filter(assignment=assignment, learner=learner).first()
    due = override.due_at if override and override.due_at else assignment.due_at
    rows = Attempt.objects.filter(assignment=assignment, user=learner).order_by("started_at")
    finished = [(round(100 * r.correct_count / r.question_count), r.finished_at > due) for r in rows if r.finished_at]
    best = max(finished, key=lambda row: row[0])  # max() keeps the earliest of equal bests
    return ("late" if best[1] else "submitted"), best[0]


def shown_statuses(assignment, learner):
    """The status as the gradebook, the learner's assignment page and their home show it."""
    cell = gradebook.build_gradebook(classroom=assignment.classroom, now=LATER).rows[0][1][0]
    client = logged_in(learner)
    page = client.get(reverse("learner_assignment", args=[assignment.pk])).content.decode()
    home = client.get(reverse("my_classes")).content.decode()
    on_page = re.search(r'data-testid="status">([^<]+)<', page).group(1).lower()
    at_home = re.search(r'class="status status-[a-z-]+">([^<]+)<', home).group(1).lower()
    return cell.status, on_page, at_home, cell.score


@pytest.fixture
def ann_late_best(teacher):
    """Ann, "best attempt counts": an on-time 50% attempt, then a late 100% one."""
    ann = make_user("ann")
    classroom = make_classroom(teacher, learners=[ann])
    assignment = make_assignment(classroom, make_pool(teacher, make_question_set(questions=2).questions.all()))
    take(assignment, ann, (0, 3))  # on time, 50%
    take(assignment, ann, (0, 1), start=assignment.due_at + timedelta(hours=1))  # late, 100%
    return assignment, ann


def test_the_status_of_the_counted_attempt_is_shown_everywhere(ann_late_best):
    assignment, ann = ann_late_best

    status, score = raw_standing(assignment, ann)

    assert (status, score) == ("late", 100)
    assert shown_statuses(assignment, ann) == (status, status, status, score)


def test_an_extension_after_a_late_finish_clears_late_everywhere_and_removing_it_restores_it(ann_late_best):
    assignment, ann = ann_late_best

    rules.save_override(assignment=assignment, learner=ann, rules={"due_at": assignment.due_at + timedelta(days=1)})

    assert raw_standing(assignment, ann) == ("submitted", 100)
    assert shown_statuses(assignment, ann) == ("submitted", "submitted", "submitted", 100)
    assert not Attempt.objects.filter(assignment=assignment, is_late=True).exists()  # each attempt's "Late" tag too

    rules.delete_override(AssignmentOverride.objects.get(assignment=assignment, learner=ann))

    assert raw_standing(assignment, ann) == ("late", 100)
    assert shown_statuses(assignment, ann) == ("late", "late", "late", 100)


def test_a_learner_with_the_on_time_attempt_counted_is_submitted(teacher):
    """"First attempt counts": the late retry is not what counts, so the status is "submitted"."""
    ann = make_user("ann")
    classroom = make_classroom(teacher, learners=[ann])
    assignment = make_assignment(classroom, make_pool(teacher, make_question_set(questions=2).questions.all()), grading="first")
    take(assignment, ann, (0, 3))
    take(assignment, ann, (0, 1), start=assignment.due_at + timedelta(hours=1))

    assert shown_statuses(assignment, ann) == ("submitted", "submitted", "submitted", 50)


# --- Random draws keep the set's order unless shuffle is on ---------------------------------------

def drawn_orders(teacher, *, shuffle, attempts=20):
    """Pool positions of the questions each attempt was given, in the order it shows them."""
    learners = [make_user(f"drawer_{n}") for n in range(attempts)]
    classroom = make_classroom(teacher, learners=learners)
    pool = make_pool(teacher, make_question_set(questions=10).questions.all(), draw_count=4)
    assignment = make_assignment(classroom, pool, shuffle=shuffle)
    rng = random.Random(7)
    for learner in learners:
        seen = rules.get_learner_assignment(user=learner, assignment_id=assignment.pk, now=NOW)
        rules.start_attempt(user=learner, seen=seen, now=NOW, rng=rng)
    position = dict(pool.entries.values_list("question_id", "position"))
    orders = {}
    for attempt_id, question_id in AttemptSlot.objects.filter(attempt__assignment=assignment).order_by("attempt", "position").values_list("attempt", "question"):
        orders.setdefault(attempt_id, []).append(position[question_id])
    return list(orders.values())


def test_a_draw_with_shuffle_off_keeps_the_sets_order(teacher):
    orders = drawn_orders(teacher, shuffle=False)

    assert all(order == sorted(order) and len(order) == 4 for order in orders)
    assert len({tuple(order) for order in orders}) > 1  # still a random draw


def test_a_draw_with_shuffle_on_is_shuffled(teacher):
    orders = drawn_orders(teacher, shuffle=True)

    assert any(order != sorted(order) for order in orders)
