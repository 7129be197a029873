"""A question excluded from an assignment after the fact counts for no one: each score, the
gradebook, both CSVs and item analysis are recomputed here from raw rows (the slots and the
exclusion rows, without the app's helpers), learners see it marked in their results, and the
instructor can include it again."""

import csv
import io
import re
import statistics

import pytest
from django.urls import reverse

from quiz.models import AttemptSlot, ExcludedQuestion
from quiz.teaching import gradebook, item_analysis, rules
from tests.class_factories import NOW, make_assignment, make_classroom, make_pool, take
from tests.factories import make_question_set, make_user
from tests.helpers import count_queries, logged_in


def picks(*rights):
    """Choice positions for right (True) or wrong answers to questions 1, 2, 3...: question N's
    right choice is N-1 (see make_question_set)."""
    return tuple(index if right else (index + 1) % 4 for index, right in enumerate(rights))


@pytest.fixture
def course(teacher):
    """Three learners, three questions; question 3 is the broken one (only the weakest gets it)."""
    learners = [make_user(name) for name in ("ann", "ben", "cat")]
    classroom = make_classroom(teacher, learners=learners)
    questions = list(make_question_set(questions=3).questions.order_by("position"))
    assignment = make_assignment(classroom, make_pool(teacher, questions))
    for learner, rights in zip(learners, [(1, 1, 0), (1, 0, 0), (0, 0, 1)]):
        take(assignment, learner, picks(*rights))
    return assignment, learners, questions


def raw_scores(assignment):
    """Each learner's score (0-100) from their one attempt's slots, leaving out excluded questions."""
    excluded = set(ExcludedQuestion.objects.filter(assignment=assignment).values_list("question", flat=True))
    scores = {}
    for slot in AttemptSlot.objects.filter(attempt__assignment=assignment).select_related("attempt__user"):
        right, total = scores.get(slot.attempt.user.username, (0, 0))
        if slot.question_id not in excluded:
            right, total = right + bool(slot.is_correct), total + 1
        scores[slot.attempt.user.username] = (right, total)
    return {name: round(100 * right / total) for name, (right, total) in scores.items()}


def gradebook_scores(assignment):
    book = gradebook.build_gradebook(classroom=assignment.classroom, now=NOW)
    return {learner.username: cells[0].score for learner, cells in book.rows}, book.columns[0].average


def csv_rows(client, name, assignment):
    response = client.get(reverse(name, args=[assignment.classroom_id]))
    return list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))


def test_an_excluded_question_counts_for_no_one_in_the_gradebook_and_gradebook_csv(course, teacher_client):
    assignment, _, questions = course

    assignment.exclude_question(questions[2], by=assignment.classroom.owner)

    raw = raw_scores(assignment)
    assert raw == {"ann": 100, "ben": 50, "cat": 0}
    scores, average = gradebook_scores(assignment)
    assert scores == raw and average == round(statistics.mean(raw.values()), 1)
    in_csv = {row["learner"]: int(row[f"{assignment.title} (score %)"]) for row in csv_rows(teacher_client, "gradebook_csv", assignment)}
    assert in_csv == raw


def test_including_it_again_restores_every_score(course):
    assignment, _, questions = course
    assignment.exclude_question(questions[2], by=None)

    assert assignment.include_question(questions[2]) is True

    assert raw_scores(assignment) == {"ann": 67, "ben": 33, "cat": 33}
    assert gradebook_scores(assignment)[0] == raw_scores(assignment)


def test_the_responses_csv_keeps_the_answers_and_marks_them_excluded(course, teacher_client):
    assignment, _, questions = course
    assignment.exclude_question(questions[2], by=None)

    rows = csv_rows(teacher_client, "responses_csv", assignment)

    assert len(rows) == 9
    assert {row["question"] for row in rows if row["excluded"] == "yes"} == {questions[2].stem}
    assert sum(row["excluded"] == "yes" for row in rows) == 3


