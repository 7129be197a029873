"""Editing one's own questions in the browser: the set's page, the question form with its
choice rows (added, removed, moved without saving), the importer's rules with a message on
the field at fault and nothing written, HTMX partials, and 404 for anything not one's own."""

import pytest
from django.urls import reverse

from quiz.models import Choice, Question, QuestionSet, Visibility
from tests.factories import make_question_set
from tests.helpers import HTMX

SAVE = {"op": "save"}


@pytest.fixture
def own_set(learner):
    return make_question_set("My set", questions=3, owner=learner)


@pytest.fixture
def question(own_set):
    return own_set.questions.get(position=1)


def form_data(stem="What does NVLink connect?", choices=("GPUs", "Disks", "Fans"), correct=1, **extra):
    data = {"stem": stem, "explanation": "", "topics": "", "correct": str(correct), **SAVE, **extra}
    data.update((f"choice_{n}", text) for n, text in enumerate(choices, start=1))
    return data


def snapshot(question_set):
    """Everything the editor could write, to check that a refused save wrote nothing."""
    questions = Question.objects.filter(question_set=question_set).order_by("pk")
    return (
        list(questions.values_list("pk", "stem", "explanation", "position", "key", "updated_at")),
        list(Choice.objects.filter(question__in=questions).order_by("pk").values_list("pk", "text", "is_correct", "position")),
        list(Question.topics.through.objects.filter(question__in=questions).values_list("question_id", "topic_id")),
    )


def test_the_set_page_lists_its_questions_with_the_correct_choice_marked(learner_client, own_set, question):
    response = learner_client.get(reverse("edit_set", args=[own_set.pk]))

    assert response.status_code == 200
    html = response.content.decode()
    assert html.count('data-testid="question"') == 3
    assert "Question 1 stem?" in html and 'class="tag tag-correct">correct' in html
    assert reverse("edit_question", args=[question.pk]) in html


def test_it_saves_stem_choices_explanation_and_topics(learner_client, own_set, question):
    kept = question.choices.get(position=0)  # "Choice 1.0", the correct one
    data = form_data(stem="Edited?", choices=("Choice 1.0", "New wrong"), correct=2,
                     explanation="Because.", topics="Networking, NVLink, Networking")

    response = learner_client.post(reverse("edit_question", args=[question.pk]), data)

    assert response.status_code == 302
    assert response["Location"] == reverse("edit_set", args=[own_set.pk]) + f"#question-{question.pk}"
    question.refresh_from_db()
    assert (question.stem, question.explanation) == ("Edited?", "Because.")
    assert [(c.text, c.is_correct) for c in question.choices.order_by("position")] == [
        ("Choice 1.0", False), ("New wrong", True)
    ]
    assert question.choices.get(text="Choice 1.0").pk == kept.pk  # a kept text keeps its row
    assert sorted(t.name for t in question.topics.all()) == ["NVLink", "Networking"]


def test_a_new_question_goes_last_with_a_key_of_its_own(learner_client, own_set):
    response = learner_client.post(reverse("new_question", args=[own_set.pk]), form_data())

    assert response.status_code == 302
    new = own_set.questions.get(stem="What does NVLink connect?")
    assert new.position == 4 and new.key not in {"q1", "q2", "q3"} and new.key.startswith("q-")
    assert new.choices.get(is_correct=True).text == "GPUs"


def test_the_new_question_form_starts_with_four_empty_choices(learner_client, own_set):
    response = learner_client.get(reverse("new_question", args=[own_set.pk]))

    assert response.status_code == 200
    assert response.content.decode().count('name="correct"') == 4


@pytest.mark.parametrize(
    "changes, field, message",
    [
        ({"stem": ""}, "stem", "Question: write something here."),
        ({"stem": "x" * 10_001}, "stem", "at most 10000 characters"),
        ({"choices": ("Only one",)}, None, "A question needs at least 2 choices"),
        ({"correct": ""}, "correct", "Mark the one correct choice."),
        ({"correct": "7"}, "correct", "Select a valid choice"),
        ({"choices": ("GPUs", "")}, "choice_2", "Choice 2 has no text"),
        ({"choices": ("GPUs", "   ")}, "choice_2", "Choice 2 has no text"),
        ({"choices": ("GPUs", "Disks", "GPUs")}, "choice_3", "Same text as choice 1"),
        ({"choices": ("GPUs", "y" * 10_001)}, "choice_2", "at most 10000 characters"),
        ({"topics": "Networking, " + "t" * 101}, "topics", "is longer than 100 characters"),
        ({"stem": "a\x00b"}, "stem", "Null characters are not allowed"),
    ],
)
def test_a_refused_save_says_why_on_the_field_and_writes_nothing(learner_client, own_set, question, changes, field, message):
    before = snapshot(own_set)
    data = form_data(**{k: v for k, v in changes.items() if k == "choices"})
    data.update({k: v for k, v in changes.items() if k != "choices"})

    response = learner_client.post(reverse("edit_question", args=[question.pk]), data)

    assert response.status_code == 400
    form = response.context["form"]
    errors = form.non_field_errors() if field is None else form.errors[field]
    assert any(message in error for error in errors), form.errors
    assert message.split(":")[0] in response.content.decode().replace("&#x27;", "'")
    assert snapshot(own_set) == before


