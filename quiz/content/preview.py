"""What an import would do, before it is done: for each set or deck of the parsed documents, the
items it would add, change (with the changed words marked), move and remove, what saving would
refuse (removing an item learners have answered or studied), and every item as it will be saved
(a question's choices and which are marked right, a card's four sides), so that a wrong answer
key is caught before it is applied.

The preview finds the set or deck and matches its items exactly as saving does
(`sync.existing_container`, `sync.match_items`), so what it shows is what applying writes. It
only reads, in a few queries per document whatever its size. Its `fingerprint` names the state
of the content it compared with: applying refuses when that changed since (another import, an
edit), so nothing is applied that was not previewed.
"""

import difflib
import hashlib
import re
from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Exists, OuterRef, Prefetch

from ..models import AttemptSlot, Card, Choice, Deck, MemoryState, PoolQuestion, Question, QuestionSet, SourceDocument
from ..models.kinds import TYPED, QuestionKind, weights_of
from .cloze import cloze_back, cloze_front
from .documents import CARD_PARTS, weight_text
from .media import with_known_media
from .sync import existing_container, match_items, removed_and_kept

CARD_LABELS = {"front": "Front", "back": "Back", "misconception": "Misconception", "correction": "Correction"}
# Items shown in full per set or deck: enough to read any real set through, few enough that the
# page of a 5,000-item file still loads.
MAX_SHOWN_ITEMS = 500


@dataclass
class ItemPreview:
    """One item: its text as it will be, and for a changed item each changed part as segments
    [(kind, text)] where kind is "same", "removed" or "added"."""

    line: int | None
    title: str
    changes: list = field(default_factory=list)  # [(part label, segments)]


@dataclass
class ShownChoice:
    """A choice as the preview shows it: `right` is how the file marks it (a typed question's
    full-credit answer, every pair of a matching question); `credit` its share under partial
    credit ("+50%") or a typed answer's partial credit ("50%"); `match` a pair's option."""

    text: str
    right: bool
    credit: str = ""
    tolerance: str = ""
    match: str | None = None


@dataclass
class ShownItem:
    """An item of the file as it will be saved: `status` is "new", "changed" or "unchanged";
    `item` the ParsedQuestion or ParsedCard; a question's kind and choices as the page lists them."""

    line: int | None
    status: str
    item: object
    kind: str = ""
    choices: list = field(default_factory=list)


@dataclass
class DocumentPreview:
    document: object
    existing: object  # the set or deck this updates, or None when it is new
    added: list = field(default_factory=list)
    changed: list = field(default_factory=list)
    removed: list = field(default_factory=list)
    kept: list = field(default_factory=list)  # rows no item claims, kept because items were skipped
    unchanged: int = 0
    moved: int = 0  # items that keep their text but change place
    refusals: list = field(default_factory=list)  # why saving would stop
    state: str = ""  # the compared content's state, for the fingerprint
    items: list = field(default_factory=list)  # ShownItem, in order, at most MAX_SHOWN_ITEMS

    @property
    def noun(self):
        return "questions" if self.document.kind == SourceDocument.Kind.QUIZ else "cards"

    @property
    def is_quiz(self):
        return self.document.kind == SourceDocument.Kind.QUIZ

    @property
    def items_not_shown(self):
        return len(self.document.items) - len(self.items)

def preview_documents(documents, *, owner):
    return [preview_document(document, owner=owner) for document in documents]


def fingerprint(previews, skipped=()):
    """A short digest of the state of everything `previews` compared with (and of the problems
    of the items `skipped`, which are part of what the preview showed)."""
    lines = [preview.state for preview in previews] + list(skipped)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:32]


