"""Questions with several right answers, as certification exams ask them: choose N ("Choose
two."), select all that apply (all-or-nothing, or partial credit from per-choice weights as in
Moodle's multiple answer) and true/false, taken, graded, scheduled and reviewed wherever a
single-answer question is."""

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from quiz.models import Attempt, AttemptSlot, MemoryState, Question, QuestionSet, ReviewLog
from quiz.models.kinds import credit_for, kind_problem, picks_problem, weights_of
from quiz.study.answers import submit_answer
from quiz.teaching import rules
from quiz.teaching.gradebook import build_gradebook
from quiz.teaching.item_analysis import analyse_items
from tests.class_factories import NOW, make_assignment, make_classroom, make_pool
from tests.factories import make_kind_question, make_user, start_attempt
from tests.helpers import HTMX, answer_all, question_url, right_answer, right_numbers, wrong_number

Kind = Question.Kind


def choices(*rights, weights=None):
    return [
        {"text": str(n), "correct": n in rights, "weight": None if weights is None else weights[n - 1]}
        for n in range(1, 5)
    ]


# --- Grading, pure ------------------------------------------------------------------------------

@pytest.mark.parametrize(("kind", "rights", "picks", "credit"), [
    (Kind.SINGLE, (2,), [2], 1),
    (Kind.SINGLE, (2,), [1], 0),
    (Kind.CHOOSE, (1, 3), [1, 3], 1),
    (Kind.CHOOSE, (1, 3), [1, 2], 0),  # no partial credit, as on the exam
    (Kind.SELECT_ALL, (1, 3), [1, 3], 1),
    (Kind.SELECT_ALL, (1, 3), [1], 0),  # all-or-nothing unless partial credit
    (Kind.SELECT_ALL, (1, 3), [1, 3, 4], 0),
])
def test_all_or_nothing_kinds_give_full_credit_only_for_exactly_the_right_picks(kind, rights, picks, credit):
    assert credit_for(kind, choices(*rights), picks) == credit


@pytest.mark.parametrize(("picks", "credit"), [
    ([1, 3], "1"), ([1], "0.5"), ([1, 2], "0"), ([2, 4], "0"), ([1, 2, 3], "0.5"), ([1, 2, 3, 4], "0"),
])
def test_partial_credit_defaults_to_plus_and_minus_one_kth_and_never_goes_below_nothing(picks, credit):
    assert credit_for(Kind.SELECT_ALL, choices(1, 3), picks, partial_credit=True) == Decimal(credit)


def test_partial_credit_follows_the_choices_own_weights_and_thirds_add_up_to_full_credit():
    thirds = choices(1, 2, 3, weights=["0.33333", "0.33333", "0.33333", "-1"])
    assert credit_for(Kind.SELECT_ALL, thirds, [1, 2, 3], partial_credit=True) == 1
    assert credit_for(Kind.SELECT_ALL, thirds, [1, 2], partial_credit=True) == Decimal("0.6667")
    assert credit_for(Kind.SELECT_ALL, thirds, [1, 2, 3, 4], partial_credit=True) == 0


@pytest.mark.parametrize(("kind", "rows", "partial", "problem"), [
    (Kind.SINGLE, choices(1, 2), False, "exactly one right choice"),
    (Kind.CHOOSE, choices(1), False, "at least 2 right choices"),
    (Kind.CHOOSE, choices(1, 2, 3, 4), False, "at least one wrong one"),
    (Kind.SELECT_ALL, choices(), False, "at least one right choice"),
    (Kind.SINGLE, choices(1), True, "partial credit is for select-all"),
    (Kind.SELECT_ALL, choices(1, 2, weights=["0.5", "0.25", "0", "0"]), True, "less than 100%"),
    (Kind.SELECT_ALL, choices(1, weights=["1", "0.5", "0", "0"]), True, "a wrong one a zero or negative"),
    (Kind.TRUE_FALSE, choices(1), False, "True and False"),
    ("essay", choices(1), False, "unknown question kind"),
])
def test_each_kind_refuses_choices_that_do_not_fit_it(kind, rows, partial, problem):
    assert problem in kind_problem(kind, rows, partial_credit=partial)


def test_kinds_accept_the_choices_they_describe():
    assert kind_problem(Kind.CHOOSE, choices(1, 2)) is None
    assert kind_problem(Kind.SELECT_ALL, choices(1, 2, 3, 4)) is None
    assert kind_problem(Kind.TRUE_FALSE, [("True", False), ("False", True)]) is None


