"""Scores as a recount from the rows gives them: an attempt none of whose questions count has no
score (not 0%), averages are of exact shares rounded once, percentages round half up; and the
instructor's preview draws as a learner's attempt would (excluded questions left out). Found by an
independent review of the gradebook's numbers."""

import pytest
from django.urls import reverse

from quiz.models import Assignment, Attempt, ExcludedQuestion
from quiz.teaching import gradebook, item_analysis
from tests.class_factories import NOW, make_assignment, make_classroom, make_pool, take
from tests.factories import make_question_set, make_user


def right(question):
    """The 0-based position of the question's right choice (make_question_set: question N's is N-1)."""
    return question.position - 1


def cell_of(assignment, learner):
    book = gradebook.build_gradebook(classroom=assignment.classroom, now=NOW)
    return next(cells[0] for who, cells in book.rows if who == learner)


def test_an_attempt_whose_questions_are_all_excluded_has_no_score(teacher, client):
    ann = make_user("ann")
    questions = list(make_question_set(questions=2).questions.order_by("position"))
    assignment = make_assignment(make_classroom(teacher, learners=[ann]), make_pool(teacher, questions[:1]),
                                 grading=Assignment.Grading.AVERAGE)
    take(assignment, ann, [right(questions[0])])  # 1 of 1 right
    ExcludedQuestion.objects.create(assignment=assignment, question=questions[0])

    cell = cell_of(assignment, ann)
    assert (cell.score, cell.status) == (None, "submitted")  # neither 0% nor a 0 in the average
    assert item_analysis.analyse_items(assignment=assignment)  # the attempt with no total is left out of the ranking
    client.force_login(ann)
    page = client.get(reverse("learner_assignment", args=[assignment.pk])).content.decode()
    assert "no question counts" in page and "(0%)" not in page


def test_an_average_is_of_the_exact_shares_rounded_once_half_up(teacher):
    ann = make_user("ann")
    questions = list(make_question_set(questions=3).questions.order_by("position"))
    assignment = make_assignment(make_classroom(teacher, learners=[ann]), make_pool(teacher, questions),
                                 grading=Assignment.Grading.AVERAGE, max_attempts=None)
    wrong = [(right(q) + 1) % 4 for q in questions]
    take(assignment, ann, [right(questions[0]), wrong[1], wrong[2]])  # 1/3
    take(assignment, ann, wrong)  # 0/3

    assert cell_of(assignment, ann).score == 17  # (1/3 + 0/3) / 2 = 16.67; not round(round(33.3) / 2) = 16


@pytest.mark.parametrize("right_answers, shown", [(1, 13), (5, 63), (3, 38)])
def test_a_score_rounds_half_up(teacher, right_answers, shown):
    ann = make_user("ann")
    questions = list(make_question_set(questions=8, choices=8).questions.order_by("position"))
    assignment = make_assignment(make_classroom(teacher, learners=[ann]), make_pool(teacher, questions))
    picks = [right(q) if n < right_answers else (right(q) + 1) % 8 for n, q in enumerate(questions)]
    attempt = Attempt.objects.with_exclusions().get(pk=take(assignment, ann, picks).pk)

    assert attempt.score_percent == shown
    assert cell_of(assignment, ann).score == shown


def test_the_preview_leaves_out_excluded_questions(teacher, client):
    questions = list(make_question_set(questions=3).questions.order_by("position"))
    assignment = make_assignment(make_classroom(teacher), make_pool(teacher, questions))
    questions[1].stem = "The broken one?"
    questions[1].save()
    ExcludedQuestion.objects.create(assignment=assignment, question=questions[1])
    client.force_login(teacher)

    page = client.get(reverse("preview_assignment", args=[assignment.pk])).content.decode()

    assert "The broken one?" not in page
    assert page.count('<p class="stem">') == 2
