"""The gradebook, CSV exports and item analysis, against hand-computed values, with a fixed
number of queries for a class of 5 or 500."""

import csv
import io
import re
from datetime import timedelta
from statistics import mean

import pytest
from django.urls import reverse

from quiz.models import Attempt, AttemptSlot, Enrollment, MemoryState, User
from quiz.study import scheduling
from quiz.teaching import gradebook, item_analysis, rules
from tests.class_factories import NOW, make_assignment, make_classroom, make_pool, take
from tests.factories import make_question_set, make_user
from tests.helpers import AUTH, count_queries

# --- Item analysis ----------------------------------------------------------------------------------

@pytest.fixture
def analysed(teacher):
    """Five learners, three questions (right answers at positions 0, 1, 2):

        a: R R W(x)   b: R R W(x)   c: W(y) W R   d: W(y) W R   e: W(y) W W(x)
    """
    names = "abcde"
    learners = [make_user(f"learner_{n}") for n in names]
    classroom = make_classroom(teacher, learners=learners)
    assignment = make_assignment(classroom, make_pool(teacher, make_question_set(questions=3).questions.all()))
    picks = {"a": (0, 1, 3), "b": (0, 1, 3), "c": (3, 0, 2), "d": (3, 0, 2), "e": (3, 0, 3)}
    for learner, name in zip(learners, names):
        take(assignment, learner, picks[name])
    return assignment


def test_facility_and_discrimination_match_hand_computed_values(analysed):
    q1, q2, q3 = item_analysis.analyse_items(assignment=analysed)

    # Facility: two of five right on every question.
    assert [q.facility for q in (q1, q2, q3)] == [0.4, 0.4, 0.4]
    # Groups of 27% of 5 = 1.35 learners: upper a and b (tied at 2/3) at 0.675 each; lower e
    # (0) whole, then c and d (tied at 1/3) sharing the 0.35 left, 0.175 each.
    assert q1.discrimination == 1.0  # upper 1.35/1.35, lower 0/1.35
    assert q2.discrimination == 1.0
    assert q3.discrimination == -0.26  # upper 0, lower 0.35/1.35 (c and d right, e wrong)
    # Five learners are too few to flag a question, however negative.
    assert not any(q.looks_broken for q in (q1, q2, q3))


def test_the_distractor_table_flags_a_distractor_picked_more_than_the_answer(analysed):
    q1, _, q3 = item_analysis.analyse_items(assignment=analysed)

    assert [c.picked for c in q1.choices] == [2, 0, 0, 3]
    assert [c.beats_correct for c in q1.choices] == [False, False, False, True]
    assert [c.picked for c in q3.choices] == [0, 0, 2, 3]
    assert q1.choices[3].share == 0.6


def test_median_time_per_question(analysed):
    q1, _, _ = item_analysis.analyse_items(assignment=analysed)

    assert q1.median_seconds == 10


def test_only_each_learners_first_attempt_is_analysed(analysed):
    learner = User.objects.get(username="learner_e")
    take(analysed, learner, (0, 1, 2), start=NOW + timedelta(hours=1))

    q1, _, _ = item_analysis.analyse_items(assignment=analysed)

    assert q1.answered == 5 and q1.facility == 0.4


def test_predicted_recall_per_learner_is_a_week_ahead_over_learnt_questions(analysed):
    now = NOW + timedelta(days=3)
    memories = MemoryState.objects.filter(user__username="learner_a", kind="question").order_by("pk")
    # Two of learner_a's three questions past their learning steps; the third still learning.
    MemoryState.objects.filter(pk__in=[m.pk for m in memories[:2]]).update(phase=MemoryState.Phase.REVIEW)
    MemoryState.objects.filter(pk=memories[2].pk).update(phase=MemoryState.Phase.RELEARNING)

    rows = {row.learner.username: row for row in item_analysis.recall_by_learner(assignment=analysed, now=now)}

    learnt = MemoryState.objects.filter(user__username="learner_a", kind="question", phase=MemoryState.Phase.REVIEW)
    expected = mean(scheduling.retrievability(m, now + timedelta(days=7)) for m in learnt)
    assert rows["learner_a"].recall == pytest.approx(expected)
    assert rows["learner_a"].recall < 1
    assert (rows["learner_a"].items, rows["learner_a"].learning) == (3, 1)
    ordered = [row.recall for row in item_analysis.recall_by_learner(assignment=analysed, now=now)]
    figures = [recall for recall in ordered if recall is not None]
    assert figures == sorted(figures)


