"""What an import would do, before it is done: for each set or deck of the parsed documents, the
items it would add, change (with the changed words marked) and remove.

The preview matches items exactly as saving does (`sync.match_items`), so what it shows is
what applying writes. It only reads; refusals that only saving can find (removing an item
learners have answered) come from a dry run of the save itself (`importing.import_parsed`).
"""

import difflib
import re
from dataclasses import dataclass, field

from django.db.models import Prefetch

from ..models import Card, Choice, Deck, QuestionSet, SourceDocument
from .documents import CARD_PARTS
from .sync import match_items

CARD_LABELS = {"front": "Front", "back": "Back", "misconception": "Misconception", "correction": "Correction"}


@dataclass
class ItemPreview:
    """One item: its text as it will be, and for a changed item each changed part as segments
    [(kind, text)] where kind is "same", "removed" or "added"."""

    line: int | None
    title: str
    changes: list = field(default_factory=list)  # [(part label, segments)]


@dataclass
class DocumentPreview:
    document: object
    existing: object  # the set or deck this updates, or None when it is new
    added: list = field(default_factory=list)
    changed: list = field(default_factory=list)
    removed: list = field(default_factory=list)
    unchanged: int = 0

    @property
    def noun(self):
        return "questions" if self.document.kind == SourceDocument.Kind.QUIZ else "cards"

    @property
    def changes_anything(self):
        return bool(self.added or self.changed or self.removed or self.existing is None
                    or self.existing.title != self.document.title)


def preview_documents(documents, *, owner):
    return [preview_document(document, owner=owner) for document in documents]


def preview_document(document, *, owner):
    quiz = document.kind == SourceDocument.Kind.QUIZ
    existing = _existing_container(QuestionSet if quiz else Deck, document, owner)
    preview = DocumentPreview(document, existing)
    rows = _rows(existing, quiz) if existing else []
    parts = _question_parts if quiz else _card_parts
    pairs, leftover = match_items(document, rows, text=(lambda item: item.stem) if quiz else (lambda item: item.front))
    for parsed, row in pairs:
        title = parsed.stem if quiz else parsed.front
        if row is None:
            preview.added.append(ItemPreview(parsed.line, title))
            continue
        changes = _changes(parts(row, from_row=True), parts(parsed, from_row=False), parsed.topics is None)
        if changes:
            preview.changed.append(ItemPreview(parsed.line, title, changes))
        else:
            preview.unchanged += 1
    preview.removed = [ItemPreview(None, row.stem if quiz else row.front) for row in leftover]
    return preview


def _existing_container(model, document, owner):
    if document.file_name is None:
        return model.objects.filter(owner=owner, source=None, title=document.title).order_by("pk").first()
    return model.objects.filter(owner=owner, source__file_name=document.file_name).first()


def _rows(container, quiz):
    if quiz:
        choices = Prefetch("choices", Choice.objects.order_by("position", "pk"))
        return list(container.questions.current().prefetch_related(choices, "topics"))
    return list(Card.objects.current().filter(deck=container).prefetch_related("topics"))


def _question_parts(item, *, from_row):
    if from_row:
        choices = [(choice.text, choice.is_correct) for choice in item.choices.all()]
        topics = sorted(topic.name for topic in item.topics.all())
    else:
        choices, topics = item.choices, sorted(item.topics or [])
    marked = "\n".join(f"{'✓' if right else '·'} {text}" for text, right in choices)
    return {"Question": item.stem, "Choices": marked, "Explanation": item.explanation, "Topics": ", ".join(topics)}


def _card_parts(item, *, from_row):
    parts = {CARD_LABELS[name]: getattr(item, name) for name in CARD_PARTS}
    names = [topic.name for topic in item.topics.all()] if from_row else (item.topics or [])
    parts["Topics"] = ", ".join(sorted(names))
    return parts


def _changes(before, after, keeps_topics):
    """[(label, segments)] for each part whose text differs. A source that names no topics
    leaves the row's topics as they are, so they are not a change."""
    return [
        (label, word_diff(before[label], after[label]))
        for label in after
        if before[label] != after[label] and not (label == "Topics" and keeps_topics)
    ]


WORDS = re.compile(r"\s+|\S+")


def word_diff(old, new):
    """[(kind, text)]: the words of `old` and `new` as "same", "removed" or "added" runs."""
    old_words, new_words = WORDS.findall(old), WORDS.findall(new)
    segments = []
    for op, a1, a2, b1, b2 in difflib.SequenceMatcher(None, old_words, new_words, autojunk=False).get_opcodes():
        if op == "equal":
            segments.append(("same", "".join(old_words[a1:a2])))
            continue
        if a2 > a1:
            segments.append(("removed", "".join(old_words[a1:a2])))
        if b2 > b1:
            segments.append(("added", "".join(new_words[b1:b2])))
    return segments
