"""Typed answers: short answer (text, Moodle's `*` wildcard, letter case ignored unless the
question says otherwise) and numerical (a value with a tolerance, or a range), graded, taken,
reviewed and read from Moodle's own GIFT test cases. Matching is still to come (issue 36)."""

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from quiz.content import ContentError, parse_document
from quiz.editor.changes import duplicate_set
from quiz.models import Attempt, Choice, MemoryState, Question, QuestionSet, ReviewLog
from quiz.models.kinds import parse_number, text_matches, typed_credit
from tests.factories import make_matching_question, start_attempt
from tests.helpers import HTMX, question_url

Kind = Question.Kind


# --- Grading, pure ------------------------------------------------------------------------------

@pytest.mark.parametrize(("accepted", "typed", "case_sensitive", "matches"), [
    ("NVLink", "  nvlink ", False, True),
    ("NVLink", "nvlink", True, False),
    ("Network   layer", "network layer", False, True),
    ("NV*", "nvswitch", False, True),
    ("*link", "NVLink", False, True),
    ("N*k", "Nk", False, True),
    ("a.b", "axb", False, False),  # only * is special
    ("NVLink", "NVLink 4", False, False),
])
def test_a_typed_text_matches_as_moodle_compares_it(accepted, typed, case_sensitive, matches):
    assert text_matches(accepted, typed, case_sensitive) is matches


@pytest.mark.parametrize(("typed", "number"), [
    ("42", Decimal(42)), (" 3.14 ", Decimal("3.14")), ("3,14", Decimal("3.14")), ("+5", Decimal(5)),
    ("-0.5", Decimal("-0.5")), (".5", Decimal("0.5")), ("1 000", Decimal(1000)),
    ("1e3", None), ("nan", None), ("Infinity", None), ("1,000.5", None), ("", None), ("two", None),
])
def test_a_typed_number_is_read_plainly_or_not_at_all(typed, number):
    assert parse_number(typed) == number


def test_the_best_matching_accepted_answer_gives_the_credit():
    values = [
        {"id": 1, "text": "2000", "weight": None, "tolerance": "0"},
        {"id": 2, "text": "1990", "weight": "0.5", "tolerance": "10"},
    ]
    assert typed_credit(Kind.NUMERICAL, values, "2000") == (1, 1)
    assert typed_credit(Kind.NUMERICAL, values, "1985") == (Decimal("0.5"), 2)
    assert typed_credit(Kind.NUMERICAL, values, "1979") == (0, None)
    words = [{"id": 1, "text": "Frog", "weight": None}, {"id": 2, "text": "Cat", "weight": "0.5"}, {"id": 3, "text": "*", "weight": "0"}]
    assert typed_credit(Kind.SHORT_ANSWER, words, "frog") == (1, 1)
    assert typed_credit(Kind.SHORT_ANSWER, words, "cat") == (Decimal("0.5"), 2)
    assert typed_credit(Kind.SHORT_ANSWER, words, "dog") == (0, 3)  # the wildcard matched, for nothing


# --- Moodle's GIFT test cases (question/format/gift/tests/fixtures/questions.gift.txt) ---------

MOODLE_GIFT = """// essay
::Q8:: How are you? {}

// multiple choice with specified feedback for right and wrong answers
::Q2:: What's between orange and green in the spectrum?
{
    =yellow # right; good!
    ~red # [html]wrong, it's yellow
    ~[plain]blue # wrong, it's yellow
}

// multiple choice, multiple response with specified feedback for right and wrong answers
::colours:: What's between orange and green in the spectrum?
{
    ~%50%yellow # right; good!
    ~%-100%red # [html]wrong
    ~%50%off-beige # right; good!
    ~%-100%[plain]blue # wrong
}

// math range question
::Q5:: What is a number from 1 to 5? {#3:2~#Completely wrong}

// question: 666  name: Shortanswer
::Shortanswer::Which is the best animal?{
    =Frog#Good!
    =%50%Cat#What is it with Moodlers and cats?
    =%0%*#Completely wrong
}

// true/false, with general feedback
::Q1:: 42 is the Absolute Answer to everything.{
FALSE#42 is the Ultimate Answer.#You gave the right answer.
####This is, of course, a Hitchiker's Guide to the Galaxy reference.}

::2-08 TSL::TSL is blablabla.{T}

::Ranges:: A GPU count from 4 to 8? {#4..8}

::Several values:: The year? {#=2000:0 =%50%1990:10 #close}
"""