def test_a_learner_with_personal_parameters_is_predicted_with_their_own_curve(analysed):
    now = NOW + timedelta(days=3)
    learner = User.objects.get(username="learner_a")
    personal_parameters = list(scheduling.DEFAULT_PARAMETERS)
    personal_parameters[20] = 0.5  # a much steeper forgetting curve than the default's decay
    User.objects.filter(pk=learner.pk).update(fsrs_parameters=personal_parameters)
    MemoryState.objects.filter(user=learner, kind="question").update(phase=MemoryState.Phase.REVIEW)
    learner.refresh_from_db()

    rows = {row.learner.username: row for row in item_analysis.recall_by_learner(assignment=analysed, now=now)}

    own = scheduling.scheduler_for(learner)
    memories = MemoryState.objects.filter(user=learner, kind="question")
    expected = mean(scheduling.retrievability(m, now + timedelta(days=7), own) for m in memories)
    default = mean(scheduling.retrievability(m, now + timedelta(days=7)) for m in memories)
    assert rows["learner_a"].recall == pytest.approx(expected)
    assert abs(expected - default) > 0.005  # the two curves differ here: the test could fail


def test_a_learner_with_every_question_wrong_shows_learning_not_full_recall(teacher_client, analysed):
    # Answered, all in their learning steps: FSRS's recall "today" would be 100% for every one.
    learner = MemoryState.objects.filter(kind="question").values_list("user__username", flat=True).first()
    MemoryState.objects.filter(user__username=learner).update(phase=MemoryState.Phase.LEARNING)

    html = teacher_client.get(reverse("item_analysis", args=[analysed.pk])).content.decode()

    row = re.search(rf"<td>{learner}</td><td data-testid=\"learner-recall\">([^<]*)</td>", html)
    assert row and row.group(1) == "learning"
    assert "Recall in 7 days" in html and "100%" not in row.group(0)


def test_the_item_analysis_page_shows_the_figures(teacher_client, analysed):
    html = teacher_client.get(reverse("item_analysis", args=[analysed.pk])).content.decode()

    assert html.count('data-testid="facility">40%<') == 3
    assert 'data-testid="point-biserial"' in html and "Discrimination" in html
    assert "Picked more than the answer" in html
    assert "learner_a" in html


# --- Gradebook -----------------------------------------------------------------------------------------

@pytest.fixture
def graded(teacher):
    ann, ben, cat = (make_user(name) for name in ("ann", "ben", "cat"))
    classroom = make_classroom(teacher, learners=[ann, ben, cat])
    assignment = make_assignment(classroom, make_pool(teacher, make_question_set(questions=3).questions.all()))
    take(assignment, ann, (3, 3, 3))            # 0%
    take(assignment, ann, (0, 1, 2), start=NOW + timedelta(hours=1))  # 100%
    take(assignment, ben, (0, 1, 3))            # 67%
    return classroom, assignment


def test_the_gradebook_counts_the_best_attempt_with_class_statistics(graded):
    classroom, assignment = graded

    book = gradebook.build_gradebook(classroom=classroom, now=NOW + timedelta(days=2))

    cells = {learner.username: cells[0] for learner, cells in book.rows}
    assert (cells["ann"].score, cells["ben"].score, cells["cat"].score) == (100, 67, None)
    assert (cells["ann"].status, cells["cat"].status) == ("submitted", "missed")
    column = book.columns[0]
    assert (column.average, column.median, column.completion) == (83.5, 83.5, 67)