def test_choose_n_takes_exactly_n_picks_and_the_others_at_least_one():
    assert picks_problem(Kind.CHOOSE, choices(1, 2), [1]) == "Choose exactly two of the choices (you picked 1)."
    assert picks_problem(Kind.CHOOSE, choices(1, 2), [1, 4]) is None
    assert picks_problem(Kind.SELECT_ALL, choices(1), []) == "Pick at least one of the choices."
    assert picks_problem(Kind.SINGLE, choices(1), [1, 2]) == "Pick one of the choices."


# --- Taking one ---------------------------------------------------------------------------------

@pytest.fixture
def kinds_set(db):
    question_set = QuestionSet.objects.create(title="Kinds")
    make_kind_question(question_set, 1, Kind.CHOOSE, {0, 2})
    make_kind_question(question_set, 2, Kind.SELECT_ALL, {1, 2, 3}, partial_credit=True)
    make_kind_question(question_set, 3, Kind.TRUE_FALSE, {1})
    return question_set


def slot_of(attempt, kind):
    return attempt.slots.get(kind=kind)


def test_a_choose_two_question_says_so_and_reveals_nothing_else_before_the_answer(learner, learner_client, kinds_set):
    attempt = start_attempt(learner, kinds_set)
    slot = slot_of(attempt, Kind.CHOOSE)

    for headers in ({}, HTMX):
        html = learner_client.get(question_url(attempt, slot.position), **headers).content.decode()
        card = html[html.index('id="question-card"'):]
        assert "Choose two." in card
        assert "correct" not in card.lower() and "Explanation" not in card
        boxes = re.findall(r'<label class="choice" data-hotkey="\d+">\s*<input type="checkbox" name="choice" value="(\d+)">', card)
        assert boxes == ["1", "2", "3", "4", "5"]


def test_another_count_than_n_is_refused_with_a_message_and_records_nothing(learner, learner_client, kinds_set):
    attempt = start_attempt(learner, kinds_set)
    slot = slot_of(attempt, Kind.CHOOSE)

    response = learner_client.post(question_url(attempt, slot.position), {"choice": [str(right_numbers(slot)[0])]})

    assert response.status_code == 400
    assert "Choose exactly two of the choices (you picked 1)." in response.content.decode()
    slot.refresh_from_db()
    assert slot.answered_at is None and not ReviewLog.objects.exists()


def test_feedback_says_which_picks_were_right_which_wrong_and_which_missed(learner, learner_client, kinds_set):
    attempt = start_attempt(learner, kinds_set)
    slot = slot_of(attempt, Kind.SELECT_ALL)
    first_right, *_ = right_numbers(slot)
    picks = [first_right, wrong_number(slot)]

    html = learner_client.post(question_url(attempt, slot.position), {"choice": [str(n) for n in picks]}, **HTMX)
    html = html.content.decode()

    assert "Not quite." in html  # 1/3 - 1/2 (the default weights) is below nothing: no credit
    assert html.count('data-testid="wrong-pick"') == 1 and html.count('data-testid="missed"') == 2
    slot.refresh_from_db()
    assert (slot.chosen_numbers, slot.chosen_index, slot.credit, slot.is_correct) == (sorted(picks), None, 0, False)


def test_partial_credit_shows_its_share_and_rates_the_memory_again(learner, learner_client, kinds_set):
    attempt = start_attempt(learner, kinds_set)
    slot = slot_of(attempt, Kind.SELECT_ALL)

    html = learner_client.post(question_url(attempt, slot.position), {"choice": [str(right_numbers(slot)[0])]}).content
    html = learner_client.get(question_url(attempt, slot.position)).content.decode()

    assert "Partly right: 33% of the mark." in html
    review = ReviewLog.objects.get(user=learner)
    assert review.rating == ReviewLog.Rating.AGAIN  # less than full credit is Again
    assert review.shown["chosen"] == right_numbers(slot)[:1] and review.shown["kind"] == Kind.SELECT_ALL