def test_moodles_gift_cases_import_with_their_kinds_answers_and_weights():
    [document], warnings = parse_document(MOODLE_GIFT.encode(), "questions.gift.txt", "gift")

    assert warnings == ["questions.gift.txt:2: skipped: essay questions are not supported"]
    found = [(q.kind, q.partial_credit, q.choices) for q in document.items]
    assert found == [
        (Kind.SINGLE, False, [("yellow", True), ("red", False), ("blue", False)]),
        (Kind.SELECT_ALL, True, [("yellow", True, Decimal("0.5")), ("red", False, Decimal(-1)),
                                 ("off-beige", True, Decimal("0.5")), ("blue", False, Decimal(-1))]),
        (Kind.NUMERICAL, False, [("3", True, None, Decimal(2))]),
        (Kind.SHORT_ANSWER, False, [("Frog", True), ("Cat", False, Decimal("0.5")), ("*", False, Decimal(0))]),
        (Kind.TRUE_FALSE, False, [("True", False), ("False", True)]),
        (Kind.TRUE_FALSE, False, [("True", True), ("False", False)]),
        (Kind.NUMERICAL, False, [("6", True, None, Decimal(2))]),
        (Kind.NUMERICAL, False, [("2000", True, None, Decimal(0)), ("1990", False, Decimal("0.5"), Decimal(10))]),
    ]
    assert document.items[3].explanation == "Good!"  # the full-credit answer's feedback
    assert document.items[4].explanation == "This is, of course, a Hitchiker's Guide to the Galaxy reference."


@pytest.mark.parametrize(("text", "message"), [
    ("N?{#three}\n", "quiz.gift:1: 'three' is not a number, a number:tolerance or a range min..max"),
    ("N?{#=1:1 =%50%x}\n", "quiz.gift:1: 'x' is not a number"),
    ("S?{=%50%half}\n", "quiz.gift:1: the question: no accepted answer gives full credit (100%)"),
])
def test_a_typed_answer_a_file_gets_wrong_is_refused_with_its_line(text, message):
    with pytest.raises(ContentError) as refused:
        parse_document(text.encode(), "quiz.gift", "gift")
    assert str(refused.value).startswith(message)


@pytest.mark.django_db
@pytest.mark.parametrize("format", ["json", "gift", "csv"])
def test_typed_questions_are_written_and_read_back_as_they_are(tmp_path, format):
    from quiz.content import import_documents
    from quiz.content.export import export_one

    path = tmp_path / "moodle.gift"
    path.write_text(MOODLE_GIFT, encoding="utf-8")
    import_documents([path])
    [document], _ = parse_document(MOODLE_GIFT.encode(), "moodle.gift", "gift")
    if format == "csv":  # whose choices' own weights (Moodle's multiple answer) it cannot hold
        Question.objects.exclude(kind__in=[Kind.NUMERICAL, Kind.SHORT_ANSWER]).delete()
    exported = export_one(QuestionSet.objects.get(), format)
    [again], _ = parse_document(exported.text.encode(), exported.file_name, format)

    def typed(items):
        """Each typed question's accepted answers as grading reads them (a tolerance of 0 written or not)."""
        def answer(text, right, weight=None, tolerance=None):
            return text, right, weight, tolerance or 0

        return [(q.kind, [answer(*c) for c in q.choices]) for q in items if q.kind in (Kind.NUMERICAL, Kind.SHORT_ANSWER)]

    assert typed(again.items) == typed(document.items)


QUIZ_DOCUMENT = """Typed things
Question 1: Which link joins GPUs inside one server?
Kind: short answer
- NVLink (Correct answer)
- NV* (50%)
Correct answer: NVLink
NVLink is NVIDIA's GPU-to-GPU link.
Topics: Interconnects

Question 2: Pi to two places?
Kind: number
- 3.14 ± 0.005 (Correct answer)
- 3 +- 0.5 (25%)
- 1..2 (10%)
Correct answer: 3.14 ± 0.005
Pi is 3.14159...

Question 3: Match each protocol to its layer.
Kind: matching, partial credit
- TCP -> Transport
- IP -> Network
- -> Physical
TCP is transport, IP network.

Question 4: Which command lists the GPUs?
Kind: short answer, case sensitive
- nvidia-smi (Correct answer)
Correct answer: nvidia-smi
It ships with the driver.
"""

TYPED_CSV = (
    "stem,answer,explanation,kind\n"
    "Which link joins GPUs inside one server?,NVLink|NV* (50%),NVLink is NVIDIA's GPU-to-GPU link.,short_answer\n"
    "Pi to two places?,3.14 ± 0.005|3 +- 0.5 (25%)|1..2 (10%),Pi is 3.14159...,numerical\n"
    "Match each protocol to its layer.,TCP -> Transport|IP -> Network|-> Physical,\"TCP is transport, IP network.\",matching_partial\n"
    "Which command lists the GPUs?,nvidia-smi,It ships with the driver.,short_answer_case_sensitive\n"
)