def test_the_grading_rule_changes_the_counted_score(graded):
    classroom, assignment = graded
    assignment.grading = "first"
    assignment.save()

    book = gradebook.build_gradebook(classroom=classroom, now=NOW)

    assert book.rows[0][1][0].score == 0  # ann's first attempt


def test_the_gradebook_sorts_by_an_assignments_score(teacher_client, graded):
    classroom, assignment = graded

    html = teacher_client.get(reverse("gradebook", args=[classroom.pk]), {"sort": str(assignment.pk)}).content.decode()

    assert html.index(">ann<") < html.index(">ben<") < html.index(">cat<")
    html = teacher_client.get(reverse("gradebook", args=[classroom.pk]), {"sort": f"-{assignment.pk}"}).content.decode()
    assert html.index(">ben<") < html.index(">ann<")


def test_a_cell_opens_the_learners_attempts_and_their_review(teacher_client, graded):
    classroom, assignment = graded
    ann = User.objects.get(username="ann")

    html = teacher_client.get(reverse("learner_attempts", args=[assignment.pk, ann.pk])).content.decode()
    attempt = ann.attempts.order_by("started_at").last()
    review = teacher_client.get(reverse("instructor_attempt_review", args=[attempt.pk])).content.decode()

    assert html.count("/teach/attempts/") == 2
    assert "3 of 3 (100%)" in review and "Correct answer" in review


def test_the_gradebook_csv(teacher_client, graded):
    classroom, assignment = graded

    response = teacher_client.get(reverse("gradebook_csv", args=[classroom.pk]))

    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0][0] == "learner"
    assert ["ann", "100"] == rows[1][:2] and ["ben", "67"] == rows[2][:2] and ["cat", ""] == rows[3][:2]


def test_the_responses_csv_has_every_answer(teacher_client, graded):
    classroom, _ = graded

    response = teacher_client.get(reverse("responses_csv", args=[classroom.pk]))

    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == 9
    assert set(rows[0]) == {"assignment", "learner", "attempt", "question", "choice chosen", "correct",
                            "seconds spent", "submitted at", "excluded"}
    assert sum(row["correct"] == "yes" for row in rows) == 5


# --- Query counts: a class of 5 or 500 ----------------------------------------------------------------------

def big_class(teacher, size):
    learners = User.objects.bulk_create(User(username=f"bulk{size}_{n}") for n in range(size))
    classroom = make_classroom(teacher, name=f"Class of {size}")
    Enrollment.objects.bulk_create(Enrollment(classroom=classroom, learner=learner) for learner in learners)
    assignment = make_assignment(classroom, make_pool(teacher, make_question_set(questions=3).questions.all()))
    make_assignment(classroom, assignment.pool, title="Second")
    questions = list(assignment.pool.questions_for_attempt())
    attempts = Attempt.objects.bulk_create(
        Attempt(user=learner, assignment=assignment, started_at=NOW, finished_at=NOW, question_count=3,
                correct_count=n % 4, score=n % 4)
        for n, learner in enumerate(learners)
    )
    AttemptSlot.objects.bulk_create(
        AttemptSlot(attempt=attempt, question=q, position=p, stem=q.stem, shown_choices=[],
                        chosen_index=1, is_correct=(p + n) % 2 == 0, credit=int((p + n) % 2 == 0), answered_at=NOW, seconds_spent=5 + p)
        for n, attempt in enumerate(attempts) for p, q in enumerate(questions, start=1)
    )
    return classroom, assignment


def test_gradebook_queries_are_fixed(teacher_client, teacher, django_assert_num_queries):
    small, _ = big_class(teacher, 5)
    large, _ = big_class(teacher, 500)

    assert count_queries(teacher_client, reverse("gradebook", args=[small.pk]), ok=(200,)) == count_queries(
        teacher_client, reverse("gradebook", args=[large.pk]), ok=(200,)
    )
    # classroom; close expired attempts; roster; assignments; overrides; attempts; the roster of
    # the class's LMS course (quiz.lti.roster: learners not launched yet; one query, run for
    # every class, found empty for one that is no LMS course's: tests/test_lti_roster.py)
    with django_assert_num_queries(AUTH + 7):
        teacher_client.get(reverse("gradebook", args=[large.pk]))


