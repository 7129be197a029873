"""The forms of one's own content: the import page's and the sharing form (at the end), and the
editor's, with the importer's rules: at least two choices, as many right as the kind asks, no
empty or repeated choice text, a card's misconception and correction both or neither, texts
and topic names within the import limits. Each problem is reported on the field it concerns.

The question form's choice rows are numbered fields (`choice_1`, `choice_2`, ...), each with a
`correct` radio button (one right answer) or checkbox (choose N, select all that apply) and,
under partial credit, a `weight_N` percentage; a typed question's rows are accepted answers
(`weight_N` its credit, `tolerance_N` for a number), a matching question's are pairs (the item
`choice_N`, empty for an extra option, and the option `match_N`); adding, removing and moving rows, and changing
the kind, is a round trip (`rearranged`) that re-renders the form without validating or saving,
so it works without JavaScript.
"""

from decimal import Decimal
from pathlib import Path

from django import forms
from django.conf import settings

from quiz.content.cloze import cloze_numbers
from quiz.content.documents import MAX_FILE_BYTES, MAX_TEXT, ContentError, file_too_large, topic_names
from quiz.content.markup import render, render_cloze, render_inline
from quiz.models import Markup, Visibility
from quiz.models.kinds import (
    PARTIAL_CREDIT_KINDS,
    SEVERAL_PICKS,
    TRUE_FALSE_TEXTS,
    TYPED,
    QuestionKind,
    kind_problem,
)

MAX_CHOICES = 12
NEW_QUESTION_CHOICES = 4


def _text(label, *, required=True, rows=2, help_text=""):
    return forms.CharField(
        label=label, required=required, max_length=MAX_TEXT, help_text=help_text,
        widget=forms.Textarea(attrs={"rows": rows}), error_messages={"required": f"{label}: write something here."},
    )


class TopicsField(forms.CharField):
    """Comma-separated topic names, cleaned to a list as an import's `Topics:` line is."""

    def __init__(self, **kwargs):
        super().__init__(required=False, help_text="Comma-separated, e.g. Networking, NVLink", **kwargs)

    def clean(self, value):
        try:
            return topic_names(super().clean(value), None, None)
        except ContentError as error:
            raise forms.ValidationError(error.message[0].upper() + error.message[1:]) from error


def _markup_field():
    # Not required: a form from before markup existed (or a script) sends none, meaning plain text.
    return forms.ChoiceField(
        label="Format", choices=Markup.choices, initial=Markup.PLAIN, required=False,
        help_text="For every text of this item. Markdown: **bold**, `code`, ``` code blocks ```, tables, "
        "[links](https://example.org). HTML: as Anki or Moodle write it. Either is shown cleaned of scripts and styles.",
    )


class PreviewMixin:
    """The item as learners will read it, from what the form holds now (typed or saved), before
    anything is checked or saved: (label, HTML) for each text that is not empty."""

    PREVIEWED = ()  # (field name, label)

    @property
    def markup(self):
        value = self["markup"].value()
        return value if value in Markup.values else Markup.PLAIN

    def _value(self, name):
        value = self[name].value() if name in self.fields else None
        return value[:MAX_TEXT] if isinstance(value, str) else ""

    @property
    def reads_as_typed(self):
        """Whether learners read the texts as they are typed (plain text): the preview then
        shows only when asked for."""
        return self.markup == Markup.PLAIN

    def preview(self):
        parts = [(label, render(self._value(name), self.markup)) for name, label in self.PREVIEWED]
        return [(label, html) for label, html in parts if html]

    def clean_markup(self):
        return self.cleaned_data["markup"] or Markup.PLAIN


def topics_text(item):
    return ", ".join(topic.name for topic in item.topics.all())


class RightChoicesField(forms.TypedMultipleChoiceField):
    """The numbers of the choices marked right; an empty value (no radio ticked) is none."""

    def to_python(self, value):
        return [item for item in super().to_python(value) if item != ""]


