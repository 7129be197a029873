"""Fuzzing with hypothesis: any form data posted to any endpoint, and any document given to the
importer, gets an answer, never a 500 or a traceback; a refusal writes nothing."""

import json
import string

import pytest
from django.core.management import CommandError
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quiz.content import ContentError, parse_document
from quiz.models import Assignment, AssignmentOverride, Attempt, AttemptSlot, Card, Classroom, MemoryState, Question, ReviewLog
from tests.importing import DECK, QUIZ, content_snapshot, run_import
from tests.test_permissions import PAGES_WITH_A_FORM, URLS, world  # noqa: F401  (world is a fixture)

FUZZ = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

# Every name a form of the app reads, and a few it does not.
FIELDS = [
    "choice", "item", "rating", "duration_ms", "token", "answer", "session", "review", "question", "action", "next",
    "name", "title", "draw_count", "pool", "opens_at", "due_at", "time_limit", "max_attempts", "grading", "shuffle",
    "feedback_timing", "learner", "feedback", "code", "username", "password1", "password2", "time_zone",
    "new_cards_per_day", "exam_date", "target_retention", "email", "q", "page", "sort", "unknown",
]
VALUES = st.one_of(
    st.text(max_size=40),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(["", "0", "-1", "1", "2", "99999999999999999999", "1e309", "NaN", "²", "١", "9999-12-31",
                     "0001-01-01T00:00", "2026-02-30", "myth", "fact", "up", "down", "remove", "review", "deck-1",
                     "drill-999999999999999", "//evil.example", "foo", "javascript:alert(1)", "\x00", "\ud800"]),
)
FORM = st.dictionaries(st.sampled_from(FIELDS), st.one_of(VALUES, st.lists(VALUES, max_size=3)), max_size=6)
POSTS = sorted(name for name, spec in URLS.items() if spec[1] == "post" or name in PAGES_WITH_A_FORM)
HISTORY = (Attempt, AttemptSlot, ReviewLog, MemoryState, Question, Card, Classroom, Assignment, AssignmentOverride)


def counts():
    return [model.objects.count() for model in HISTORY] + [AttemptSlot.objects.filter(answered_at__isnull=False).count()]


def clean(value):
    # Lone surrogates cannot be encoded in a request at all; a browser never sends them.
    return value.encode("utf-8", "replace").decode("utf-8") if isinstance(value, str) else [clean(v) for v in value]


@pytest.mark.parametrize("name", POSTS)
@FUZZ
@given(form=FORM)
def test_no_form_data_makes_an_endpoint_fail(world, name, form):  # noqa: F811  (the imported fixture)
    kind, _, args, _ = URLS[name]
    client = Client(raise_request_exception=False)
    client.force_login(world["owner" if kind.startswith("instructor") else "learner"])
    before = counts()

    response = client.post(reverse(name, args=args(world)), {key: clean(value) for key, value in form.items()})

    assert response.status_code < 500, (name, form, response.status_code)
    if 400 <= response.status_code < 500:
        assert counts() == before, (name, form)


# --- The importer -------------------------------------------------------------------------------------

SEEDS = [QUIZ.read_bytes(), DECK.read_bytes()]
LINE = st.one_of(
    st.text(max_size=60),
    st.sampled_from(["Question 1: ?", "Question 99999999999: x", "- a", "- b (Correct answer)", "Correct answer: a",
                     "Topics: a, b", "Topics:", "", "{", "}", "\t", "(Correct answer)", "- " + "x" * 11000]),
)


@st.composite
def mutated_seed(draw):
    """A seed document with lines removed, repeated, replaced or added: near misses of the formats."""
    lines = draw(st.sampled_from(SEEDS)).decode("utf-8").split("\n")
    for _ in range(draw(st.integers(min_value=1, max_value=5))):
        position = draw(st.integers(min_value=0, max_value=len(lines)))
        operation = draw(st.sampled_from(["drop", "repeat", "replace", "insert"]))
        if operation == "insert" or not lines:
            lines.insert(position, draw(LINE))
        elif operation == "drop":
            lines.pop(min(position, len(lines) - 1))
        elif operation == "repeat":
            lines.insert(position, lines[min(position, len(lines) - 1)])
        else:
            lines[min(position, len(lines) - 1)] = draw(LINE)
    return "\n".join(lines).encode("utf-8", "surrogatepass")


JSON_EXPORT = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["sets", "decks", "title", "source", "questions", "cards", "key", "stem", "choices", "text",
                         "correct", "explanation", "front", "back", "misconception", "correction", "topics", "x"]),
        children, max_size=6,
    ),
    max_leaves=30,
)
DOCUMENTS = st.one_of(
    mutated_seed(),
    st.binary(max_size=300),
    st.text(alphabet=string.printable + "éü—…\u00a0\u2028", max_size=400).map(str.encode),
    JSON_EXPORT.map(lambda value: json.dumps(value).encode()),
)


@settings(max_examples=300, deadline=None)
@given(data=DOCUMENTS)
def test_any_document_parses_or_is_refused_with_its_place(data):
    try:
        documents, warnings = parse_document(data, "fuzz.txt")
    except ContentError as error:
        assert str(error).startswith("fuzz.txt"), str(error)  # FILE or FILE:LINE, then what is wrong
        return
    assert all(document.items for document in documents) or not documents
    assert all(isinstance(warning, str) for warning in warnings)


@pytest.mark.django_db
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=mutated_seed())
def test_any_document_imports_whole_or_changes_nothing(tmp_path, data):
    path = tmp_path / "seed.txt"
    path.write_bytes(data)
    before = content_snapshot()
    try:
        run_import(path)
    except CommandError as error:
        assert str(error).startswith(str(path)), str(error)
        assert content_snapshot() == before