def preview_document(document, *, owner):
    quiz = document.kind == SourceDocument.Kind.QUIZ
    existing = existing_container(QuestionSet if quiz else Deck, document, owner)
    document = with_known_media(existing, document)  # as saving will write it: images it has by their names
    preview = DocumentPreview(document, existing)
    rows = _rows(existing, quiz) if existing else []
    parts = _question_parts if quiz else _card_parts
    preview.state = _state(existing, rows, parts)
    _refuse_another_kind(preview, owner)
    # Cards are matched as saving matches them (sync._save_cards): a cloze note's cards by their number too.
    pairs, leftover = match_items(
        document, rows, text=(lambda item: item.stem) if quiz else (lambda item: (item.front, item.cloze))
    )
    for position, (parsed, row) in zip(document.positions(), pairs):
        title = _title(parsed, quiz)
        if row is None:
            preview.added.append(ItemPreview(parsed.line, title))
            _show(preview, parsed, "new")
            continue
        before, after = parts(row, from_row=True), parts(parsed, from_row=False)
        changed = _changes(before, after, parsed.topics is None)
        if not quiz and (changed or row.cloze != parsed.cloze):
            changed = _card_changes(before, row.cloze, after, parsed.cloze, parsed.topics is None)
        if changed:
            preview.changed.append(ItemPreview(parsed.line, title, changed))
        else:
            preview.unchanged += 1
            preview.moved += row.position != position
        _show(preview, parsed, "changed" if changed else "unchanged")
    removed, kept = removed_and_kept(document, leftover)
    preview.removed = [ItemPreview(None, _title(row, quiz)) for row in removed]
    preview.kept = [ItemPreview(None, _title(row, quiz)) for row in kept]
    _refuse_removing_history(preview, removed, quiz)
    return preview


def _title(item, quiz):
    """An item as its lists name it: a question's stem, a card's front, a cloze card's question
    (its deletion blank: a list never shows a note's markers, nor a card's own answer)."""
    if quiz:
        return item.stem
    return item.front if item.cloze is None else cloze_front(item.front, item.cloze)


def _card_changes(before, before_cloze, after, after_cloze, keeps_topics):
    """The changes of a card whose text changed, as learners read it (`_shown_card`). A cloze
    card whose note changed elsewhere (another deletion renumbered) reads the same: its
    question is listed, unchanged, since saving still writes the note's new text."""
    shown = _shown_card(after, after_cloze)
    return _changes(_shown_card(before, before_cloze), shown, keeps_topics) or [
        (label, [("same", text)]) for label, text in list(shown.items())[:1]
    ]


def _shown_card(parts, cloze):
    """A card's parts (_card_parts) as the changes list shows them: a cloze card's front as its
    question (its deletion blank) and its answer (the text with the deletion filled in), its
    back as the extra shown with the answer."""
    if cloze is None:
        return parts
    front, back = parts["Front"], parts["Back"]
    rest = {label: text for label, text in parts.items() if label not in ("Front", "Back")}
    return {"Question": cloze_front(front, cloze), "Answer": cloze_back(front, cloze, mark=("", "")), "Extra": back, **rest}


def _show(preview, item, status):
    if len(preview.items) >= MAX_SHOWN_ITEMS:
        return
    if not preview.is_quiz:
        kind = "" if item.cloze is None else f"cloze {item.cloze}"
        preview.items.append(ShownItem(item.line, status, item, kind))
        return
    kind = QuestionKind(item.kind).label + (", partial credit" if item.partial_credit else "")
    preview.items.append(ShownItem(item.line, status, item, kind, shown_choices(item)))


def shown_choices(question):
    """[ShownChoice] of a parsed question: its choices (text, right[, weight[, tolerance[, match]]])."""
    choices = [(*choice, None, None, None)[:5] for choice in question.choices]
    default_weights = weights_of([{"correct": right, "weight": weight} for _, right, weight, _, _ in choices])
    shown = []
    for (text, right, weight, tolerance, match), default in zip(choices, default_weights):
        if match:
            shown.append(ShownChoice(text, right, match=match))
            continue
        credit = ""
        if question.kind in TYPED and weight is not None:
            credit = f"{weight_text(weight)}%"
        elif question.kind == QuestionKind.SELECT_ALL and question.partial_credit:
            share = weight if weight is not None else default
            credit = ("+" if share > 0 else "") + f"{weight_text(share)}%"
        around = f"± {Decimal(tolerance).normalize():f}" if tolerance else ""
        shown.append(ShownChoice(text, right, credit, around))
    return shown