def test_item_analysis_queries_are_fixed(teacher_client, teacher, django_assert_num_queries):
    _, small = big_class(teacher, 5)
    _, large = big_class(teacher, 500)

    assert count_queries(teacher_client, reverse("item_analysis", args=[small.pk]), ok=(200,)) == count_queries(
        teacher_client, reverse("item_analysis", args=[large.pk]), ok=(200,)
    )
    # assignment; close expired attempts; first attempts; questions; choices; facility; picks;
    # times; upper/lower groups; roster; recall aggregate
    with django_assert_num_queries(AUTH + 11):
        teacher_client.get(reverse("item_analysis", args=[large.pk]))


def test_csv_cells_that_look_like_formulas_are_neutralised(teacher_client, teacher):
    learner = make_user("=HYPERLINK(evil)")
    classroom = make_classroom(teacher, learners=[learner])
    question_set = make_question_set(questions=1)
    question = question_set.questions.get()
    question.stem = "+SUM(A1:A9) is the question"
    question.save()
    assignment = make_assignment(classroom, make_pool(teacher, [question]))
    take(assignment, learner, (0,))

    gradebook = b"".join(teacher_client.get(reverse("gradebook_csv", args=[classroom.pk])).streaming_content).decode()
    responses = b"".join(teacher_client.get(reverse("responses_csv", args=[classroom.pk])).streaming_content).decode()

    assert "'=HYPERLINK(evil)" in gradebook
    rows = list(csv.DictReader(io.StringIO(responses)))
    assert rows[0]["learner"] == "'=HYPERLINK(evil)"
    assert rows[0]["question"] == "'+SUM(A1:A9) is the question"


def test_a_late_attempt_that_counts_is_marked_late(teacher):
    ann = make_user("late_ann")
    classroom = make_classroom(teacher, learners=[ann])
    assignment = make_assignment(classroom, make_pool(teacher, make_question_set(questions=3).questions.all()))
    take(assignment, ann, (3, 3, 3))  # on time, 0%
    late = take(assignment, ann, (0, 1, 2), start=assignment.due_at + timedelta(hours=1))  # late, 100%

    cell = gradebook.build_gradebook(classroom=classroom, now=assignment.due_at + timedelta(days=1)).rows[0][1][0]

    assert late.is_late
    assert (cell.score, cell.status, cell.late) == (100, "late", True)


def test_a_learner_retrying_after_a_submission_counts_as_complete(teacher):
    ann = make_user("retry_ann")
    classroom = make_classroom(teacher, learners=[ann])
    assignment = make_assignment(classroom, make_pool(teacher, make_question_set(questions=2).questions.all()))
    take(assignment, ann, (0, 0))
    Attempt.objects.create_with_slots(user=ann, questions=assignment.pool.questions_for_attempt(),
                                      feedback="immediate", rng=rules.KeepOrder(), assignment=assignment)

    book = gradebook.build_gradebook(classroom=classroom, now=NOW)

    assert book.columns[0].completion == 100


def test_item_analysis_keeps_a_question_removed_from_the_set_after_learners_answered_it(analysed):
    analysed.pool.entries.order_by("position").first().delete()

    items = item_analysis.analyse_items(assignment=analysed)

    assert len(items) == 3
    assert items[-1].answered == 5  # the removed question, listed last


def test_removing_a_learner_submits_their_attempt_in_progress(teacher_client, teacher):
    ann = make_user("removed_ann")
    classroom = make_classroom(teacher, learners=[ann])
    assignment = make_assignment(classroom)
    attempt = Attempt.objects.create_with_slots(user=ann, questions=assignment.pool.questions_for_attempt(),
                                                feedback="immediate", rng=rules.KeepOrder(), assignment=assignment)

    teacher_client.post(reverse("remove_learner", args=[classroom.pk, ann.pk]))

    attempt.refresh_from_db()
    assert attempt.is_finished