class QuestionForm(PreviewMixin, forms.Form):
    PREVIEWED = (("stem", "Question"),)

    stem = _text("Question", rows=3)
    markup = _markup_field()
    # Not required: a form from before kinds existed (or a script) sends none, meaning single answer.
    kind = forms.ChoiceField(
        label="Kind", choices=QuestionKind.choices, initial=QuestionKind.SINGLE, required=False,
    )
    partial_credit = forms.BooleanField(
        label="Partial credit", required=False,
        help_text="Select all that apply: each pick earns its choice's weight (by default +1/k for each right "
        "choice, -1/k for each wrong one, k the right ones); never below nothing.",
    )
    PAIRS_HELP = "Each right pair earns its share of the mark; without partial credit, only every pair right earns it."
    case_sensitive = forms.BooleanField(label="Letter case matters", required=False)
    explanation = _text("Explanation", required=False, help_text="Shown after the learner answers.")
    topics = TopicsField()

    def __init__(self, data=None, *, rows=None, **kwargs):
        """`rows` are the (text, is_correct[, weight as the percentage the form shows[, tolerance[,
        option]]]) choices an unbound form shows; a bound form reads its rows from `data`."""
        super().__init__(data, **kwargs)
        count = _row_count(data) if data is not None else len(rows)
        for number in range(1, count + 1):
            self.fields[f"choice_{number}"] = _text(f"Choice {number}", required=False, rows=1)
            self.fields[f"weight_{number}"] = forms.DecimalField(
                label=f"Weight of choice {number} (%)", required=False, min_value=-100, max_value=100,
                max_digits=10, decimal_places=5,
            )
            self.fields[f"tolerance_{number}"] = forms.DecimalField(
                label=f"Tolerance of value {number}", required=False, min_value=0, max_digits=20, decimal_places=10,
            )
            self.fields[f"match_{number}"] = forms.CharField(
                label=f"Option of item {number}", required=False, max_length=MAX_TEXT,
            )
        # The right choices' numbers: one radio button, or a checkbox each for the kinds with several.
        self.fields["correct"] = RightChoicesField(
            label="Correct choice", coerce=int, required=False, choices=[(n, n) for n in range(1, count + 1)]
        )
        if data is None:
            self.initial.update((f"choice_{n}", row[0]) for n, row in enumerate(rows, start=1))
            self.initial.update((f"weight_{n}", row[2]) for n, row in enumerate(rows, start=1) if len(row) > 2)
            self.initial.update((f"tolerance_{n}", row[3]) for n, row in enumerate(rows, start=1) if len(row) > 3)
            self.initial.update((f"match_{n}", row[4]) for n, row in enumerate(rows, start=1) if len(row) > 4)
            self.initial["correct"] = [n for n, row in enumerate(rows, start=1) if row[1]]
        self.choice_count = count

    @classmethod
    def for_question(cls, question):
        initial = {
            "stem": question.stem, "explanation": question.explanation, "topics": topics_text(question),
            "kind": question.kind, "partial_credit": question.partial_credit, "case_sensitive": question.case_sensitive,
            "markup": question.markup,
        }
        rows = [
            (c.text, c.is_correct, _percent(c.weight), _plain_number(c.tolerance), c.match) for c in question.choices.all()
        ]
        return cls(initial=initial, rows=rows)

    @classmethod
    def blank(cls):
        return cls(rows=[("", False)] * NEW_QUESTION_CHOICES)

    @classmethod
    def rearranged(cls, data, operation):
        """The form as the user left it, with one change: to its choice rows, "add", or
        "remove-N", "up-N", "down-N" for row N; or "kind", the kind chosen (a true/false
        question gets the choices True and False). Unbound: nothing is checked or saved yet."""
        count = _row_count(data)
        correct = set(data.getlist("correct")) if hasattr(data, "getlist") else {data.get("correct", "")}
        # Weights stay as typed (a percentage, or text the save will refuse with a message).
        rows = [
            (data.get(f"choice_{n}", ""), str(n) in correct, data.get(f"weight_{n}") or None,
             data.get(f"tolerance_{n}") or None, data.get(f"match_{n}", ""))
            for n in range(1, count + 1)
        ]
        action, _, number = operation.partition("-")
        index = int(number) - 1 if number.isascii() and number.isdigit() else -1
        if action == "add" and count < MAX_CHOICES:
            rows.append(("", False, None, None, ""))
        elif action == "remove" and 0 <= index < count:
            rows.pop(index)
        elif action in ("up", "down") and 0 <= index < count:
            other = index - 1 if action == "up" else index + 1
            if 0 <= other < count:
                rows[index], rows[other] = rows[other], rows[index]
        elif action == "kind" and data.get("kind") == QuestionKind.TRUE_FALSE:
            was_true = next((right for text, right, *_ in rows if text == TRUE_FALSE_TEXTS[0]), False)
            rows = [(TRUE_FALSE_TEXTS[0], was_true, None), (TRUE_FALSE_TEXTS[1], not was_true, None)]
        # Partial credit stays ticked only where the new kind has it.
        partial = bool(data.get("partial_credit")) and data.get("kind") in PARTIAL_CREDIT_KINDS
        initial = {name: data.get(name, "") for name in ("stem", "explanation", "topics", "kind", "markup")}
        initial["partial_credit"] = partial
        initial["case_sensitive"] = bool(data.get("case_sensitive"))
        return cls(initial=initial, rows=rows)

    def preview(self):
        """The stem, each choice (inline, as in its label; the typed and matching kinds' rows
        stay plain text, as learners see them) and the explanation."""
        stem, explanation = super().preview(), render(self._value("explanation"), self.markup)
        inline = Markup.PLAIN if self.typed or self.matching else self.markup
        choices = [
            (f"Choice {number}", render_inline(self._value(f"choice_{number}"), inline))
            for number in range(1, self.choice_count + 1)
        ]
        parts = [*stem, *((label, html) for label, html in choices if html)]
        return parts + ([("Explanation", explanation)] if explanation else [])

    @property
    def current_kind(self):
        return (self.data.get("kind") if self.is_bound else self.initial.get("kind")) or QuestionKind.SINGLE

    @property
    def several_right(self):
        """Whether the rows offer a checkbox each (choose N, select all), or one radio button."""
        return self.current_kind in SEVERAL_PICKS

    @property
    def shows_weights(self):
        """A weight per row: under partial credit, and a typed question's credit per accepted answer."""
        partial = self.data.get("partial_credit") if self.is_bound else self.initial.get("partial_credit")
        return self.typed or (self.current_kind == QuestionKind.SELECT_ALL and bool(partial))

    @property
    def typed(self):
        """A typed question: its rows are accepted answers (a credit each, a tolerance for numbers), none marked."""
        return self.current_kind in TYPED

    @property
    def matching(self):
        """A matching question: its rows are pairs (item, option), none marked."""
        return self.current_kind == QuestionKind.MATCHING

    @property
    def offers_partial_credit(self):
        return self.current_kind in PARTIAL_CREDIT_KINDS

    @property
    def partial_credit_help(self):
        return self.PAIRS_HELP if self.matching else self.fields["partial_credit"].help_text

    @property
    def choice_rows(self):
        """[(number, text field, is marked correct, weight field, tolerance field, option field)] for the template."""
        marked = {str(value) for value in (self["correct"].value() or [])}
        return [
            (n, self[f"choice_{n}"], str(n) in marked, self[f"weight_{n}"], self[f"tolerance_{n}"], self[f"match_{n}"])
            for n in range(1, self.choice_count + 1)
        ]

    def clean_kind(self):
        return self.cleaned_data["kind"] or QuestionKind.SINGLE

    def clean(self):
        cleaned = super().clean()
        kind = cleaned.get("kind") or QuestionKind.SINGLE
        if kind == QuestionKind.MATCHING:
            return self._clean_pairs(cleaned)
        texts = {}
        for number in range(1, self.choice_count + 1):
            name = f"choice_{number}"
            text = cleaned.get(name)
            if text == "":
                self.add_error(name, f"Choice {number} has no text: write it, or remove the choice.")
            elif text in texts:
                self.add_error(name, f"Same text as choice {texts[text]}: learners could not tell them apart.")
            elif text is not None:
                texts[text] = number
        correct = cleaned.get("correct") or []
        if kind in TYPED:
            return self._clean_accepted(cleaned, kind)
        if self.choice_count < 2:
            self.add_error(None, "A question needs at least 2 choices: add another.")
        partial = cleaned["partial_credit"] = bool(cleaned.get("partial_credit")) and kind == QuestionKind.SELECT_ALL
        cleaned["case_sensitive"] = False  # a box left ticked from a short answer (no JavaScript, no Apply)
        if "correct" in self.errors:
            pass
        elif not correct:
            self.add_error("correct", "Mark the one correct choice." if kind not in SEVERAL_PICKS else "Mark the correct choices.")
        elif kind not in SEVERAL_PICKS and len(correct) > 1:
            self.add_error("correct", f"Mark one correct choice: a {QuestionKind(kind).label.lower()} question has one.")
        cleaned["choices"] = [
            (cleaned.get(f"choice_{n}"), n in correct, _share(cleaned.get(f"weight_{n}")) if partial else None)
            for n in range(1, self.choice_count + 1)
        ]
        if not self.errors and (problem := kind_problem(kind, cleaned["choices"], partial_credit=partial)):
            self.add_error(None, f"{problem[0].upper()}{problem[1:]}.")
        return cleaned

    def _clean_accepted(self, cleaned, kind):
        """A typed question's rows: accepted answers with their credit (empty: 100%) and, for a
        number, its tolerance; right means full credit. The importers' rules check them."""
        cleaned["partial_credit"] = False
        cleaned["case_sensitive"] = bool(cleaned.get("case_sensitive")) and kind == QuestionKind.SHORT_ANSWER
        cleaned["choices"] = []
        for n in range(1, self.choice_count + 1):
            share = _share(cleaned.get(f"weight_{n}"))
            tolerance = cleaned.get(f"tolerance_{n}") if kind == QuestionKind.NUMERICAL else None
            answer = (cleaned.get(f"choice_{n}"), share is None or share >= 1, share)
            cleaned["choices"].append((*answer, tolerance or Decimal(0)) if kind == QuestionKind.NUMERICAL else answer)
        if not self.errors and (problem := kind_problem(kind, cleaned["choices"])):
            self.add_error(None, f"{problem[0].upper()}{problem[1:]}.")
        return cleaned

    def _clean_pairs(self, cleaned):
        """A matching question's rows: an item (its text) with the option it pairs with; a row
        with an option and no item is an extra option, which pairs with nothing. The learner
        sees each option once, so two items may share one."""
        cleaned["case_sensitive"] = False
        cleaned["partial_credit"] = bool(cleaned.get("partial_credit"))
        items, pairs = {}, []
        for n in range(1, self.choice_count + 1):
            item, option = cleaned.get(f"choice_{n}"), cleaned.get(f"match_{n}")
            if item is None or option is None:
                continue  # refused by its field already
            if not item and not option:
                self.add_error(f"choice_{n}", f"Row {n} is empty: write an item and its option, or remove the row.")
            elif not option:
                self.add_error(f"match_{n}", f"Item {n} needs the option it pairs with.")
            elif item in items:
                self.add_error(f"choice_{n}", f"Same item as row {items[item]}: learners could not tell them apart.")
            else:
                items[item] = n
            pairs.append((item, bool(item), None, None, option))
        cleaned["choices"] = pairs
        if not self.errors and (problem := kind_problem(QuestionKind.MATCHING, pairs, partial_credit=cleaned["partial_credit"])):
            self.add_error(None, f"{problem[0].upper()}{problem[1:]}.")
        return cleaned