@pytest.mark.parametrize(("text", "file"), [(QUIZ_DOCUMENT, "typed.txt"), (TYPED_CSV, "typed.csv")])
def test_the_quiz_document_and_csv_hold_typed_and_matching_questions(text, file):
    [document], warnings = parse_document(text.encode(), file)
    assert warnings == []
    assert [(q.kind, q.partial_credit, q.case_sensitive) for q in document.items] == [
        (Kind.SHORT_ANSWER, False, False), (Kind.NUMERICAL, False, False), (Kind.MATCHING, True, False),
        (Kind.SHORT_ANSWER, False, True)]
    short, number, pairs, command = (q.choices for q in document.items)
    assert short == [("NVLink", True, None), ("NV*", False, Decimal("0.5"))]
    assert number == [("3.14", True, None, Decimal("0.005")), ("3", False, Decimal("0.25"), Decimal("0.5")),
                      ("1.5", False, Decimal("0.1"), Decimal("0.5"))]
    assert pairs == [("TCP", True, None, None, "Transport"), ("IP", True, None, None, "Network"), ("", False, None, None, "Physical")]
    assert command == [("nvidia-smi", True, None)]


@pytest.mark.django_db
@pytest.mark.parametrize("format", ["quiz", "csv"])
def test_typed_and_matching_questions_go_out_and_back_through_the_line_formats(tmp_path, format):
    from quiz.content import import_documents
    from quiz.content.export import export_one

    path = tmp_path / "typed.txt"
    path.write_text(QUIZ_DOCUMENT, encoding="utf-8")
    import_documents([path])
    [document], _ = parse_document(QUIZ_DOCUMENT.encode(), "typed.txt")
    exported = export_one(QuestionSet.objects.get(), format)
    [again], _ = parse_document(exported.text.encode(), exported.file_name, format)

    def meaning(items):
        return [(q.kind, q.partial_credit, q.case_sensitive, q.explanation, q.choices) for q in items]

    assert meaning(again.items) == meaning(document.items)
    assert export_one(QuestionSet.objects.get(), format).text == exported.text


@pytest.mark.parametrize(("text", "message"), [
    ("T\nQuestion 1: Link?\nKind: short answer\n- NVLink\nCorrect answer: NVLink\nWhy.\n",
     "typed.txt:4: question q1: an accepted answer ends with (Correct answer) (full credit) or with its credit"),
    ("T\nQuestion 1: Pi?\nKind: number\n- three (Correct answer)\nCorrect answer: three\nWhy.\n",
     "typed.txt:4: question q1: 'three' is not a number, a number ± tolerance or a range min..max"),
    ("T\nQuestion 1: Pair?\nKind: matching\n- TCP -> Transport\n- IP Network\nWhy.\n",
     "typed.txt:5: question q1: a matching pair is written 'item -> option'"),
    ("T\nQuestion 1: Pair?\nKind: matching\n- TCP -> Transport\n- IP -> Network\nCorrect answer: TCP\nWhy.\n",
     "typed.txt:6: question q1: a matching question's pairs are its answer; leave out the 'Correct answer:' line"),
    ("T\nQuestion 1: Pair?\nKind: matching\n- TCP -> Transport\n- -> Network\nWhy.\n",
     "typed.txt:2: question q1: a matching question pairs at least 2 items"),
    ("stem,answer,kind\nLink?,NVLink|,short_answer\n", "typed.csv:2: the question: an accepted answer has no text"),
    ("stem,choices,answer,kind\nLink?,a|b,NVLink,short_answer\n",
     "typed.csv:2: a short answer (typed) question has no choices to pick"),
    ("stem,answer,kind\nPair?,TCP -> Transport|IP,matching\n", "typed.csv:2: the question: a matching pair is written"),
])
def test_a_typed_or_matching_question_a_line_format_gets_wrong_is_refused_with_its_line(text, message):
    file = "typed.csv" if text.startswith("stem") else "typed.txt"
    with pytest.raises(ContentError) as refused:
        parse_document(text.encode(), file)
    assert str(refused.value).startswith(message)


# --- Taking one ---------------------------------------------------------------------------------

@pytest.fixture
def typed_set(db):
    question_set = QuestionSet.objects.create(title="Typed")
    short = Question.objects.create(question_set=question_set, key="q1", position=1, stem="Which link joins GPUs?",
                                    explanation="NVLink.", kind=Kind.SHORT_ANSWER)
    Choice.objects.create(question=short, text="NVLink", is_correct=True, position=1)
    Choice.objects.create(question=short, text="NV*", is_correct=False, weight=Decimal("0.5"), position=2)
    number = Question.objects.create(question_set=question_set, key="q2", position=2, stem="Pi, to two places?",
                                     explanation="3.14.", kind=Kind.NUMERICAL)
    Choice.objects.create(question=number, text="3.14", is_correct=True, tolerance=Decimal("0.005"), position=1)
    return question_set


def test_a_typed_question_shows_a_text_box_and_nothing_of_its_answers(learner, learner_client, typed_set):
    attempt = start_attempt(learner, typed_set)
    for slot in attempt.slots.all():
        for headers in ({}, HTMX):
            html = learner_client.get(question_url(attempt, slot.position), **headers).content.decode()
            card = html[html.index('id="question-card"'):]
            assert 'name="answer"' in card and 'type="radio"' not in card
            assert "NVLink" not in card and "3.14" not in card and "0.005" not in card and "correct" not in card.lower()


