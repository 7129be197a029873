"""Content for the export tests: the seed documents plus a set and a deck full of what formats
escape (`{}=~#:`, quotes, commas, tabs, line breaks, non-ASCII), and a round trip through an
empty database."""

import json
import re

from quiz.content import export_one, import_documents
from quiz.content.documents import one_line
from quiz.models import Deck, QuestionSet, SourceDocument, Topic

from .importing import DECK, QUIZ

SEED_SET_TITLE = "NCA Multi-GPU Computing & Scaling 5 — Questions and Answers"
SEED_DECK_TITLE = "Free NCA-AIIO flashcards"
TRICKY_SET = "Ünïcode “quotes”, commas; {braces} = ~ # : set"
TRICKY_DECK = "Tricky deck — ünïcode, {x} = ~y #z"


def choices(*texts, right):
    return [{"text": text, "correct": index == right} for index, text in enumerate(texts)]


TRICKY_QUESTIONS = [
    {
        "key": "first",
        "stem": 'Which is right: {a} = ~b # c?\nSecond line, with "quotes"\tand a tab.',
        "explanation": "Because: {x} # ~y = z.\nLine two, ✓.",
        "choices": choices("=x ~y", 'Commas, "quotes"', "日本語 — ünïcode", "[html] not markup", right=1),
        "topics": ["Networking", "Ünïcode topic"],
    },
    {
        "key": "second",
        "stem": "// looks like a comment\n\nafter a blank line",
        "explanation": "%50 is not a weight; ::not a name::",
        "choices": choices("%50 looks like a weight", "100% sure", "$CATEGORY: not a category", right=0),
        "topics": ["Routing"],
    },
    {
        "key": "third",
        "stem": "Routers keep no per-packet state.",
        "explanation": "They forward each packet alone.",
        "choices": choices("True", "False", right=1),
        "topics": ["Routing"],
    },
    {
        "key": "fourth",
        "stem": 'Tab\tseparated, "quoted" and back\\slash \\n not a newline',
        "explanation": "The answer is the text B, not the letter B.",
        "choices": choices("a|b pipe", "A", "B", right=2),
    },
]

TRICKY_CARDS = [
    {
        "key": "first",
        "front": 'Front with {braces}, "quotes"\tand a tab\nsecond line',
        "back": "Back: ~ = # :\n\nafter a blank line",
        "misconception": "Myth, with commas",
        "correction": "Correction ✓",
        "topics": ["Two words", "Ünïcode"],
    },
    {"key": "second", "front": "#notetag:looks like an Anki header", "back": "b", "misconception": "m",
     "correction": "c"},
    {"key": "third", "front": "Question 1: looks like a quiz line", "back": "- looks like a choice",
     "misconception": "A. looks like Aiken", "correction": "ANSWER: A"},
]


def import_content(tmp_path):
    """Import the seed documents and the tricky set and deck into the database."""
    tricky = tmp_path / "tricky.json"
    data = {
        "question_sets": [{"title": TRICKY_SET, "source": None, "questions": TRICKY_QUESTIONS}],
        "decks": [{"title": TRICKY_DECK, "source": None, "cards": TRICKY_CARDS}],
    }
    tricky.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    import_documents([QUIZ, DECK, tricky])


def delete_all_content():
    QuestionSet.objects.all().delete()
    Deck.objects.all().delete()
    SourceDocument.objects.all().delete()
    Topic.objects.all().delete()


def reimport(exported, format, tmp_path):
    """Import an ExportedFile into an empty database; return the one set or deck it made."""
    delete_all_content()
    path = tmp_path / exported.file_name
    path.write_bytes(exported.text.encode("utf-8"))
    import_documents([path], format=format)
    return (QuestionSet.objects.first() or Deck.objects.get())


def container(title):
    return QuestionSet.objects.filter(title=title).first() or Deck.objects.get(title=title)


def plain_data(container):
    """The set or deck as its JSON export's entry."""
    return json.loads(export_one(container, "json").text)[
        "question_sets" if isinstance(container, QuestionSet) else "decks"
    ][0]


def held(data, format, file_name):
    """What of a set's or deck's plain data `format` holds: the data as it should read back."""
    data = json.loads(json.dumps(data))
    if format == "json":
        return data
    data["source"] = file_name
    items = data.get("questions") or data.get("cards")
    for number, item in enumerate(items, start=1):
        item["key"] = f"{'q' if 'stem' in item else 'c'}{number}"
        HOLDS[format](item)
        if not item.get("topics"):
            item.pop("topics", None)
    return data


def _quiz(question):
    for text in (question, *question["choices"]):
        for name in ("stem", "explanation", "text"):
            if name in text:
                text[name] = one_line(text[name])


def _gift(question):
    if len(question.get("topics", [])) > 1:
        question["topics"] = []


def _aiken(question):
    question["stem"] = "\n".join(line.strip() for line in question["stem"].split("\n") if line.strip())
    question["explanation"] = ""
    question["topics"] = []
    for choice in question["choices"]:
        choice["text"] = one_line(choice["text"])


def _deck(card):
    for part in ("front", "back", "misconception", "correction"):
        card[part] = re.sub(r"\n\s*\n", "\n", card[part])


def _anki(card):
    card["misconception"] = card["correction"] = ""
    card["topics"] = ["_".join(topic.split()) for topic in card.get("topics", [])]


HOLDS = {"quiz": _quiz, "gift": _gift, "aiken": _aiken, "csv": lambda item: None, "deck": _deck, "anki": _anki}
