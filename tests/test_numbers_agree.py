"""The gradebook, the learner's own pages, the CSVs and item analysis agree, each number
recomputed here from raw rows on a fixed clock: status with a late best attempt, lateness
after an extension, removed learners, and random draws with shuffle off."""

import csv
import io
import random
import re
import statistics
from datetime import timedelta

import pytest
from django.urls import reverse

from quiz.models import AssignmentOverride, Attempt, AttemptSlot, User
from quiz.teaching import gradebook, item_analysis, rules
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


# --- Item analysis: ties, the flag's minimum, removed learners ---------------------------------------

def answered_class(teacher, patterns, prefix="l"):
    """One learner per pattern of rights (1) and wrongs (0) over three questions, started in
    the order given; question n's right answer is choice n, choice 4 is wrong everywhere."""
    learners = [make_user(f"{prefix}{n:02d}") for n in range(len(patterns))]
    classroom = make_classroom(teacher, learners=learners)
    questions = make_question_set(questions=len(patterns[0])).questions.all()
    assignment = make_assignment(classroom, make_pool(teacher, questions))
    for n, (learner, pattern) in enumerate(zip(learners, patterns)):
        picks = [index if right else 3 for index, right in enumerate(pattern)]
        take(assignment, learner, picks, start=NOW + timedelta(minutes=n))
    return assignment


def figures(assignment):
    return [(i.facility, i.point_biserial, i.discrimination, i.looks_broken) for i in item_analysis.analyse_items(assignment=assignment)]


def test_learners_tied_on_total_score_are_treated_alike_whatever_order_they_started(teacher):
    tied = [(1, 0)] * 4 + [(0, 1)] * 4  # eight learners, all at 50%

    forwards = figures(answered_class(teacher, tied, prefix="f"))
    backwards = figures(answered_class(teacher, tied[::-1], prefix="b"))

    # Everyone ties, so the groups are the whole class (shared): no discrimination either way.
    assert forwards == backwards == [(0.5, None, 0.0, False), (0.5, None, 0.0, False)]


def raw_point_biserial(assignment, question):
    """Pearson's r between right/wrong on the question and the attempt's total, from raw rows."""
    pairs = [
        (float(right), correct / count)
        for right, correct, count in AttemptSlot.objects.filter(
            attempt__assignment=assignment, question=question, answered_at__isnull=False
        ).values_list("is_correct", "attempt__correct_count", "attempt__question_count")
    ]
    return statistics.correlation(*zip(*pairs))


def test_a_question_strong_learners_miss_is_flagged_from_ten_learners(teacher):
    strong, weak = [(1, 1, 0), (1, 1, 0), (1, 0, 0)], [(0, 0, 1), (0, 1, 1), (0, 0, 1)]
    small = answered_class(teacher, strong + weak, prefix="s")
    large = answered_class(teacher, (strong + weak) * 2, prefix="g")  # twelve learners

    for assignment in (small, large):
        items = item_analysis.analyse_items(assignment=assignment)
        assert [i.point_biserial for i in items] == pytest.approx([raw_point_biserial(assignment, i.question) for i in items])
        assert items[2].point_biserial < 0
    assert [i.looks_broken for i in item_analysis.analyse_items(assignment=small)] == [False, False, False]
    assert [i.looks_broken for i in item_analysis.analyse_items(assignment=large)] == [False, False, True]


def test_the_discrimination_index_splits_a_tie_at_a_groups_edge(teacher):
    # Totals 3/3, 2/3, 2/3, 2/3, 0/3: 27% of 5 = 1.35, so the upper group is the top learner
    # and 0.35 shared by the three tied at 2/3; the lower group is the bottom learner and the same.
    assignment = answered_class(teacher, [(1, 1, 1), (1, 1, 0), (1, 0, 1), (0, 1, 1), (0, 0, 0)])

    q1, _, _ = item_analysis.analyse_items(assignment=assignment)

    # Upper: 1 + 0.35 * (2 of 3 right) = 1.2333 of 1.35; lower: 0 + 0.35 * 2/3 = 0.2333 of 1.35.
    assert q1.discrimination == round((1 + 0.35 * 2 / 3) / 1.35 - (0.35 * 2 / 3) / 1.35, 2)


def test_a_removed_learner_is_left_out_of_the_gradebook_the_responses_and_item_analysis(teacher, teacher_client):
    assignment = answered_class(teacher, [(1, 1), (0, 1), (1, 0)])
    classroom = assignment.classroom
    classroom.remove_learner(User.objects.get(username="l02"))

    csv_text = b"".join(teacher_client.get(reverse("responses_csv", args=[classroom.pk])).streaming_content).decode()
    responders = {row["learner"] for row in csv.DictReader(io.StringIO(csv_text))}
    book = gradebook.build_gradebook(classroom=classroom, now=LATER)
    items = item_analysis.analyse_items(assignment=assignment)

    current = set(classroom.enrollments.values_list("learner__username", flat=True))
    assert responders == current == {learner.username for learner, _ in book.rows} == {"l00", "l01"}
    assert [i.answered for i in items] == [2, 2]
    assert "Current learners only" in teacher_client.get(reverse("gradebook", args=[classroom.pk])).content.decode()


def test_the_summary_sorts_by_a_figure_without_javascript(teacher, teacher_client):
    assignment = answered_class(teacher, [(1, 1, 0), (1, 0, 0), (0, 0, 1), (1, 1, 1)])
    items = item_analysis.analyse_items(assignment=assignment)
    url = reverse("item_analysis", args=[assignment.pk])

    html = teacher_client.get(url, {"sort": "-facility"}).content.decode()

    shown = re.findall(r'data-testid="summary-row">\s*<td><a href="#item-(\d+)"', html)
    expected = sorted(items, key=lambda i: -i.facility)
    assert [int(pk) for pk in shown] == [i.question.pk for i in expected]
    assert 'href="?sort=facility"' in html and 'aria-sort="descending"' in html


def test_the_instructors_review_speaks_about_the_learner(teacher, teacher_client):
    assignment = answered_class(teacher, [(1, 0)])
    attempt = Attempt.objects.get(assignment=assignment)

    html = teacher_client.get(reverse("instructor_attempt_review", args=[attempt.pk])).content.decode()

    assert "Their answer" in html and "Your answer" not in html