def _plain_number(value):
    return None if value is None else f"{value.normalize():f}"


def _share(percent):
    """A weight typed as a percentage (50) as the share a choice keeps (0.5); None stays None."""
    return None if percent is None else (percent / 100).quantize(Decimal("0.0000001"))


def _percent(share):
    """A stored share (0.7000000) as the percentage the form shows ("70")."""
    return None if share in (None, "") else f"{(Decimal(share) * 100).normalize():f}"


def _row_count(data):
    """How many choice rows a submitted form has: `choice_1`, `choice_2`, ... while present."""
    count = 0
    while count < MAX_CHOICES and f"choice_{count + 1}" in data:
        count += 1
    return count


class RenameForm(forms.Form):
    title = forms.CharField(
        label="Title", max_length=255, error_messages={"required": "Title: write something here."},
    )


class CardForm(PreviewMixin, forms.Form):
    PREVIEWED = (("front", "Front"), ("back", "Back"), ("misconception", "Misconception"), ("correction", "Correction"))
    # Cards of a cloze note previewed one by one; a note with more says how many more.
    MAX_PREVIEWED_CLOZE = 10

    front = _text("Front")
    back = _text("Back")
    misconception = _text(
        "Misconception", required=False, help_text="A wrong belief about it, shown as a myth in the drill."
    )
    correction = _text("Correction", required=False, help_text="Why the misconception is wrong.")
    markup = _markup_field()
    topics = TopicsField()

    @property
    def reads_as_typed(self):
        """A front with cloze deletions never reads as typed: each number is a card."""
        return super().reads_as_typed and not cloze_numbers(self._value("front"))

    def preview(self):
        """A cloze note as its cards: each one's question (its deletion blank) and answer (the
        deletion revealed), as the study page shows them, and the back as their extra."""
        front = self._value("front")
        numbers = cloze_numbers(front)
        if not numbers:
            return super().preview()
        parts = []
        for number in numbers[: self.MAX_PREVIEWED_CLOZE]:
            parts.append((f"Card {number}: question", render_cloze(front, self.markup, number, revealed=False)))
            parts.append((f"Card {number}: answer", render_cloze(front, self.markup, number, revealed=True)))
        if (more := len(numbers) - self.MAX_PREVIEWED_CLOZE) > 0:
            parts.append(("More cards", f"{more} more, one per cloze number"))
        others = (("back", "Extra"), ("misconception", "Misconception"), ("correction", "Correction"))
        parts += [(label, render(self._value(name), self.markup)) for name, label in others]
        return [(label, html) for label, html in parts if html]

    @classmethod
    def for_card(cls, card):
        initial = {name: getattr(card, name) for name in ("front", "back", "misconception", "correction", "markup")}
        return cls(initial={**initial, "topics": topics_text(card)})

    @classmethod
    def as_typed(cls, data):
        """The form as the user left it, unbound: for its preview, nothing checked or saved."""
        return cls(initial={name: data.get(name, "") for name in cls.base_fields})

    def clean(self):
        cleaned = super().clean()
        misconception, correction = cleaned.get("misconception"), cleaned.get("correction")
        if misconception and correction == "":
            self.add_error("correction", "Say why the misconception is wrong: a card has both, or neither.")
        if correction and misconception == "":
            self.add_error("misconception", "Write the misconception this corrects: a card has both, or neither.")
        return cleaned