def test_true_false_is_two_buttons_that_answer_when_pressed(learner, learner_client, kinds_set):
    attempt = start_attempt(learner, kinds_set)
    slot = slot_of(attempt, Kind.TRUE_FALSE)

    html = learner_client.get(question_url(attempt, slot.position)).content.decode()
    buttons = re.findall(r'<button type="submit" name="choice" value="(\d)"[^>]*>(\w+)</button>', html)
    assert buttons == [("1", "True"), ("2", "False")]  # True first, never shuffled
    assert 'type="radio"' not in html and "Submit answer" not in html

    learner_client.post(question_url(attempt, slot.position), {"choice": "2"})
    slot.refresh_from_db()
    assert (slot.chosen_index, slot.is_correct) == (2, True)


def test_a_double_submit_of_several_picks_records_once(learner, learner_client, kinds_set):
    attempt = start_attempt(learner, kinds_set)
    slot = slot_of(attempt, Kind.CHOOSE)
    data = {"choice": [str(n) for n in right_numbers(slot)]}

    learner_client.post(question_url(attempt, slot.position), data)
    learner_client.post(question_url(attempt, slot.position), {"choice": [str(wrong_number(slot)), "1"]})

    slot.refresh_from_db()
    assert slot.is_correct is True
    assert ReviewLog.objects.filter(user=learner).count() == 1


def test_a_deferred_answer_with_several_picks_can_change_until_submitted(learner, learner_client, kinds_set):
    attempt = start_attempt(learner, kinds_set, feedback=Attempt.Feedback.DEFERRED)
    slot = slot_of(attempt, Kind.CHOOSE)
    url = question_url(attempt, slot.position)

    learner_client.post(url, {"choice": [str(right_numbers(slot)[0]), str(wrong_number(slot))]})
    html = learner_client.get(url).content.decode()
    ticked = re.findall(r'value="(\d+)" checked', html)
    assert sorted(map(int, ticked)) == sorted([right_numbers(slot)[0], wrong_number(slot)])
    learner_client.post(url, {"choice": [str(n) for n in right_numbers(slot)]})

    slot.refresh_from_db()
    assert slot.chosen_numbers == right_numbers(slot) and slot.is_correct


def test_scores_add_up_partial_credit_and_the_attempt_keeps_its_points(learner, kinds_set):
    attempt = start_attempt(learner, kinds_set)
    choose, select_all, true_false = (slot_of(attempt, kind) for kind in (Kind.CHOOSE, Kind.SELECT_ALL, Kind.TRUE_FALSE))
    submit_answer(attempt=attempt, slot=choose, number=right_numbers(choose))
    submit_answer(attempt=attempt, slot=select_all, number=right_numbers(select_all)[:2])  # 2 of 3: two thirds
    submit_answer(attempt=attempt, slot=true_false, number=1)  # wrong

    attempt.refresh_from_db()
    assert attempt.is_finished
    assert (attempt.correct_count, attempt.score, attempt.counted_right) == (1, Decimal("1.6667"), Decimal("1.67"))
    assert attempt.score_percent == 56  # 1.6667 of 3


def test_the_gradebook_and_item_analysis_count_credit_and_every_option_picked(teacher, kinds_set):
    learners = [make_user(f"kinds{n}") for n in range(3)]
    classroom = make_classroom(teacher, learners=learners)
    assignment = make_assignment(classroom, make_pool(teacher, kinds_set.questions.all()), shuffle=False)

    for index, learner in enumerate(learners):
        seen = rules.get_learner_assignment(user=learner, assignment_id=assignment.pk, now=NOW)
        attempt = rules.start_attempt(user=learner, seen=seen, now=NOW)
        slot = attempt.slots.get(kind=Kind.SELECT_ALL)
        submit_answer(attempt=attempt, slot=slot, number=right_numbers(slot)[: index + 1])  # 1/3, 2/3, all
        answer_all(attempt, now=NOW)

    items = {item.question.kind: item for item in analyse_items(assignment=assignment)}
    assert items[Kind.SELECT_ALL].facility == pytest.approx((1 / 3 + 2 / 3 + 1) / 3, abs=1e-3)
    picked = {stat.text: stat.picked for stat in items[Kind.SELECT_ALL].choices}
    assert picked == {"A": 0, "B": 3, "C": 2, "D": 1, "E": 0}
    book = build_gradebook(classroom=classroom, now=NOW)
    scores = sorted(cell.score for _, cells in book.rows for cell in cells)
    assert scores == [78, 89, 100]  # (2 + 1/3) / 3, (2 + 2/3) / 3, 3 / 3


