"""Builders shared by the importer tests: the seed documents, small documents written to a
temporary folder, and a way to run `import_questions` and capture what it says."""

import io
from pathlib import Path

from django.core.management import call_command

from quiz.models import Card, Choice, Deck, Question, QuestionSet, SourceDocument, Topic

SOURCES = Path(__file__).resolve().parent.parent / "fixtures" / "sources"
QUIZ = SOURCES / "000_8e65f90cff338d65.txt"
DECK = SOURCES / "004_833c4d9b98171f65.txt"
SEED = SOURCES.parent / "seed.json"
CONTENT_MODELS = (
    SourceDocument,
    QuestionSet,
    Question,
    Choice,
    Deck,
    Card,
    Topic,
    Question.topics.through,
    Card.topics.through,
)

GOOD_QUIZ = """Good quiz
Question 1: One?
- yes (Correct answer)
- no
Correct answer: yes
Because.
Topics: Basics
"""


def run_import(*paths, dry_run=False):
    """Run the command; return (stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    options = {"dry_run": True} if dry_run else {}
    call_command("import_questions", *[str(path) for path in paths], stdout=out, stderr=err, **options)
    return out.getvalue(), err.getvalue()


def content_snapshot():
    """Every content row, so 'nothing changed' also catches updates, not only new rows."""
    return {model.__name__: list(model.objects.order_by("pk").values()) for model in CONTENT_MODELS}


def write(directory, name, text, newline="\n"):
    path = directory / name
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


def quiz_text(*blocks, title="A quiz"):
    return "\n".join([title, *blocks]) + "\n"


def question(
    number, stem="Stem?", choices=("right (Correct answer)", "wrong"), answer="right", explanation="Why.", topics=None
):
    lines = [f"Question {number}: {stem}", *[f"- {choice}" for choice in choices]]
    if answer is not None:
        lines.append(f"Correct answer: {answer}")
    if explanation is not None:
        lines.append(explanation)
    if topics is not None:
        lines.append(topics)
    return "\n".join(lines)


def deck_text(*cards, title="A deck"):
    """Cards as (question paragraph, answer, misconception, correction)."""
    return "\n\n".join([title, *(paragraph for card in cards for paragraph in card)]) + "\n"


def card_paragraphs(front="Front?", back="Back.", misconception="Myth.", correction="Fix."):
    return (front, back, misconception, correction)


def topics_of(item):
    return sorted(item.topics.values_list("name", flat=True))


def the_set():
    return QuestionSet.objects.get(source__file_name=QUIZ.name)


def number_of(slot, choice):
    """The 1-based number under which the slot showed this choice (what a learner clicks)."""
    return [shown["id"] for shown in slot.shown_choices].index(choice.pk) + 1