def test_a_short_answer_is_graded_and_its_feedback_names_the_answer_it_matched(learner, learner_client, typed_set):
    attempt = start_attempt(learner, typed_set)
    short = attempt.slots.get(kind=Kind.SHORT_ANSWER)

    html = learner_client.post(question_url(attempt, short.position), {"answer": "  nvswitch "}, **HTMX).content.decode()

    assert "Partly right: 50% of the mark." in html
    assert re.search(r'<span class="as-written">NV\*</span>.*?data-testid="matched"', html, re.DOTALL)
    short.refresh_from_db()
    assert (short.typed_answer, short.credit, short.is_correct) == ("nvswitch", Decimal("0.5"), False)
    assert short.chosen_choice.text == "NV*"
    assert ReviewLog.objects.get(user=learner).rating == ReviewLog.Rating.AGAIN


def test_a_number_within_the_tolerance_is_right_and_a_non_number_is_refused(learner, learner_client, typed_set):
    attempt = start_attempt(learner, typed_set)
    number = attempt.slots.get(kind=Kind.NUMERICAL)
    url = question_url(attempt, number.position)

    refused = learner_client.post(url, {"answer": "pi"})
    assert refused.status_code == 400 and "Type a number, such as 42 or 3.14." in refused.content.decode()
    assert learner_client.post(url, {"answer": ""}).status_code == 400
    number.refresh_from_db()
    assert number.answered_at is None

    html = learner_client.post(url, {"answer": "3,142"}, **HTMX).content.decode()
    assert "Correct!" in html and "3.14</span> ± 0.005" in html


def test_a_deferred_typed_answer_can_change_until_submitted_and_shows_what_was_typed(learner, learner_client, typed_set):
    attempt = start_attempt(learner, typed_set, feedback=Attempt.Feedback.DEFERRED)
    short = attempt.slots.get(kind=Kind.SHORT_ANSWER)
    url = question_url(attempt, short.position)

    learner_client.post(url, {"answer": "PCIe"})
    assert 'value="PCIe"' in learner_client.get(url).content.decode()
    learner_client.post(url, {"answer": "NVLink"})

    short.refresh_from_db()
    assert (short.typed_answer, short.is_correct) == ("NVLink", True)


def test_the_review_queue_asks_a_typed_question_again(learner, learner_client, typed_set):
    attempt = start_attempt(learner, typed_set)
    number = attempt.slots.get(kind=Kind.NUMERICAL)
    learner_client.post(question_url(attempt, number.position), {"answer": "3"})  # wrong: due again
    MemoryState.objects.filter(user=learner).update(due=attempt.started_at)

    html = learner_client.get(reverse("review_due")).content.decode()
    assert 'name="answer"' in html and "3.14" not in html.split("<main", 1)[1]
    assert learner_client.post(reverse("review_due"), {"item": number.question_id, "answer": "x"}).status_code == 409
    learner_client.post(reverse("review_due"), {"item": number.question_id, "answer": "3.141"})

    review = ReviewLog.objects.filter(user=learner, source=ReviewLog.Source.REVIEW).get()
    assert review.rating == ReviewLog.Rating.GOOD and review.shown["chosen"] == "3.141"
    feedback = learner_client.get(reverse("review_answer", args=[review.pk])).content.decode()
    assert "Correct!" in feedback and 'data-testid="matched"' in feedback


def test_item_analysis_lists_the_most_frequent_typed_responses_in_the_same_queries(teacher, typed_set):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    from quiz.study.answers import submit_answer
    from quiz.teaching import rules
    from quiz.teaching.item_analysis import analyse_items
    from tests.class_factories import make_assignment, make_classroom, make_pool
    from tests.factories import make_user

    now = timezone.now()
    learners = [make_user(f"typist{n}") for n in range(4)]
    classroom = make_classroom(teacher, learners=learners)
    assignment = make_assignment(
        classroom, make_pool(teacher, typed_set.questions.all()), opens_at=now - timedelta(days=1), due_at=now + timedelta(days=1)
    )
    for learner, typed in zip(learners, ["NVLink", " nvlink", "PCIe", "NVSwitch"]):
        attempt = rules.start_attempt(user=learner, seen=rules.get_learner_assignment(user=learner, assignment_id=assignment.pk, now=now), now=now)
        for slot in attempt.slots.all():
            submit_answer(attempt=attempt, slot=slot, number=typed if slot.kind == Kind.SHORT_ANSWER else "3.14")

    with CaptureQueriesContext(connection) as queries:
        items = {item.question.kind: item for item in analyse_items(assignment=assignment)}

    assert len(queries) == 7  # as for the choice kinds: the responses come with the answers' read
    assert [(r.text, r.count, r.credit) for r in items[Kind.SHORT_ANSWER].responses] == [
        ("nvlink", 2, 100), ("nvswitch", 1, 50), ("pcie", 1, 0),
    ]
    assert [(r.text, r.count) for r in items[Kind.NUMERICAL].responses] == [("3.14", 4)]