def test_a_refused_new_question_is_not_created(learner_client, own_set):
    response = learner_client.post(reverse("new_question", args=[own_set.pk]), form_data(correct=""))

    assert response.status_code == 400
    assert own_set.questions.count() == 3


@pytest.mark.parametrize(
    "operation, texts, marked",
    [
        ("add", ["GPUs", "Disks", "Fans", ""], 1),
        ("remove-2", ["GPUs", "Fans"], 1),
        ("remove-1", ["Disks", "Fans"], None),
        ("up-2", ["Disks", "GPUs", "Fans"], 2),  # the correct mark moves with its choice
        ("down-1", ["Disks", "GPUs", "Fans"], 2),
        ("up-1", ["GPUs", "Disks", "Fans"], 1),  # the first cannot go higher
        ("remove-9", ["GPUs", "Disks", "Fans"], 1),
        ("nonsense", ["GPUs", "Disks", "Fans"], 1),
    ],
)
def test_choice_rows_change_in_the_form_without_saving(learner_client, own_set, question, operation, texts, marked):
    before = snapshot(own_set)

    response = learner_client.post(reverse("edit_question", args=[question.pk]), form_data(op=operation))

    assert response.status_code == 200
    form = response.context["form"]
    assert [field.value() for _, field, *_ in form.choice_rows] == texts
    assert next((n for n, _, checked, *_ in form.choice_rows if checked), None) == marked
    assert form["stem"].value() == "What does NVLink connect?"
    assert not form.errors
    assert snapshot(own_set) == before


def test_rows_stop_at_twelve(learner_client, own_set, question):
    data = form_data(choices=[f"c{n}" for n in range(12)], op="add")

    form = learner_client.post(reverse("edit_question", args=[question.pk]), data).context["form"]

    assert form.choice_count == 12


# --- HTMX: the same URLs answer with the piece to swap ---------------------------------------

def test_htmx_edit_opens_the_form_in_place_of_the_question(learner_client, question):
    response = learner_client.get(reverse("edit_question", args=[question.pk]), **HTMX)

    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert f'id="question-{question.pk}"' in html and 'value="Question 1 stem?"' not in html
    assert "Question 1 stem?</textarea>" in html
    assert "HX-Request" in response["Vary"]


def test_htmx_save_answers_with_the_saved_question_alone(learner_client, question):
    response = learner_client.post(reverse("edit_question", args=[question.pk]), form_data(stem="Swapped?"), **HTMX)

    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html and 'name="stem"' not in html
    assert html.strip().startswith(f'<article class="item" id="question-{question.pk}"')
    assert "Swapped?" in html


def test_htmx_refused_save_answers_400_with_the_form_and_its_errors(learner_client, question):
    response = learner_client.post(reverse("edit_question", args=[question.pk]), form_data(correct=""), **HTMX)

    assert response.status_code == 400  # htmx swaps 400s (base.html's responseHandling)
    assert "Mark the one correct choice." in response.content.decode()
    assert "<html" not in response.content.decode()


def test_htmx_new_question_redraws_the_whole_list(learner_client, own_set):
    response = learner_client.post(reverse("new_question", args=[own_set.pk]), form_data(), **HTMX)

    assert response.status_code == 200
    assert response["HX-Retarget"] == "#items" and response["HX-Reswap"] == "outerHTML"
    assert response.content.decode().count('data-testid="question"') == 4


# --- Only one's own content -------------------------------------------------------------------

@pytest.fixture
def not_mine(other_learner):
    shared = make_question_set("Shared by bob", owner=other_learner, visibility=Visibility.EVERYONE)
    return {"library": make_question_set("Library"), "shared": shared}


@pytest.mark.parametrize("whose", ["library", "shared"])
@pytest.mark.parametrize("name, method", [
    ("edit_set", "get"), ("new_question", "post"), ("duplicate_set", "post"), ("delete_set", "post"), ("rename_set", "post"),
])
def test_sets_not_ones_own_answer_404(learner_client, not_mine, whose, name, method):
    question_set = not_mine[whose]

    response = getattr(learner_client, method)(reverse(name, args=[question_set.pk]), form_data())

    assert response.status_code == 404
    assert QuestionSet.objects.filter(pk=question_set.pk).exists() and question_set.questions.count() == 3


@pytest.mark.parametrize("whose", ["library", "shared"])
@pytest.mark.parametrize("name", ["edit_question", "move_question", "delete_question"])
def test_questions_not_ones_own_answer_404(learner_client, not_mine, whose, name):
    question = not_mine[whose].questions.get(position=1)

    response = learner_client.post(reverse(name, args=[question.pk]), form_data(direction="down"))

    assert response.status_code == 404
    assert Question.objects.get(pk=question.pk).stem == "Question 1 stem?"


def test_a_retired_question_is_not_editable(learner_client, question):
    Question.objects.filter(pk=question.pk).update(retired_at="2026-01-01T00:00Z")

    assert learner_client.get(reverse("edit_question", args=[question.pk])).status_code == 404
