"""Writing content out: every question set and deck as JSON, or one set or deck in any format
import_documents reads back.

The output is deterministic (sorted in Python, topics only when there are some) so that two
exports of the same content are the same bytes and a diff shows exactly what changed. Each
format's writer lives next to its parser and works on the plain data built here.
"""

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from django.db.models import prefetch_related_objects

from ..models import Deck, Markup, Question, QuestionSet
from ..models.kinds import TYPED
from .aiken_format import write_aiken
from .anki_format import write_anki
from .deck_format import write_deck
from .documents import CARD_PARTS, export_file_name, weight_text
from .gift_format import write_gift
from .moodle_xml_format import write_moodle_xml
from .quiz_format import write_quiz
from .tabular_format import write_cards_table, write_questions_table


def export_content():
    """All sets and decks as plain data, in a stable order so exports can be diffed."""
    sets = QuestionSet.objects.select_related("source").prefetch_related("questions__choices", "questions__topics")
    decks = Deck.objects.select_related("source").prefetch_related("cards__topics")
    return {
        "question_sets": sorted((_export_question_set(s) for s in sets), key=_export_order),
        "decks": sorted((_export_deck_data(d) for d in decks), key=_export_order),
    }


def export_json():
    return _json_text(export_content())


# Sets or decks read per query by `export_entries`, each with all its questions and choices (or
# cards): a few at a time, since one set may hold thousands of questions.
ENTRIES_PER_READ = 20


def export_entries(containers):
    """The entry of export_content's data for each QuestionSet or Deck of the queryset
    `containers` (one learner's own, say), in the queryset's order, a few read at a time: a
    caller writing many of them to a stream never holds them all. Four queries per read for
    sets (sets, questions, choices, topics), three for decks."""
    if containers.model is QuestionSet:
        containers, entry = containers.prefetch_related("questions__choices", "questions__topics"), _export_question_set
    else:
        containers, entry = containers.prefetch_related("cards__topics"), _export_deck_data
    for container in containers.select_related("source").iterator(chunk_size=ENTRIES_PER_READ):
        yield entry(container)