# --- Matching -----------------------------------------------------------------------------------

MATCHING_GIFT = """::Moodle activities::[html]Match the <b>activity</b> to the description.{
    =[html]An activity supporting asynchronous discussions. -> Forum
    =[moodle]A teacher asks a question and specifies a choice of multiple responses. -> Choice
    =[plain]A bank of record entries which participants can add to. -> Database
    =[markdown]A collection of web pages that anyone can add to or edit. -> Wiki
    = -> Chat
}
"""


def test_moodles_matching_case_imports_its_pairs_and_the_extra_option():
    [document], warnings = parse_document(MATCHING_GIFT.encode(), "questions.gift.txt", "gift")

    [question] = document.items
    assert warnings == [] and (question.kind, question.partial_credit) == (Kind.MATCHING, True)
    assert question.stem == "Match the <b>activity</b> to the description."  # as written; rendering is another issue
    assert [(c[0], c[4]) for c in question.choices] == [
        ("An activity supporting asynchronous discussions.", "Forum"),
        ("A teacher asks a question and specifies a choice of multiple responses.", "Choice"),
        ("A bank of record entries which participants can add to.", "Database"),
        ("A collection of web pages that anyone can add to or edit.", "Wiki"),
        ("", "Chat"),
    ]


@pytest.fixture
def matching_set(db):
    question_set = QuestionSet.objects.create(title="Matching")
    make_matching_question(question_set)
    return question_set


def pairs_for(slot, right):
    """The POST of a matching answer: each item's option number, right or (for the first) wrong."""
    data = {}
    for number, item in enumerate(slot.shown_choices, start=1):
        wanted = item["match"] if right or number > 1 else next(o for o in slot.shown_options if o != item["match"])
        data[f"pair_{number}"] = str(slot.shown_options.index(wanted) + 1)
    return data


def test_a_matching_question_is_a_select_per_item_that_reveals_no_pair(learner, learner_client, matching_set):
    attempt = start_attempt(learner, matching_set)
    slot = attempt.slots.get()
    assert sorted(slot.shown_options) == ["Network", "Physical", "Transport"]

    html = learner_client.get(question_url(attempt, 1)).content.decode()
    card = html[html.index('id="question-card"'):]
    assert card.count("<select") == 2 and card.count("<option") == 2 * 4
    assert "selected" not in card and "correct" not in card.lower()
    assert "data-" not in re.sub(r"data-(hotkey|autofocus|testid|deadline|started)", "", card)


def test_a_matching_answer_earns_a_share_per_right_pair_and_its_feedback_names_each(learner, learner_client, matching_set):
    attempt = start_attempt(learner, matching_set)
    slot = attempt.slots.get()

    missing = learner_client.post(question_url(attempt, 1), {"pair_1": pairs_for(slot, True)["pair_1"]})
    assert missing.status_code == 400 and "Pick an option for every item." in missing.content.decode()

    html = learner_client.post(question_url(attempt, 1), pairs_for(slot, right=False), **HTMX).content.decode()
    assert "Partly right: 50% of the mark." in html
    assert html.count('data-testid="pair"') == 2 and "the right option" in html
    slot.refresh_from_db()
    assert slot.credit == Decimal("0.5") and ReviewLog.objects.get(user=learner).shown["pairs"][0]["right"] is False


def test_matching_is_written_and_read_back_in_json_and_gift(tmp_path, matching_set):
    from quiz.content.export import export_one

    for format in ("json", "gift", "csv", "quiz"):
        exported = export_one(matching_set, format)
        [document], _ = parse_document(exported.text.encode(), exported.file_name, format)
        [question] = document.items
        assert question.kind == Kind.MATCHING
        assert [(c[0], c[4]) for c in question.choices] == [("TCP", "Transport"), ("IP", "Network"), ("", "Physical")]


def test_the_review_queue_asks_a_matching_question_with_its_options_in_order(learner, learner_client, matching_set):
    attempt = start_attempt(learner, matching_set)
    slot = attempt.slots.get()
    learner_client.post(question_url(attempt, 1), pairs_for(slot, right=False))
    MemoryState.objects.filter(user=learner).update(due=attempt.started_at)

    html = learner_client.get(reverse("review_due")).content.decode()
    assert re.findall(r"<option value=\"\d\">(\w+)</option>", html)[:3] == ["Network", "Physical", "Transport"]
    items = [choice for choice in learner_client.session["shown:review"]["choices"]]
    texts = {c.pk: (c.text, c.match) for c in Choice.objects.filter(pk__in=items)}
    options = ["Network", "Physical", "Transport"]
    data = {f"pair_{n}": str(options.index(texts[pk][1]) + 1) for n, pk in enumerate([pk for pk in items if texts[pk][0]], start=1)}
    learner_client.post(reverse("review_due"), {"item": slot.question_id, **data})

    review = ReviewLog.objects.filter(user=learner, source=ReviewLog.Source.REVIEW).get()
    assert review.rating == ReviewLog.Rating.GOOD
    assert 'data-testid="pair"' in learner_client.get(reverse("review_answer", args=[review.pk])).content.decode()