def test_the_review_queue_asks_a_choose_two_question_and_grades_the_picks(learner, learner_client, kinds_set):
    attempt = start_attempt(learner, kinds_set)
    slot = slot_of(attempt, Kind.CHOOSE)
    submit_answer(attempt=attempt, slot=slot, number=right_numbers(slot)[:1] + [wrong_number(slot)])
    MemoryState.objects.filter(user=learner).update(due=attempt.started_at)  # due now

    html = learner_client.get(reverse("review_due")).content.decode()
    assert "Choose two." in html and 'type="checkbox"' in html and "correct" not in html.lower().split("<main", 1)[1]
    question = Question.objects.get(pk=slot.question_id)
    shown = learner_client.session["shown:review"]["choices"]  # the order the page showed
    by_id = {choice.pk: choice for choice in question.choices.all()}
    rights = [str(n) for n, pk in enumerate(shown, start=1) if by_id[pk].is_correct]

    one = learner_client.post(reverse("review_due"), {"item": question.pk, "choice": rights[:1]})
    assert one.status_code == 409 and "Choose exactly two" in one.content.decode()
    learner_client.post(reverse("review_due"), {"item": question.pk, "choice": rights})

    review = ReviewLog.objects.filter(user=learner, source=ReviewLog.Source.REVIEW).get()
    assert review.rating == ReviewLog.Rating.GOOD and review.shown["chosen"] == [int(n) for n in rights]
    feedback = learner_client.get(reverse("review_answer", args=[review.pk])).content.decode()
    assert feedback.count("Your answer") == 2 and "Correct!" in feedback


def test_an_answer_must_be_picks_of_the_right_shape(learner, kinds_set):
    attempt = start_attempt(learner, kinds_set)
    true_false = slot_of(attempt, Kind.TRUE_FALSE)
    with pytest.raises(ValueError):
        attempt.record_answer(true_false, [1, 2])
    with pytest.raises(ValueError):
        attempt.record_answer(slot_of(attempt, Kind.CHOOSE), [9])
    assert not AttemptSlot.objects.filter(attempt=attempt, answered_at__isnull=False).exists()


def test_right_answer_helper_matches_grading(learner, kinds_set):
    attempt = start_attempt(learner, kinds_set)
    for slot in attempt.slots.all():
        picks = right_answer(slot)
        assert slot.credit_for(picks if isinstance(picks, list) else [picks]) == 1


# --- Formats ------------------------------------------------------------------------------------

def kinds_for_formats(*, custom_weights=True, all_or_nothing_select=True):
    """A set with every kind; optionally without what some formats cannot hold."""
    question_set = QuestionSet.objects.create(title="Every kind")
    make_kind_question(question_set, 1, Kind.SINGLE, {1})
    make_kind_question(question_set, 2, Kind.CHOOSE, {0, 3})
    make_kind_question(question_set, 3, Kind.SELECT_ALL, {0, 1}, partial_credit=True)
    make_kind_question(question_set, 4, Kind.TRUE_FALSE, {1})
    if all_or_nothing_select:
        make_kind_question(question_set, 5, Kind.SELECT_ALL, {2})
    if custom_weights:
        make_kind_question(question_set, 6, Kind.SELECT_ALL, {0, 1}, partial_credit=True,
                           weights=[Decimal("0.7"), Decimal("0.3"), Decimal("-1"), 0, Decimal("-0.25")])
    return question_set


def graded_as(kind, partial_credit, choices):
    """What grading reads of a question: its kind, partial credit, and (text, right, weight in
    effect) for each choice (a default weight written out, as GIFT must, is the same weight)."""
    rows = [{"text": text, "correct": right, "weight": weight} for text, right, weight in choices]
    weights = weights_of(rows) if partial_credit else [None] * len(rows)
    return kind, partial_credit, [(text, right, weight) for (text, right, _), weight in zip(choices, weights)]


def as_read(question):
    choices = [(c[0], c[1], c[2] if len(c) > 2 else None) for c in question.choices]
    return graded_as(question.kind, question.partial_credit, choices)


def as_saved(question):
    choices = [(c.text, c.is_correct, c.weight) for c in question.choices.all()]
    return graded_as(question.kind, question.partial_credit, choices)