def test_item_analysis_correlates_with_totals_without_the_excluded_question(course):
    assignment, _, questions = course
    assignment.exclude_question(questions[2], by=None)

    items = {item.question.pk: item for item in item_analysis.analyse_items(assignment=assignment)}

    totals = [score / 100 for score in raw_scores(assignment).values()]  # ann, ben, cat
    right_on_q1 = [1, 1, 0]
    assert items[questions[0].pk].point_biserial == pytest.approx(statistics.correlation(right_on_q1, totals))
    assert items[questions[2].pk].excluded and not items[questions[2].pk].looks_broken
    assert not items[questions[0].pk].excluded


def test_the_learner_sees_it_marked_and_their_score_out_of_the_rest(course):
    assignment, learners, questions = course
    assignment.exclude_question(questions[2], by=None)
    ann = logged_in(learners[0])
    attempt = assignment.attempts.get(user=learners[0])

    results = ann.get(reverse("attempt_results", args=[attempt.pk])).content.decode()
    own_page = ann.get(reverse("learner_assignment", args=[assignment.pk])).content.decode()

    assert re.search(r"You scored <strong>2 of 2</strong> \(100%\)", results)
    assert results.count('data-testid="excluded"') == 1 and "Excluded by your instructor" in results
    assert "2/2 (100%)" in own_page


def test_new_attempts_leave_the_excluded_question_out(course):
    assignment, _, questions = course
    assignment.exclude_question(questions[2], by=None)
    newcomer = make_user("dan")
    assignment.classroom.join(newcomer)

    seen = rules.get_learner_assignment(user=newcomer, assignment_id=assignment.pk, now=NOW)
    attempt = rules.start_attempt(user=newcomer, seen=seen, now=NOW)

    assert list(attempt.slots.values_list("question", flat=True)) == [questions[0].pk, questions[1].pk]


# --- The pages: confirm, exclude, undo --------------------------------------------------------

def test_excluding_asks_first_and_changes_nothing_on_get(course, teacher_client):
    assignment, _, questions = course
    url = reverse("exclude_question", args=[assignment.pk, questions[2].pk])

    page = teacher_client.get(url)

    assert page.status_code == 200 and b"count for no one" in page.content
    assert not ExcludedQuestion.objects.exists()


def test_the_instructor_excludes_and_includes_from_item_analysis(course, teacher_client, teacher):
    assignment, _, questions = course
    analysis = reverse("item_analysis", args=[assignment.pk])
    assert reverse("exclude_question", args=[assignment.pk, questions[2].pk]) in teacher_client.get(analysis).content.decode()

    response = teacher_client.post(reverse("exclude_question", args=[assignment.pk, questions[2].pk]))

    assert response.status_code == 302 and response.url == analysis
    assert ExcludedQuestion.objects.get().excluded_by == teacher
    page = teacher_client.get(analysis).content.decode()
    assert reverse("include_question", args=[assignment.pk, questions[2].pk]) in page

    teacher_client.post(reverse("include_question", args=[assignment.pk, questions[2].pk]))

    assert not ExcludedQuestion.objects.exists()


def test_excluding_twice_keeps_one_row(course):
    assignment, _, questions = course

    assert assignment.exclude_question(questions[2], by=None) is True
    assert assignment.exclude_question(questions[2], by=None) is False
    assert ExcludedQuestion.objects.count() == 1


def test_a_question_outside_the_assignment_is_a_404(course, teacher_client):
    assignment, _, _ = course
    stranger = make_question_set(questions=1).questions.get()

    response = teacher_client.post(reverse("exclude_question", args=[assignment.pk, stranger.pk]))

    assert response.status_code == 404 and not ExcludedQuestion.objects.exists()


def test_the_affected_pages_read_as_many_queries_with_an_exclusion(course, teacher_client):
    assignment, learners, questions = course
    ann = logged_in(learners[0])
    attempt = assignment.attempts.get(user=learners[0])
    pages = [
        (teacher_client, reverse("gradebook", args=[assignment.classroom_id])),
        (teacher_client, reverse("item_analysis", args=[assignment.pk])),
        (teacher_client, reverse("instructor_attempt_review", args=[attempt.pk])),
        (ann, reverse("attempt_results", args=[attempt.pk])),
        (ann, reverse("learner_assignment", args=[assignment.pk])),
    ]
    before = [count_queries(client, url) for client, url in pages]

    assignment.exclude_question(questions[2], by=None)

    assert [count_queries(client, url) for client, url in pages] == before