def _json_text(content):
    return json.dumps(content, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class ExportedFile:
    """One set or deck written in one format, and the file name that reads back as its title."""

    file_name: str
    text: str


class ExportFormat(NamedTuple):
    """A format a set or deck can be written in."""

    label: str  # as the download menu names it
    extension: str
    write: Callable


# The formats each kind can be written in, in the download menu's order. The keys are the
# import_questions --format names, so an export can be read back with the same one.
SET_FORMATS = {
    "json": ExportFormat("JSON", "json", lambda data: _json_text({"question_sets": [data], "decks": []})),
    "quiz": ExportFormat("Quiz document", "txt", write_quiz),
    "gift": ExportFormat("Moodle GIFT", "gift", write_gift),
    "aiken": ExportFormat("Aiken", "txt", write_aiken),
    "csv": ExportFormat("CSV", "csv", write_questions_table),
    "moodle": ExportFormat("Moodle XML", "xml", write_moodle_xml),
}
DECK_FORMATS = {
    "json": ExportFormat("JSON", "json", lambda data: _json_text({"question_sets": [], "decks": [data]})),
    "deck": ExportFormat("Deck document", "txt", write_deck),
    "csv": ExportFormat("CSV", "csv", write_cards_table),
    "anki": ExportFormat("Anki plain text", "txt", write_anki),
}


def formats_for(container):
    """The formats a QuestionSet or a Deck can be written in."""
    return SET_FORMATS if isinstance(container, QuestionSet) else DECK_FORMATS


def download_choices(formats):
    """[(format, label)] of SET_FORMATS or DECK_FORMATS, as a download menu lists them."""
    return [(name, written_as.label) for name, written_as in formats.items()]


def export_one(container, format, *, myths_left_out=()):
    """One QuestionSet or Deck in `format` (a key of formats_for(container)), as an ExportedFile.

    Who may export what is the caller's business (`myths_left_out`: the ids of the deck's cards
    written without their misconception and its correction). Raises ExportError for content the
    format cannot write so that it reads back as it is, and KeyError for a format of the other kind."""
    _, extension, write = formats_for(container)[format]
    if isinstance(container, QuestionSet):
        prefetch_related_objects([container], "source", "questions__choices", "questions__topics")
        data = _export_question_set(container)
    else:
        prefetch_related_objects([container], "source", "cards__topics")
        data = _export_deck_data(container, myths_left_out)
    text = write(data, media=_images_shown(container, data)) if format in CARRIES_IMAGES else write(data)
    return ExportedFile(export_file_name(container.title, extension), text)


# The formats whose files carry the images their texts show (Moodle XML embeds them): their writer
# also takes {stored name: bytes}. The others write `media:<name>` as it is.
CARRIES_IMAGES = {"moodle"}
STORED_IMAGE = re.compile(r"media:([0-9a-f]{24}\.(?:png|jpg|gif|webp))")


def _images_shown(container, data):
    """{name: bytes} of the container's images its items' texts show: one query, and none without any."""
    texts = [item.get(name, "") for item in data.get("questions", []) for name in ("stem", "explanation")]
    texts += [choice["text"] for item in data.get("questions", []) for choice in item["choices"]]
    names = {name for text in texts for name in STORED_IMAGE.findall(text)}
    images = {}
    for image in container.media.filter(name__in=names) if names else []:
        with image.file.open("rb") as stored:
            images[image.name] = stored.read()
    return images


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
    data = {"key": question.key, "stem": question.stem, "explanation": question.explanation}
    # The kind only when it is not the single answer every question had before kinds existed, so
    # exports of such content keep their bytes; a weight only where partial credit reads it.
    if question.kind != Question.Kind.SINGLE:
        data["kind"] = question.kind
    if question.partial_credit:
        data["partial_credit"] = True
    if question.case_sensitive:
        data["case_sensitive"] = True
    if question.markup != Markup.PLAIN:  # plain text, as everything was before markup, writes no key
        data["markup"] = question.markup
    weighed = question.partial_credit or question.kind in TYPED  # an accepted answer's weight is its credit
    data["choices"] = [_choice_data(choice, weighed) for choice in choices]
    return _with_topics(question, data)


def _choice_data(choice, weighed):
    data = {"text": choice.text, "correct": choice.is_correct}
    if weighed and choice.weight is not None:
        data["weight"] = _number(weight_text(choice.weight))  # a percentage, as GIFT's %50% and Moodle write it
    if choice.tolerance:
        data["tolerance"] = _number(f"{choice.tolerance.normalize():f}")
    if choice.match:
        data["match"] = choice.match
    return data


def _number(text):
    """A JSON number of a decimal text: an int when whole, else a float (which keeps these digits)."""
    return float(text) if "." in text else int(text)


def _export_deck_data(deck, myths_left_out=()):
    cards = sorted((c for c in deck.cards.all() if not c.is_retired), key=lambda c: (c.position, c.key))
    return {
        "title": deck.title,
        "source": _source_name(deck),
        "cards": [_card_data(card, card.pk in myths_left_out) for card in cards],
    }


def _card_data(card, without_myth=False):
    parts = {name: getattr(card, name) for name in CARD_PARTS}
    if without_myth:
        parts.update(misconception="", correction="")
    data = {"key": card.key, **parts}
    if card.markup != Markup.PLAIN:
        data["markup"] = card.markup
    if card.cloze is not None:
        data["cloze"] = card.cloze
    return _with_topics(card, data)


def _with_topics(item, data):
    # The key only when there are topics, so exports of untagged content (the seed) keep their
    # bytes; names sorted in Python because databases disagree on collation.
    if names := sorted(topic.name for topic in item.topics.all()):
        data["topics"] = names
    return data