@pytest.mark.parametrize(("format", "holds"), [
    ("json", {"custom_weights": True, "all_or_nothing_select": True}),
    ("gift", {"custom_weights": True, "all_or_nothing_select": False}),
    ("csv", {"custom_weights": False, "all_or_nothing_select": True}),
    ("quiz", {"custom_weights": False, "all_or_nothing_select": True}),
])
def test_each_format_writes_every_kind_it_can_hold_and_reads_it_back_as_it_is(db, format, holds):
    from quiz.content.export import export_one
    from quiz.content.reading import parse_document

    question_set = kinds_for_formats(**holds)
    exported = export_one(question_set, format)
    [document], _ = parse_document(exported.text.encode(), exported.file_name, format)

    saved = [as_saved(question) for question in question_set.questions.order_by("position")]
    assert [as_read(item) for item in document.items] == saved


@pytest.mark.parametrize(("format", "refused", "message"), [
    ("gift", {"custom_weights": False}, "select all that apply without partial credit, which GIFT cannot say"),
    ("csv", {"all_or_nothing_select": False}, "gives its choices their own weights, which CSV cannot hold"),
    ("quiz", {"all_or_nothing_select": False}, "own weights, which a quiz document cannot hold"),
    ("aiken", {}, "and Aiken holds single-answer questions only; export as GIFT or JSON"),
])
def test_a_format_that_cannot_hold_a_kind_says_so_and_which_can(db, format, refused, message):
    from quiz.content import ExportError
    from quiz.content.export import export_one

    with pytest.raises(ExportError, match=re.escape(message)):
        export_one(kinds_for_formats(**refused), format)


def test_the_quiz_document_marks_several_correct_answers_and_says_the_kind():
    from quiz.content.quiz_format import parse_quiz

    text = (
        "Kinds\n\nQuestion 1: Which two are GPUs?\n- H100 (Correct answer)\n- Xeon\n- A100 (Correct answer)\n"
        "Correct answers: H100 | A100\nBoth are NVIDIA GPUs.\n\n"
        "Question 2: CUDA is from NVIDIA.\nKind: true/false\n- True (Correct answer)\n- False\n"
        "Correct answer: True\nIt is.\n\n"
        "Question 3: Which are storage protocols?\nKind: Select all that apply, partial credit\n"
        "- NFS (Correct answer)\n- HTTP\n- S3 (Correct answer)\nCorrect answers: S3 | NFS\nBoth store.\n"
    )
    [document], warnings = parse_quiz(text.splitlines(), "kinds.txt", "x")

    assert warnings == []
    assert [(q.kind, q.partial_credit) for q in document.items] == [
        (Kind.CHOOSE, False), (Kind.TRUE_FALSE, False), (Kind.SELECT_ALL, True),
    ]
    assert document.items[0].choices == [("H100", True), ("Xeon", False), ("A100", True)]


@pytest.mark.parametrize(("text", "message"), [
    ("T\n\nQuestion 1: S?\nKind: essay\n- a (Correct answer)\n- b\nCorrect answer: a\nE.\n",
     "kinds.txt:4: question q1: 'Kind: essay' is none of: single | choose"),
    ("T\n\nQuestion 1: S?\nKind: single\n- a (Correct answer)\n- b (Correct answer)\nCorrect answers: a | b\nE.\n",
     "kinds.txt:3: question q1: a single-answer question has exactly one right choice (this one has 2)"),
    ("T\n\nQuestion 1: S?\n- a (Correct answer)\n- b (Correct answer)\n- c\nCorrect answers: a | c\nE.\n",
     "kinds.txt:7: question q1: 'Correct answer:' does not match the choices marked (Correct answer)"),
])
def test_the_quiz_document_refuses_a_kind_its_marks_do_not_fit_with_file_and_line(text, message):
    from quiz.content import ContentError
    from quiz.content.quiz_format import parse_quiz

    with pytest.raises(ContentError) as refused:
        parse_quiz(text.splitlines(), "kinds.txt", "x")
    assert str(refused.value).startswith(message)