def test_item_analysis_counts_each_pair_of_a_matching_question_matched_right(teacher, matching_set):
    from django.utils import timezone

    from quiz.study.answers import submit_answer
    from quiz.teaching import rules
    from quiz.teaching.item_analysis import analyse_items
    from tests.class_factories import make_assignment, make_classroom, make_pool
    from tests.factories import make_user

    now = timezone.now()
    learners = [make_user(f"matcher{n}") for n in range(3)]
    classroom = make_classroom(teacher, learners=learners)
    assignment = make_assignment(
        classroom, make_pool(teacher, matching_set.questions.all()), opens_at=now - timedelta(days=1), due_at=now + timedelta(days=1)
    )
    for index, learner in enumerate(learners):
        attempt = rules.start_attempt(user=learner, seen=rules.get_learner_assignment(user=learner, assignment_id=assignment.pk, now=now), now=now)
        slot = attempt.slots.get()
        picks = [int(pairs_for(slot, right=index == 0)[f"pair_{n}"]) for n in range(1, 3)]
        submit_answer(attempt=attempt, slot=slot, number=picks)

    [item] = analyse_items(assignment=assignment)
    by_pair = {stat.text: stat.picked for stat in item.choices}
    assert set(by_pair) == {"TCP → Transport", "IP → Network"}  # the extra option pairs with nothing
    assert sum(by_pair.values()) == 2 + 1 + 1  # the right answer's two pairs, one right pair each of the others
    assert item.facility == pytest.approx((1 + 0.5 + 0.5) / 3)


def test_hidden_results_and_the_responses_csv_show_typed_and_matching_answers_as_given(teacher, learner, matching_set, typed_set):
    from django.utils import timezone

    from quiz.models import PoolQuestion
    from quiz.teaching import rules
    from tests.class_factories import make_assignment, make_classroom, make_pool
    from tests.helpers import logged_in

    now = timezone.now()
    classroom = make_classroom(teacher, learners=[learner])
    pool = make_pool(teacher, typed_set.questions.all())
    PoolQuestion.objects.create(pool=pool, question=matching_set.questions.get(), position=3)
    assignment = make_assignment(classroom, pool, feedback_timing="after_due",
                                 opens_at=now - timedelta(days=1), due_at=now + timedelta(days=1))
    attempt = rules.start_attempt(user=learner, seen=rules.get_learner_assignment(user=learner, assignment_id=assignment.pk, now=now), now=now)
    client = logged_in(learner)
    for slot in attempt.slots.all():
        data = pairs_for(slot, right=True) if slot.kind == Kind.MATCHING else {"answer": "NVLink" if slot.kind == Kind.SHORT_ANSWER else "3.14"}
        client.post(question_url(attempt, slot.position), data)
    client.post(reverse("attempt_submit", args=[attempt.pk]))

    results = client.get(reverse("attempt_results", args=[attempt.pk])).content.decode()
    assert "TCP → Transport" in results and "IP → Network" in results and "NVLink" in results
    assert "Correct" not in results.split("<main", 1)[1] and "Right</span>" not in results

    csv_text = b"".join(logged_in(teacher).get(reverse("responses_csv", args=[classroom.pk])).streaming_content).decode()
    assert "TCP → Transport | IP → Network" in csv_text or "IP → Network | TCP → Transport" in csv_text
    assert ",NVLink," in csv_text and ",3.14," in csv_text


def test_the_mock_exam_draws_typed_and_matching_questions_and_grades_them(db, typed_set, matching_set):
    from django.utils import timezone

    from quiz.study.answers import submit_answer
    from quiz.study.catch_up import finish_and_release
    from quiz.study.mock_exam import Choices, start_mock_exam
    from tests.factories import make_user

    learner = make_user("examinee")
    attempt, _ = start_mock_exam(user=learner, choices=Choices(3, 30, 70), now=timezone.now())

    assert sorted(attempt.slots.values_list("kind", flat=True)) == sorted([Kind.SHORT_ANSWER, Kind.NUMERICAL, Kind.MATCHING])
    for slot in attempt.slots.all():
        answer = {Kind.SHORT_ANSWER: "nvlink", Kind.NUMERICAL: "3.141"}.get(slot.kind)
        if answer is None:
            answer = [int(pairs_for(slot, right=True)[f"pair_{n}"]) for n in range(1, 3)]
        submit_answer(attempt=attempt, slot=slot, number=answer)
    finish_and_release(attempt)
    attempt.refresh_from_db()
    assert (attempt.score_percent, ReviewLog.objects.filter(user=learner).count()) == (100, 3)


# --- The editor ---------------------------------------------------------------------------------