# The formats the import page offers, by the names `reading.FORMATS` knows them.
IMPORT_FORMATS = [
    ("quiz", "Quiz document"), ("deck", "Deck document"), ("json", "Export JSON"), ("gift", "Moodle GIFT"),
    ("aiken", "Aiken"), ("csv", "CSV or TSV with a header"), ("anki", "Anki plain-text export"),
    ("apkg", "Anki package (.apkg, .colpkg)"), ("moodle", "Moodle XML"),
]


# --- Importing and sharing ------------------------------------------------------------------------

class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several uploads in one field, as Django's documentation shows: a list, empty when none."""

    def clean(self, data, initial=None):
        uploads = data if isinstance(data, (list, tuple)) else [data] if data else []
        return [super(MultipleFileField, self).clean(upload, initial) for upload in uploads]


class ImportForm(forms.Form):
    """Files to upload or text to paste (or both), read in one format or recognised by content."""

    MAX_FILES = 10

    files = MultipleFileField(
        widget=MultipleFileInput(attrs={"accept": ".txt,.md,.json,.gift,.csv,.tsv,.aiken,.apkg,.colpkg,.xml"}), required=False,
        label="Files", help_text="Quiz or deck documents, export JSON, Moodle GIFT or XML, Aiken, CSV/TSV, Anki text export or "
        "package.",
    )
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 12, "spellcheck": "false", "maxlength": MAX_FILE_BYTES}),
                           required=False, label="Or paste text")
    name = forms.CharField(required=False, max_length=200, label="Name of the pasted text",
                           help_text="Pasting again under the same name updates what it made.")
    format = forms.ChoiceField(choices=[("", "Recognise from the content"), *IMPORT_FORMATS], required=False)

    def clean_files(self):
        uploads = self.cleaned_data["files"]
        if len(uploads) > self.MAX_FILES:
            raise forms.ValidationError(f"At most {self.MAX_FILES} files at once.")
        if len(uploads) > 1 and sum(upload.size for upload in uploads) > settings.MAX_PACKAGE_BYTES:
            raise forms.ValidationError(f"At most {settings.MAX_PACKAGE_BYTES // 1_000_000} MB in all at once.")
        return uploads

    def clean_text(self):
        text = self.cleaned_data["text"]
        if len(text.encode("utf-8")) > MAX_FILE_BYTES:
            raise forms.ValidationError(f"Paste at most {MAX_FILE_BYTES // 1_000_000} MB of text.")
        return text

    def clean(self):
        data = super().clean()
        for upload in data.get("files") or []:
            if not Path(upload.name).name.strip(". "):
                self.add_error("files", f"“{upload.name}” is not a usable file name: rename the file.")
            head = upload.read(4)
            upload.seek(0)
            # The format chosen decides the limit: a text file that begins as a zip is still text.
            if too_large := file_too_large(upload.name, upload.size, head, data.get("format")):
                self.add_error("files", f"{too_large}.")
        if not data.get("files") and not (data.get("text") or "").strip():
            raise forms.ValidationError("Choose a file or paste some text.")
        # The name identifies what the paste makes among your content: pasting again under it
        # updates that. So it is asked for, never defaulted (two pastes would replace each other).
        if (data.get("text") or "").strip() and not Path(data.get("name") or "").name.strip(". "):
            self.add_error("name", "Give the pasted text a name, e.g. “Week 3 networking”.")
        return data

    def documents(self):
        """[(name, bytes)]: each upload under its file name, the pasted text under its name."""
        files = [(upload.name, upload.read()) for upload in self.cleaned_data["files"]]
        if self.cleaned_data["text"].strip():
            files.append((Path(self.cleaned_data["name"]).name.strip(), self.cleaned_data["text"].encode("utf-8")))
        return files


class VisibilityForm(forms.Form):
    visibility = forms.ChoiceField(choices=Visibility.choices)

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        if not user.is_instructor:  # only an instructor has classes to share with
            self.fields["visibility"].choices = [c for c in Visibility.choices if c[0] != Visibility.CLASSES]