def test_csv_reads_a_kind_column_and_answers_such_as_a_c():
    from quiz.content.tabular_format import parse_table

    text = (
        "stem,choices,answer,explanation,kind\n"
        "Which two?,H100|Xeon|A100,\"A,C\",GPUs.,\n"
        "Which apply?,NFS|HTTP|S3,\"1, 3\",Storage.,select_all_partial\n"
        "CUDA is NVIDIA's.,True|False,True,Yes.,true_false\n"
        "Bad kind?,a|b,a,x,essay\n"
    )
    from quiz.content import ContentError

    with pytest.raises(ContentError) as refused:
        parse_table(text, "kinds.csv", "x")
    assert str(refused.value) == ("kinds.csv:5: the kind 'essay' is none of: single, choose, select_all, select_all_partial, "
                                  "true_false, short_answer, short_answer_case_sensitive, numerical, matching, matching_partial")

    [document], _ = parse_table(text.rsplit("Bad kind", 1)[0], "kinds.csv", "x")
    assert [(q.kind, q.partial_credit, [c[1] for c in q.choices]) for q in document.items] == [
        (Kind.CHOOSE, False, [True, False, True]), (Kind.SELECT_ALL, True, [True, False, True]),
        (Kind.TRUE_FALSE, False, [True, False]),
    ]


def test_json_refuses_a_weight_without_partial_credit_and_an_unknown_kind():
    from quiz.content import ContentError
    from quiz.content.json_format import parse_export

    def refused(question):
        text = '{"question_sets": [{"title": "T", "source": null, "questions": [' + question + "]}]}"
        with pytest.raises(ContentError) as error:
            parse_export(text, "k.json")
        return str(error.value)

    choices = '"explanation": "", "choices": [{"text": "a", "correct": true, "weight": 100}, {"text": "b", "correct": false}]'
    assert "only a question with \"partial_credit\": true reads" in refused('{"key": "q1", "stem": "S", ' + choices + "}")
    assert '"kind" must be one of' in refused('{"key": "q1", "stem": "S", "kind": "essay", ' + choices + "}")


# --- The editor ---------------------------------------------------------------------------------

def test_the_editor_creates_a_choose_two_question_and_a_partial_credit_one_with_weights(learner, learner_client):
    own = QuestionSet.objects.create(title="Mine", owner=learner)
    url = reverse("new_question", args=[own.pk])
    base = {"stem": "Which two?", "explanation": "", "topics": "", "op": "save",
            "choice_1": "H100", "choice_2": "Xeon", "choice_3": "A100"}

    assert learner_client.post(url, {**base, "kind": "choose", "correct": ["1", "3"]}).status_code == 302
    refused = learner_client.post(url, {**base, "kind": "single", "correct": ["1", "3"]})
    assert refused.status_code == 400 and "Mark one correct choice" in refused.content.decode()
    weights = {"weight_1": "70", "weight_2": "-100", "weight_3": "30", "partial_credit": "on"}
    assert learner_client.post(url, {**base, "stem": "Which apply?", "kind": "select_all", "correct": ["1", "3"], **weights}).status_code == 302

    choose, select_all = own.questions.order_by("position")
    assert (choose.kind, [c.is_correct for c in choose.choices.all()]) == (Kind.CHOOSE, [True, False, True])
    assert (select_all.kind, select_all.partial_credit) == (Kind.SELECT_ALL, True)
    assert [c.weight for c in select_all.choices.all()] == [Decimal("0.7"), Decimal(-1), Decimal("0.3")]
    form = learner_client.get(reverse("edit_question", args=[select_all.pk])).content.decode()
    assert 'type="checkbox" name="correct"' in form and 'name="weight_1"' in form and 'value="70"' in form


def test_choosing_true_false_in_the_editor_gives_the_true_and_false_choices(learner, learner_client):
    own = QuestionSet.objects.create(title="Mine", owner=learner)
    url = reverse("new_question", args=[own.pk])

    html = learner_client.post(url, {"stem": "S?", "kind": "true_false", "op": "kind", "choice_1": "", "choice_2": "", "choice_3": ""}).content.decode()

    assert [text.strip() for text in re.findall(r'name="choice_\d"[^>]*>([^<]*)</textarea>', html)] == ["True", "False"]
    assert learner_client.post(url, {"stem": "S?", "kind": "true_false", "op": "save", "explanation": "", "topics": "",
                                     "choice_1": "True", "choice_2": "False", "correct": "2"}).status_code == 302
    assert own.questions.get().kind == Kind.TRUE_FALSE


# --- Held-back feedback, the mock exam ----------------------------------------------------------