def test_the_editor_writes_a_short_answer_and_a_number_with_their_accepted_answers(learner, learner_client):
    own = QuestionSet.objects.create(title="Mine", owner=learner)
    url = reverse("new_question", args=[own.pk])
    base = {"explanation": "", "topics": "", "op": "save"}

    short = {**base, "stem": "Which link?", "kind": "short_answer", "case_sensitive": "on",
             "choice_1": "NVLink", "weight_1": "", "choice_2": "NV*", "weight_2": "50"}
    assert learner_client.post(url, short).status_code == 302
    number = {**base, "stem": "Pi?", "kind": "numerical", "choice_1": "3.14", "tolerance_1": "0.01", "weight_1": ""}
    assert learner_client.post(url, number).status_code == 302
    no_full = {**base, "stem": "Half?", "kind": "short_answer", "choice_1": "a", "weight_1": "50"}
    refused = learner_client.post(url, no_full)
    assert refused.status_code == 400 and "No accepted answer gives full credit (100%)." in refused.content.decode()
    not_a_number = {**base, "stem": "N?", "kind": "numerical", "choice_1": "three", "tolerance_1": ""}
    assert "is not a number" in learner_client.post(url, not_a_number).content.decode()

    short_q, number_q = own.questions.order_by("position")
    assert (short_q.kind, short_q.case_sensitive) == (Kind.SHORT_ANSWER, True)
    assert [(c.text, c.is_correct, c.weight) for c in short_q.choices.all()] == [("NVLink", True, None), ("NV*", False, Decimal("0.5"))]
    assert [(c.text, c.tolerance) for c in number_q.choices.all()] == [("3.14", Decimal("0.01"))]
    form = learner_client.get(reverse("edit_question", args=[number_q.pk])).content.decode()
    assert 'name="tolerance_1"' in form and 'value="0.01"' in form and 'name="correct"' not in form


def test_the_editor_writes_a_matching_question_with_an_extra_option_and_partial_credit(learner, learner_client):
    own = QuestionSet.objects.create(title="Mine", owner=learner)
    url = reverse("new_question", args=[own.pk])
    pairs = {"stem": "Match each protocol to its layer.", "kind": "matching", "partial_credit": "on", "explanation": "",
             "topics": "", "op": "save", "choice_1": "TCP", "match_1": "Transport", "choice_2": "IP", "match_2": "Network",
             "choice_3": "", "match_3": "Physical"}
    assert learner_client.post(url, pairs).status_code == 302

    question = own.questions.get()
    assert (question.kind, question.partial_credit) == (Kind.MATCHING, True)
    assert [(c.text, c.is_correct, c.match) for c in question.choices.order_by("position")] == [
        ("TCP", True, "Transport"), ("IP", True, "Network"), ("", False, "Physical")]
    form = learner_client.get(reverse("edit_question", args=[question.pk])).content.decode()
    assert 'name="match_3" id="question-%d-match_3" value="Physical"' % question.pk in form and 'name="correct"' not in form
    page = learner_client.get(reverse("edit_set", args=[own.pk])).content.decode()
    assert "TCP</span> → <span" in page and "extra option:" in page


@pytest.mark.parametrize("rows, message", [
    ({"choice_1": "TCP", "match_1": ""}, "Item 1 needs the option it pairs with."),
    ({"choice_1": "", "match_1": ""}, "Row 1 is empty: write an item and its option, or remove the row."),
    ({"choice_1": "TCP", "match_1": "Transport", "choice_2": "TCP", "match_2": "Network"}, "Same item as row 1"),
    ({"choice_1": "TCP", "match_1": "Transport", "choice_2": "", "match_2": "Network"},
     "A matching question pairs at least 2 items with their options."),
])
def test_a_matching_question_the_editor_cannot_save_says_why_and_writes_nothing(learner, learner_client, rows, message):
    own = QuestionSet.objects.create(title="Mine", owner=learner)
    data = {"stem": "Match.", "kind": "matching", "explanation": "", "topics": "", "op": "save", **rows}
    refused = learner_client.post(reverse("new_question", args=[own.pk]), data)
    assert refused.status_code == 400 and message in refused.content.decode()
    assert not own.questions.exists()


def test_an_edited_matching_question_keeps_its_rows_and_what_they_mean(learner, learner_client):
    own = QuestionSet.objects.create(title="Mine", owner=learner)
    question = make_matching_question(own)
    before = {c.text: c.pk for c in question.choices.all()}
    data = {"stem": question.stem, "kind": "matching", "explanation": "", "topics": "", "op": "save",
            "choice_1": "TCP", "match_1": "Transport", "choice_2": "IP", "match_2": "Internet", "choice_3": "", "match_3": "Physical"}
    assert learner_client.post(reverse("edit_question", args=[question.pk]), data).status_code == 302
    after = {c.text: (c.pk, c.match) for c in question.choices.all()}
    assert after == {"TCP": (before["TCP"], "Transport"), "IP": (before["IP"], "Internet"), "": (before[""], "Physical")}
    question.refresh_from_db()
    assert question.partial_credit is False  # the box was not ticked