def _state(container, rows, parts):
    """Everything of the set or deck the preview compared with: its title, and each item's place
    and every part of its text."""
    if container is None:
        return "new"
    items = [(row.pk, row.position, parts(row, from_row=True)) for row in sorted(rows, key=lambda row: row.pk)]
    return f"{type(container).__name__}:{container.pk}:{container.title}:{items!r}"


def _refuse_another_kind(preview, owner):
    document = preview.document
    if document.file_name is None:
        return
    source = SourceDocument.objects.filter(owner=owner, file_name=document.file_name).exclude(kind=document.kind).first()
    if source:
        preview.refusals.append(f"{document.file_name} was imported as a {source.kind} before, now it reads as a {document.kind}")


def _refuse_removing_history(preview, leftover, quiz):
    """Saving never deletes what learners answered, studied or an instructor assigned."""
    if not leftover:
        return
    pks = [row.pk for row in leftover]
    if quiz:
        kept = Question.objects.filter(pk__in=pks).filter(
            Exists(AttemptSlot.objects.filter(question=OuterRef("pk")))
            | Exists(MemoryState.objects.filter(question=OuterRef("pk")))
            | Exists(PoolQuestion.objects.filter(question=OuterRef("pk")))
        )
    else:
        kept = Card.objects.filter(pk__in=pks).filter(Exists(MemoryState.objects.filter(card=OuterRef("pk"))))
    texts = kept.order_by("position").values_list("stem", flat=True) if quiz else (
        front if cloze is None else cloze_front(front, cloze) for front, cloze in kept.order_by("position").values_list("front", "cloze"))
    for text in texts:
        preview.refusals.append(f"cannot remove “{text[:80]}”: learners have answered or studied it (or it is in a question pool)")


def _rows(container, quiz):
    if quiz:
        choices = Prefetch("choices", Choice.objects.order_by("position", "pk"))
        return list(container.questions.current().prefetch_related(choices, "topics"))
    return list(Card.objects.current().filter(deck=container).prefetch_related("topics"))


def _question_parts(item, *, from_row):
    if from_row:
        choices = [(choice.text, choice.is_correct, choice.weight, choice.tolerance, choice.match) for choice in item.choices.all()]
        topics = sorted(topic.name for topic in item.topics.all())
    else:
        choices, topics = item.choices, sorted(item.topics or [])
    marked = "\n".join(_marked(*choice) for choice in choices)
    kind = QuestionKind(item.kind).label + (", partial credit" if item.partial_credit else "")
    return {
        "Question": item.stem, "Kind": kind, "Choices": marked, "Explanation": item.explanation, "Topics": ", ".join(topics)
    }


def _marked(text, right, weight=None, tolerance=None, match=""):
    """A choice as the preview lists it: ✓ for a right one, its weight under partial credit, a
    number's tolerance."""
    around = f" ± {Decimal(tolerance).normalize():f}" if tolerance else ""
    if match:
        return f"{text or '(extra option)'} → {match}"
    return f"{'✓' if right else '·'} {text}{around}" + ("" if weight is None else f" ({weight_text(weight)}%)")


def _card_parts(item, *, from_row):
    parts = {CARD_LABELS[name]: getattr(item, name) for name in CARD_PARTS}
    names = [topic.name for topic in item.topics.all()] if from_row else (item.topics or [])
    parts["Topics"] = ", ".join(sorted(names))
    return parts


def _changes(before, after, keeps_topics):
    """[(label, segments)] for each part whose text differs (a part only one side has is empty
    on the other: a card that became a cloze card). A source that names no topics leaves the
    row's topics as they are, so they are not a change."""
    labels = [*after, *(label for label in before if label not in after)]
    return [
        (label, word_diff(before.get(label, ""), after.get(label, "")))
        for label in labels
        if before.get(label, "") != after.get(label, "") and not (label == "Topics" and keeps_topics)
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