def test_an_assignment_that_shows_answers_after_its_due_date_holds_back_every_kind(learner, teacher, kinds_set):
    from tests.helpers import logged_in

    now = timezone.now()
    classroom = make_classroom(teacher, learners=[learner])
    pool = make_pool(teacher, kinds_set.questions.all())
    assignment = make_assignment(
        classroom, pool, feedback_timing="after_due", opens_at=now - timedelta(days=1), due_at=now + timedelta(days=1)
    )
    seen = rules.get_learner_assignment(user=learner, assignment_id=assignment.pk, now=now)
    attempt = rules.start_attempt(user=learner, seen=seen, now=now)
    client = logged_in(learner)

    for slot in attempt.slots.order_by("position"):
        answer = right_answer(slot)
        data = {"choice": [str(n) for n in answer] if isinstance(answer, list) else str(answer)}
        response = client.post(question_url(attempt, slot.position), data, follow=True)
        html = response.content.decode().split("<main", 1)[1]  # the next question, or the summary
        assert response.status_code == 200 and "saved" in html
        assert "correct" not in html.lower() and "Missed" not in html and "Partly" not in html
        assert "Explanation" not in html
    client.post(reverse("attempt_submit", args=[attempt.pk]))
    results = client.get(reverse("attempt_results", args=[attempt.pk])).content.decode().split("<main", 1)[1]
    assert "Missed" not in results and "Wrong pick" not in results and "Correct answer" not in results

    assert not ReviewLog.objects.exists()  # nothing rated before the learner may see it


def test_the_mock_exam_draws_every_kind_and_says_choose_two_as_the_exam_does(db):
    from quiz.study.mock_exam import Choices, start_mock_exam
    from tests.helpers import logged_in

    question_set = QuestionSet.objects.create(title="Bank")
    for number, kind, rights in ((1, Kind.CHOOSE, {0, 1}), (2, Kind.SELECT_ALL, {2}), (3, Kind.TRUE_FALSE, {1}), (4, Kind.SINGLE, {0})):
        make_kind_question(question_set, number, kind, rights)
    learner = make_user("mock")

    attempt, _ = start_mock_exam(user=learner, choices=Choices(4, 30, 70), now=timezone.now())

    assert sorted(attempt.slots.values_list("kind", flat=True)) == sorted([Kind.CHOOSE, Kind.SELECT_ALL, Kind.TRUE_FALSE, Kind.SINGLE])
    choose = attempt.slots.get(kind=Kind.CHOOSE)
    html = logged_in(learner).get(question_url(attempt, choose.position)).content.decode()
    assert "Choose two." in html and "correct" not in html.split('id="question-card"', 1)[1].lower()


# --- After the attempt: review, retakes, exclusions ---------------------------------------------

def test_the_results_page_reviews_several_picks_and_retake_my_mistakes_takes_partly_right_ones(learner, learner_client, kinds_set):
    attempt = start_attempt(learner, kinds_set)
    choose, select_all, true_false = (slot_of(attempt, kind) for kind in (Kind.CHOOSE, Kind.SELECT_ALL, Kind.TRUE_FALSE))
    submit_answer(attempt=attempt, slot=choose, number=right_numbers(choose))
    submit_answer(attempt=attempt, slot=select_all, number=right_numbers(select_all)[:2])  # partly right
    submit_answer(attempt=attempt, slot=true_false, number=2)  # right

    results = learner_client.get(reverse("attempt_results", args=[attempt.pk])).content.decode()
    assert "Partly right: 67% of the mark." in results and results.count('data-testid="missed"') == 1
    assert "Choose two." in results and "Select all that apply." in results

    learner_client.post(reverse("retake_mistakes"))
    retake = Attempt.objects.get(user=learner, purpose="mistakes")
    assert list(retake.slots.values_list("question_id", flat=True)) == [select_all.question_id]


def test_excluding_a_partly_right_question_recomputes_the_score_without_its_credit(learner, teacher, kinds_set):
    now = timezone.now()
    classroom = make_classroom(teacher, learners=[learner])
    assignment = make_assignment(
        classroom, make_pool(teacher, kinds_set.questions.all()), opens_at=now - timedelta(days=1), due_at=now + timedelta(days=1)
    )
    attempt = rules.start_attempt(user=learner, seen=rules.get_learner_assignment(user=learner, assignment_id=assignment.pk, now=now), now=now)
    select_all = slot_of(attempt, Kind.SELECT_ALL)
    submit_answer(attempt=attempt, slot=select_all, number=right_numbers(select_all)[:1])  # a third
    answer_all(attempt)
    assert Attempt.objects.with_exclusions().get(pk=attempt.pk).score_percent == 78  # (2 + 1/3) / 3

    assignment.exclude_question(select_all.question, by=teacher)

    attempt = Attempt.objects.with_exclusions().get(pk=attempt.pk)
    assert (attempt.counted_right, attempt.counted_questions, attempt.score_percent) == (2, 2, 100)
    book = build_gradebook(classroom=classroom, now=now)
    assert [cell.score for _, cells in book.rows for cell in cells] == [100]