def test_a_copied_set_keeps_tolerances_pairs_and_letter_case(learner, typed_set):
    typed_set.questions.filter(kind=Kind.SHORT_ANSWER).update(case_sensitive=True)
    pairs = make_matching_question(QuestionSet.objects.create(title="Pairs"))
    pairs.question_set, pairs.position = typed_set, 3
    pairs.key = "q3"
    pairs.save()

    def rows(question_set):
        return [
            (q.kind, q.partial_credit, q.case_sensitive,
             [(c.text, c.is_correct, c.weight, c.tolerance, c.match) for c in q.choices.order_by("position")])
            for q in question_set.questions.order_by("position")
        ]

    copy = duplicate_set(typed_set, owner=learner, now=timezone.now())
    assert rows(copy) == rows(typed_set) and len(rows(copy)) == 3


@pytest.mark.parametrize(("format", "kind", "choice", "message"), [
    ("csv", Kind.SHORT_ANSWER, {"text": "a|b", "correct": True}, "holds '|', which separates the answers in CSV"),
    ("quiz", Kind.SHORT_ANSWER, {"text": "half (50%)", "correct": True}, "ends like a credit '(50%)'"),
    ("quiz", Kind.MATCHING, {"text": "a -> b", "correct": True, "match": "c"}, "holds '->', which reads as the pair's arrow"),
    ("csv", Kind.MATCHING, {"text": "a -> b", "correct": True, "match": "c"}, "holds '->', which reads as the pair's arrow"),
])
def test_what_a_line_format_would_misread_is_refused_on_export_naming_the_question(format, kind, choice, message):
    from quiz.content.documents import ExportError
    from quiz.content.quiz_format import write_quiz
    from quiz.content.tabular_format import write_questions_table

    question = {"stem": "Which?", "explanation": "Why.", "kind": kind, "choices": [choice, {"text": "x", "correct": True, "match": "y"}]}
    with pytest.raises(ExportError) as refused:
        {"csv": write_questions_table, "quiz": write_quiz}[format]({"title": "T", "questions": [question]})
    assert "'Which?'" in str(refused.value) and message in str(refused.value)


# --- Found in review ----------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "file"), [
    ("stem,answer,explanation,kind\nN?,5 ± 99999999999,Why,numerical\n", "n.csv"),
    ("stem,answer,explanation,kind\nN?,0..1000000000000000000000,Why,numerical\n", "n.csv"),
    ("stem,answer,explanation,kind\nN?,5 ± 0.00000000001,Why,numerical\n", "n.csv"),
    ("N? {#5:99999999999}\n", "n.gift"),
])
def test_a_tolerance_the_database_cannot_hold_is_refused_with_its_line(text, file):
    with pytest.raises(ContentError) as refused:
        parse_document(text.encode(), file, file.rsplit(".", 1)[1])
    assert f"{file}:" in str(refused.value) and "does not fit: at most 10 digits" in str(refused.value)


@pytest.mark.django_db
@pytest.mark.parametrize("format", ["csv", "quiz"])
def test_a_letter_case_flag_on_another_kind_exports_as_if_unset(format):
    from quiz.content.export import export_one

    question_set = QuestionSet.objects.create(title="Flags")
    question = Question.objects.create(question_set=question_set, key="q1", position=1, stem="Which?", explanation="Why.",
                                       kind=Kind.SELECT_ALL, case_sensitive=True)
    Choice.objects.create(question=question, text="a", is_correct=True, position=1)
    Choice.objects.create(question=question, text="b", is_correct=False, position=2)

    exported = export_one(question_set, format)
    [document], _ = parse_document(exported.text.encode(), exported.file_name, format)
    assert [(q.kind, q.case_sensitive) for q in document.items] == [(Kind.SELECT_ALL, False)]


def test_the_editor_drops_a_letter_case_box_left_ticked_on_a_choice_question(learner, learner_client):
    own = QuestionSet.objects.create(title="Mine", owner=learner)
    data = {"stem": "Which?", "kind": "select_all", "case_sensitive": "on", "explanation": "", "topics": "", "op": "save",
            "choice_1": "a", "choice_2": "b", "correct": ["1"]}
    assert learner_client.post(reverse("new_question", args=[own.pk]), data).status_code == 302
    assert own.questions.get().case_sensitive is False


def test_a_kind_line_reads_through_odd_spacing_around_its_comma():
    text = "T\nQuestion 1: Which?\nKind: Select all , partial credit\n- a (Correct answer)\n- b\nCorrect answer: a\nWhy.\n"
    [document], _ = parse_document(text.encode(), "k.txt")
    assert (document.items[0].kind, document.items[0].partial_credit) == (Kind.SELECT_ALL, True)


def test_a_card_table_with_a_type_column_is_still_a_deck(db):
    [document], warnings = parse_document(b"question,answer,type\nTCP?,Transport,basic\n", "cards.csv")
    assert document.kind == "deck" and warnings == ["cards.csv:1: ignored column 'type'"]
