"""Writing every question set and deck out as JSON, the export format import_documents reads back.

The output is deterministic (sorted in Python, topics only when there are some) so that two
exports of the same content are the same bytes and a diff shows exactly what changed.
"""

import json

from ..models import Deck, QuestionSet
from .documents import CARD_PARTS


def export_content():
    """All sets and decks as plain data, in a stable order so exports can be diffed."""
    sets = QuestionSet.objects.select_related("source").prefetch_related("questions__choices", "questions__topics")
    decks = Deck.objects.select_related("source").prefetch_related("cards__topics")
    return {
        "question_sets": sorted((_export_question_set(s) for s in sets), key=_export_order),
        "decks": sorted((_export_deck_data(d) for d in decks), key=_export_order),
    }


def export_json():
    return json.dumps(export_content(), indent=2, ensure_ascii=False) + "\n"


def _export_order(entry):
    # Sorted in Python: databases disagree on collation and on where NULL sources go.
    return (entry["title"], entry["source"] or "")


def _source_name(container):
    return container.source.file_name if container.source else None


def _export_question_set(question_set):
    questions = sorted((q for q in question_set.questions.all() if not q.is_retired), key=lambda q: (q.position, q.key))
    return {
        "title": question_set.title,
        "source": _source_name(question_set),
        "questions": [_question_data(question) for question in questions],
    }


def _question_data(question):
    choices = sorted(question.choices.all(), key=lambda c: (c.position, c.pk))
    data = {
        "key": question.key,
        "stem": question.stem,
        "explanation": question.explanation,
        "choices": [{"text": choice.text, "correct": choice.is_correct} for choice in choices],
    }
    return _with_topics(question, data)


def _export_deck_data(deck):
    cards = sorted((c for c in deck.cards.all() if not c.is_retired), key=lambda c: (c.position, c.key))
    return {
        "title": deck.title,
        "source": _source_name(deck),
        "cards": [_card_data(card) for card in cards],
    }


def _card_data(card):
    return _with_topics(card, {"key": card.key, **{name: getattr(card, name) for name in CARD_PARTS}})


def _with_topics(item, data):
    # The key only when there are topics, so exports of untagged content (the seed) keep their
    # bytes; names sorted in Python because databases disagree on collation.
    if names := sorted(topic.name for topic in item.topics.all()):
        data["topics"] = names
    return data