# --- What an independent review found -----------------------------------------------------------

@pytest.mark.parametrize("operation", ["add", "kind", "up-2", "remove-3"])
def test_editor_row_actions_keep_typed_weights_as_typed_and_garbage_is_a_message_not_a_500(learner, learner_client, operation):
    own = QuestionSet.objects.create(title="Mine", owner=learner)
    url = reverse("new_question", args=[own.pk])
    data = {"stem": "S?", "kind": "select_all", "partial_credit": "on", "correct": ["1"], "explanation": "", "topics": "",
            "choice_1": "a", "choice_2": "b", "choice_3": "c", "weight_1": "50", "weight_2": "-50", "weight_3": "abc"}

    html = learner_client.post(url, {**data, "op": operation}).content.decode()
    assert 'value="50"' in html and 'value="-50"' in html and "5000" not in html

    saved = learner_client.post(url, {**data, "op": "save"})
    assert saved.status_code == 400 and "Enter a number." in saved.content.decode()
    assert not own.questions.exists()


def test_the_review_queue_keeps_true_before_false(learner, learner_client, kinds_set):
    attempt = start_attempt(learner, kinds_set)
    true_false = slot_of(attempt, Kind.TRUE_FALSE)
    submit_answer(attempt=attempt, slot=true_false, number=1)  # wrong: due again soon
    MemoryState.objects.filter(user=learner).update(due=attempt.started_at)

    for _ in range(5):  # a shuffle would put False first about half the time
        html = learner_client.get(reverse("review_due")).content.decode()
        assert re.findall(r'name="choice" value="(\d)"[^>]*>(\w+)</button>', html) == [("1", "True"), ("2", "False")]
        session = learner_client.session  # forget the question shown, so the next visit draws it afresh
        session.pop("shown:review", None)
        session.save()


def test_the_history_download_names_several_picks_of_a_review(learner, learner_client, kinds_set):
    attempt = start_attempt(learner, kinds_set)
    choose = slot_of(attempt, Kind.CHOOSE)
    submit_answer(attempt=attempt, slot=choose, number=right_numbers(choose))
    MemoryState.objects.filter(user=learner).update(due=attempt.started_at)
    learner_client.get(reverse("review_due"))
    shown = learner_client.session["shown:review"]["choices"]
    rights = [str(n) for n, pk in enumerate(shown, start=1) if pk in {c.pk for c in Question.objects.get(pk=choose.question_id).right_choices}]
    learner_client.post(reverse("review_due"), {"item": choose.question_id, "choice": rights})

    text = b"".join(learner_client.get(reverse("download_history")).streaming_content).decode()
    review_row = next(line for line in text.splitlines() if line.startswith("review,"))
    assert f'"{",".join(rights)}",yes' in review_row


def test_the_mock_exams_comparison_counts_partial_credit_as_the_score_does(db):
    from quiz.models import MockExam
    from quiz.study.mock_exam import Choices, start_mock_exam

    question_set = QuestionSet.objects.create(title="Bank")
    make_kind_question(question_set, 1, Kind.SELECT_ALL, {0, 1}, partial_credit=True)
    make_kind_question(question_set, 2, Kind.SINGLE, {0})
    learner = make_user("mocker")
    attempt, _ = start_mock_exam(user=learner, choices=Choices(2, 30, 70), now=timezone.now())
    select_all, single = attempt.slots.get(kind=Kind.SELECT_ALL), attempt.slots.get(kind=Kind.SINGLE)
    submit_answer(attempt=attempt, slot=select_all, number=right_numbers(select_all)[:1])  # half
    submit_answer(attempt=attempt, slot=single, number=right_answer(single))
    from quiz.study.catch_up import finish_and_release

    finish_and_release(attempt)
    attempt.refresh_from_db()
    whole = MockExam.objects.get(attempt=attempt).compare(list(attempt.slots.all()))[-1]
    assert whole["actual"] == attempt.score_percent == 75
