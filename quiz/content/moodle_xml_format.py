"""Moodle XML: the format Moodle's question bank exports by default, read and written.

    <?xml version="1.0" encoding="UTF-8"?>
    <quiz>
      <question type="category">
        <category><text>$course$/top/Networking</text></category>
      </question>
      <question type="multichoice">
        <name><text>Q1</text></name>
        <questiontext format="html">
          <text><![CDATA[<p>Which layer routes packets? <img src="@@PLUGINFILE@@/osi.png" alt="OSI"></p>]]></text>
          <file name="osi.png" path="/" encoding="base64">iVBORw0KGgo...</file>
        </questiontext>
        <generalfeedback format="html"><text>Routing is layer 3.</text></generalfeedback>
        <single>true</single>
        <answer fraction="100" format="html"><text>Network</text></answer>
        <answer fraction="0" format="html"><text>Transport</text></answer>
      </question>
    </quiz>

What the app reads, as Moodle's own importer does (question/format/xml/format.php):
* multichoice with <single>true</single>: one answer worth 100%, the others 0%: a single-answer
  question; with <single>false</single>, Moodle's multiple-answer question: select all that apply
  with partial credit, each answer's fraction its weight;
* truefalse, shortanswer (<usecase>1</usecase>: letter case matters), numerical (each answer a
  value with its <tolerance>; Moodle's `*` "any other answer" is dropped) and matching (each
  <subquestion> an item and its option, one without text an extra option; credit per pair);
* a question's topics are its category's path (`$course$/top/` left out, as GIFT's $CATEGORY)
  and its <tags>; the title is the file name's (Moodle XML has none);
* the text formats: html is kept as HTML and markdown as Markdown, written as they are (rendered
  and sanitised when shown, never here); plain_text, moodle_auto_format and wiki_like are plain
  text. A question has one markup, its question text's: another text of it is turned into that
  markup (plain text escaped into HTML, HTML reduced to its text);
* the general feedback is the explanation or, without one, the right answers' feedback;
* images: a <file> (base64) that a kept text of an HTML or Markdown question refers to as
  `@@PLUGINFILE@@/name` becomes a ParsedMedia of the document and the reference `media:name`
  (the name made safe, and prefixed with a piece of its hash when another image of the file
  already has it); Moodle 1.9's <image>/<image_base64> is appended to the question text as Moodle
  does. Other files (sounds, PDFs) and a plain-text question's images stay as written, with a warning.
Other kinds (essay, cloze, calculated, description, drag and drop, random...), a single-answer
question whose answers give partial credit or penalties, or which accepts several answers, are
skipped with a warning naming the question and its line, never silently dropped; hints,
combined feedback, penalties, grades, units and wrong answers' feedback are left out.

The XML is read by defusedxml's SAX parser with DTDs forbidden, so no file can declare entities
(the billion laughs) or refer to other files; every problem names the line of its element.
Only one question is held at a time. Pure: no database.
"""

import base64
import binascii
import hashlib
import re
from decimal import Decimal, InvalidOperation
from html import escape
from html.parser import HTMLParser
from io import BytesIO
from pathlib import PurePosixPath
from urllib.parse import quote, unquote
from xml.sax import SAXParseException
from xml.sax.handler import ContentHandler, ErrorHandler
from xml.sax.xmlreader import InputSource

from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden
from defusedxml import sax as defused_sax

from ..models import Markup, SourceDocument
from ..models.kinds import TRUE_FALSE_TEXTS, QuestionKind, parse_number
from .documents import (
    MAX_ITEMS,
    ContentError,
    ExportError,
    ParsedDocument,
    ParsedMedia,
    ParsedQuestion,
    Problems,
    check_choices,
    check_question_kind,
    check_text,
    check_topic,
    one_line,
    parse_weight,
    percents,
    shorten,
    source_file_name,
    title_from_file_name,
    weight_text,
)
from .gift_format import CATEGORY_CONTEXT
from .html_text import html_to_text

# A Moodle XML file, told by content: an XML declaration, or the <quiz> root right away.
LOOKS_LIKE_XML = re.compile(r"\s*(?:<\?xml\b|<quiz[\s>/])")
# A question holds a few dozen elements; far more is a broken or hostile file, refused before it
# fills the memory (one question is held at a time). Categories are <question>s too.
MAX_ELEMENTS_PER_QUESTION = 10_000
MAX_QUESTION_ELEMENTS = 3 * MAX_ITEMS
# Moodle's text formats, as the app's markup (Moodle reads an unknown format as HTML).
MARKUP_OF_FORMAT = {
    "html": Markup.HTML, "markdown": Markup.MARKDOWN,
    "plain_text": Markup.PLAIN, "moodle_auto_format": Markup.PLAIN, "wiki_like": Markup.PLAIN,
}
FORMAT_OF_MARKUP = {Markup.HTML: "html", Markup.MARKDOWN: "markdown", Markup.PLAIN: "plain_text"}
KINDS = {"multichoice", "truefalse", "shortanswer", "numerical", "matching", "match"}
# A file a text refers to: `@@PLUGINFILE@@/` and its path, URL-encoded, up to a quote, a space,
# a bracket or a query.
PLUGINFILE = re.compile(r"@@PLUGINFILE@@/([^\"'\s<>()?#]+)")
MEDIA_REFERENCE = re.compile(r"media:([A-Za-z0-9._-]+)")
IMAGE_EXTENSIONS = {"png", "jpg", "jpeg", "gif", "webp"}
MAX_MEDIA_NAME = 100
# Characters XML 1.0 cannot hold, not even as &#...;.
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def looks_like_moodle_xml(text):
    return bool(LOOKS_LIKE_XML.match(text))


def parse_moodle_xml(text, file, checksum):
    """([ParsedDocument], [warning, ...]) for a Moodle XML file, or raise ContentError
    (ContentErrors with every broken question; SkippedItems when only questions are broken and
    others were read: questions stand on their own, but for their category)."""
    bank = _Bank(file)
    problems = bank.problems
    try:
        _read_questions(text, file, bank.add)
    except ContentError as error:  # the file stops being readable here: report it with the rest
        problems.add(error)
    if not bank.questions and not problems.found:
        raise ContentError(file, None, f"no question to import ({bank.skipped} skipped)")
    title, name = problems.collect(title_from_file_name, file), problems.collect(source_file_name, file)
    document = ParsedDocument(file, SourceDocument.Kind.QUIZ, title, name, checksum, bank.questions,
                              media=list(bank.media.values()), skipped=bank.places_skipped)
    problems.raise_if_any([document], bank.warnings)
    return [document], bank.warnings


# Reading the XML -----------------------------------------------------------------------------


class _Element:
    """An element of one question, with the line its start tag is on."""

    __slots__ = ("tag", "attrs", "line", "children", "parts", "text")

    def __init__(self, tag, attrs, line):
        self.tag, self.attrs, self.line = tag, attrs, line
        self.children, self.parts, self.text = [], [], ""

    def child(self, tag):
        return next((child for child in self.children if child.tag == tag), None)

    def all(self, tag):
        return [child for child in self.children if child.tag == tag]


class _Reader(ContentHandler):
    """Hands each <question> under the <quiz> root to `on_question` as an _Element once read."""

    def __init__(self, file, on_question):
        super().__init__()
        self.file, self.on_question = file, on_question
        self.locator, self.depth, self.open = None, 0, []
        self.elements = self.questions = 0

    def setDocumentLocator(self, locator):
        self.locator = locator

    def line(self):
        return self.locator.getLineNumber() if self.locator else None

    def startElement(self, name, attrs):
        line = self.line()
        if self.depth == 0 and name != "quiz":
            raise ContentError(self.file, line, f"not a Moodle XML question bank: the root element is <{name}>, not <quiz>")
        if self.open or (self.depth == 1 and name == "question"):
            element = _Element(name, dict(attrs.items()), line)
            if self.open:
                self.elements += 1
                if self.elements > MAX_ELEMENTS_PER_QUESTION:
                    raise ContentError(self.file, self.open[0].line,
                                       f"the question has more than {MAX_ELEMENTS_PER_QUESTION:,} XML elements")
                self.open[-1].children.append(element)
            else:
                self.elements, self.questions = 0, self.questions + 1
                if self.questions > MAX_QUESTION_ELEMENTS:
                    raise ContentError(self.file, line, f"more than {MAX_QUESTION_ELEMENTS:,} <question> elements")
            self.open.append(element)
        self.depth += 1

    def endElement(self, name):
        self.depth -= 1
        if self.open:
            element = self.open.pop()
            element.text, element.parts = "".join(element.parts), None
            if not self.open:
                self.on_question(element)

    def characters(self, content):
        if self.open:
            self.open[-1].parts.append(content)


class _Strict(ErrorHandler):
    """Every problem the parser reports stops it (the default handler prints warnings)."""

    def warning(self, exception):
        raise exception


def _read_questions(text, file, on_question):
    reader = _Reader(file, on_question)
    source = InputSource(file)
    source.setByteStream(BytesIO(text.encode("utf-8")))
    source.setEncoding("utf-8")  # decoded as UTF-8 already, whatever the declaration says
    try:
        defused_sax.parse(source, reader, errorHandler=_Strict(), forbid_dtd=True)
    except SAXParseException as error:
        raise ContentError(file, error.getLineNumber(), f"not well-formed XML: {error.getMessage()}") from None
    except DTDForbidden:
        raise ContentError(file, reader.line(), "a <!DOCTYPE> is not allowed: Moodle XML files have none, and a DTD "
                           "could declare entities that expand to gigabytes or read other files") from None
    except (EntitiesForbidden, ExternalReferenceForbidden):  # only a DTD declares them: refused above first
        raise ContentError(file, reader.line(), "entity declarations and external references are not allowed") from None


# Questions ----------------------------------------------------------------------------------


class _Bank:
    """What a file's questions add up to: the parsed questions, the images they show, the topics
    of the current category, the warnings and the problems."""

    def __init__(self, file):
        self.file, self.questions, self.media, self.warnings = file, [], {}, []
        self.topics, self.skipped, self.problems = None, 0, Problems()
        self.places_skipped = []  # of the questions with a problem of their own, from 1 (ParsedDocument.skipped)

    def add(self, element):
        kind = element.attrs.get("type", "")
        if kind == "category":
            topics = self.problems.collect(_category_topics, element, self.file)
            if topics is not None:
                self.topics = topics
            return
        before = set(self.media)
        try:
            question = _Question(element, self).parse()
        except ContentError as error:  # a question stands on its own: the next ones read as they would
            self.problems.add(error, of_an_item=True)
            self.places_skipped.append(len(self.questions) + len(self.places_skipped) + 1)
            question = None
        if question:
            question.key = f"q{len(self.questions) + 1}"
            self.questions.append(question)
        else:  # the images of a question skipped or broken are not the document's
            for name in set(self.media) - before:
                del self.media[name]

    def skip(self, element, reason):
        self.skipped += 1
        self.warnings.append(f"{self.file}:{element.line}: skipped {_label(element)}: {reason}")
        return None

    def image(self, file_name, data, line, alt):
        """The name a text refers to `data` by: the file's, unless another image has it."""
        name = _safe_name(file_name)
        if name in self.media and self.media[name].data != data:
            name = f"{hashlib.sha256(data).hexdigest()[:8]}-{name}"
        media = self.media.setdefault(name, ParsedMedia(name, data, line))
        media.alt = media.alt or alt
        return name


def _label(element):
    """How a warning or a problem names a question: its kind and its name."""
    name = element.child("name")
    text = name.child("text") if name is not None else None
    name = one_line(text.text) if text is not None else ""
    kind = element.attrs.get("type") or "untyped"
    return f"{kind} question {shorten(name)!r}" if name else f"{kind} question"


def _text(element, file):
    """The trimmed text of an element's <text> (Moodle trims every text), or ""."""
    text = element.child("text") if element is not None else None
    if text is None:
        return ""
    if text.children:
        raise ContentError(file, text.children[0].line, f"<text> holds a <{text.children[0].tag}> element: write "
                           "HTML inside <![CDATA[ ... ]]>, or &lt; for <")
    return text.text.strip()


def _category_topics(element, file):
    """[the category's path] or [] for the top category: `$course$/top/` is left out, as GIFT does."""
    path = CATEGORY_CONTEXT.sub("", _text(element.child("category"), file)).strip("/ ")
    return [check_topic(path, file, element.line)] if path else []


class _Question:
    """One <question> of a kind the app holds, read into a ParsedQuestion."""

    def __init__(self, element, bank):
        self.element, self.bank, self.file = element, bank, bank.file
        self.files = {}  # "path/name" -> <file> element, of every text of the question

    def parse(self):
        element = self.element
        kind = element.attrs.get("type")
        if kind is None:
            raise self.error(element, "a <question> needs a type attribute (multichoice, truefalse, ...)")
        if kind not in KINDS:
            return self.bank.skip(element, "the app has no such kind of question")
        for holder in _holders(element):
            for file in holder.all("file"):
                self.files.setdefault(_file_key(file), file)
        text = element.child("questiontext")
        if text is None:
            raise self.error(element, "the question has no <questiontext>")
        self.markup = MARKUP_OF_FORMAT.get(text.attrs.get("format", "html").strip(), Markup.HTML)
        self.default_format = FORMAT_OF_MARKUP[self.markup]
        stem = self.text(text)
        stem = self.old_image(stem)
        if not stem:
            raise self.error(text, "the question has no text")
        parsed = {
            "multichoice": self.multichoice, "truefalse": self.true_false, "shortanswer": self.short_answer,
            "numerical": self.numerical, "matching": self.matching, "match": self.matching,
        }[kind]()
        if parsed is None:
            return None
        kind, choices, right_answers, options = parsed
        if kind != QuestionKind.MATCHING:
            check_choices(choices, self.file, element.line, "the question")
        explanation = self.text(element.child("generalfeedback")) or self.feedback_of(right_answers)
        check_text(explanation, self.file, element.line, "the explanation")
        question = ParsedQuestion(
            "", check_text(stem, self.file, element.line, "the question"), explanation, choices, element.line,
            self.topics(), kind=kind, markup=self.markup, **options,
        )
        return check_question_kind(question, self.file, f"the {_label(element)}")

    def error(self, element, message):
        return ContentError(self.file, element.line, message)

    def text(self, holder, *, plain=False):
        """A text element's text in the question's markup, its images made media; `plain` for the
        texts Moodle keeps as typed (accepted answers, matching options): as they are."""
        if holder is None:
            return ""
        text = _text(holder, self.file)
        if plain or not text:
            return text
        written = MARKUP_OF_FORMAT.get(holder.attrs.get("format", self.default_format).strip(), Markup.HTML)
        return self.images(_as_markup(text, written, self.markup), holder)

    def images(self, text, holder):
        """The text with each `@@PLUGINFILE@@/name` of an image the question carries as `media:name`;
        a plain-text question shows no image, so its text is left as it is."""
        alts = _image_alts(text) if self.markup == Markup.HTML else {}
        own = {_file_key(file): file for file in holder.all("file")}

        def rewrite(match):
            path = unquote(match.group(1))
            file = own.get(path) or self.files.get(path)
            if self.markup == Markup.PLAIN:
                self.bank.warnings.append(f"{self.file}:{holder.line}: {_label(self.element)}: {path} is left out "
                                          "(a plain-text question shows no image)")
                return match.group()
            if file is None:
                self.bank.warnings.append(f"{self.file}:{holder.line}: {_label(self.element)}: {path} is not in "
                                          "the file (no <file> of that name); the reference is left as it is")
                return match.group()
            if _extension(path) not in IMAGE_EXTENSIONS:
                self.bank.warnings.append(f"{self.file}:{file.line}: {_label(self.element)}: {path} is not an "
                                          "image (only images are kept); the reference is left as it is")
                return match.group()
            return "media:" + self.bank.image(PurePosixPath(path).name, self.decoded(file), file.line, alts.get(match.group(), ""))

        return PLUGINFILE.sub(rewrite, text)

    def decoded(self, file):
        encoding = file.attrs.get("encoding", "base64").strip().lower()
        if encoding != "base64":
            raise self.error(file, f"the file {file.attrs.get('name', '')!r} is encoded as {encoding!r}; Moodle writes base64")
        try:
            return base64.b64decode("".join(file.text.split()), validate=True)
        except (binascii.Error, ValueError):
            raise self.error(file, f"the file {file.attrs.get('name', '')!r} is not valid base64") from None

    def old_image(self, stem):
        """Moodle 1.9's <image>name</image> and <image_base64>, appended to the text as Moodle does."""
        name, data = self.element.child("image"), self.element.child("image_base64")
        if name is None or data is None or not name.text.strip() or not data.text.strip():
            return stem
        file_name = name.text.strip().replace("/", "_")
        if self.markup == Markup.PLAIN or _extension(file_name) not in IMAGE_EXTENSIONS:
            self.bank.warnings.append(f"{self.file}:{name.line}: {_label(self.element)}: the image {file_name} is "
                                      "left out (not an image, or a plain-text question)")
            return stem
        media = self.bank.image(file_name, self.decoded(data), data.line, "")
        return stem + (f' <img src="media:{media}" />' if self.markup == Markup.HTML else f" ![](media:{media})")

    def topics(self):
        """The category's path and the question's tags; None when the file names neither."""
        tags = [check_topic(self.text(tag, plain=True), self.file, tag.line)
                for tags in self.element.all("tags") for tag in tags.all("tag")]
        if self.bank.topics is None and not tags:
            return None
        return list(dict.fromkeys(name for name in [*(self.bank.topics or []), *tags] if name))

    def answers(self):
        """[(the <answer>, its fraction as a share: Decimal)] but blank answers worth nothing (Moodle
        leaves them out)."""
        answers = []
        for answer in self.element.all("answer"):
            written = answer.attrs.get("fraction")
            if written is None and answer.child("fraction") is not None:  # Moodle 1.x wrote it as an element
                written = answer.child("fraction").text
            fraction = parse_weight(written or "0", self.file, answer.line, "an answer's fraction")
            if _text(answer, self.file) or fraction:
                answers.append((answer, fraction))
        return answers

    def feedback_of(self, answers):
        """The answers' feedback, each said once: the explanation when there is no general feedback."""
        texts = [self.text(answer.child("feedback")) for answer in answers]
        return " ".join(dict.fromkeys(text for text in texts if text))

    # The kinds: each returns (kind, choices, the right <answer>s, whose feedback explains the
    # question when it has no general feedback, ParsedQuestion options), or None when skipped.

    def multichoice(self):
        answers = self.answers()
        if len(answers) < 2:
            raise self.error(self.element, "a multiple-choice question needs at least 2 answers")
        texts = [self.text(answer) for answer, _ in answers]
        single = _word(self.element.child("single"), "true") not in ("false", "0", "")
        if not single:  # Moodle's multiple answer: partial credit from each answer's fraction
            choices = [(text, fraction > 0, fraction) for text, (_, fraction) in zip(texts, answers)]
            right = [answer for answer, fraction in answers if fraction > 0]
            return QuestionKind.SELECT_ALL, choices, right, {"partial_credit": True}
        full = [answer for answer, fraction in answers if fraction == 1]
        if not full:
            raise self.error(self.element, "no answer is worth 100%")
        if any(fraction not in (0, 1) for _, fraction in answers):
            return self.bank.skip(self.element, "an answer gives partial credit or a penalty, which a single-answer "
                                                "question cannot hold")
        if len(full) > 1:
            return self.bank.skip(self.element, f"{len(full)} answers are worth 100% (Moodle accepts any one of them); "
                                                "a single-answer question has one right answer")
        choices = [(text, fraction == 1) for text, (_, fraction) in zip(texts, answers)]
        return QuestionKind.SINGLE, choices, full, {}

    def true_false(self):
        answers = self.element.all("answer")
        if not answers:
            raise self.error(self.element, "a true/false question needs its true and false answers")
        is_true, right = None, None
        for index, answer in enumerate(answers):
            word = _text(answer, self.file).lower()
            if word not in ("true", "false"):  # an old file, in another language: true first (Moodle's rule)
                word = "true" if index == 0 else "false"
            full = parse_weight(answer.attrs.get("fraction") or "0", self.file, answer.line, "an answer's fraction") == 1
            is_true = full if word == "true" else not full
            right = answer if full else right
        choices = [(TRUE_FALSE_TEXTS[0], is_true), (TRUE_FALSE_TEXTS[1], not is_true)]
        return QuestionKind.TRUE_FALSE, choices, [right] if right else [], {}

    def short_answer(self):
        answers, choices = self.answers(), []
        for answer, fraction in answers:
            text = self.text(answer, plain=True)
            choices.append((text, True) if fraction == 1 else (text, False, fraction))
        case_sensitive = _word(self.element.child("usecase"), "0") not in ("0", "false", "")
        right = [answer for answer, fraction in answers if fraction == 1]
        return QuestionKind.SHORT_ANSWER, choices, right, {"case_sensitive": case_sensitive}

    def numerical(self):
        accepted, full = [], []
        for answer, fraction in self.answers():
            value = self.text(answer, plain=True)
            if value == "*":  # Moodle's "any other answer", for its feedback: nothing to accept
                continue
            number = _number(value)
            if number is None:
                raise self.error(answer, f"the value {shorten(value)!r} is not a number")
            tolerance = _decimal(_word(answer.child("tolerance"), "0") or "0")
            if tolerance is None:
                raise self.error(answer, "the tolerance is not a number")
            accepted.append((number, fraction == 1, None if fraction == 1 else fraction, abs(tolerance).normalize()))
            full += [answer] if fraction == 1 else []
        if not accepted:
            raise self.error(self.element, "a numerical question needs at least one accepted value")
        values = [value for value, *_ in accepted]
        if twice := next((value for value in values if values.count(value) > 1), None):
            return self.bank.skip(self.element, f"the value {twice} is accepted twice (with two tolerances), "
                                                "which the app cannot hold")
        if any(unit.child("unit_name") is not None for units in self.element.all("units") for unit in units.all("unit")):
            self.bank.warnings.append(f"{self.file}:{self.element.line}: {_label(self.element)}: its units are left out")
        return QuestionKind.NUMERICAL, accepted, full, {}

    def matching(self):
        pairs = []
        for sub in self.element.all("subquestion"):
            item = self.text(sub)
            option = self.text(sub.child("answer"), plain=True)
            if item or option:
                if not option:
                    raise self.error(sub, f"the item {shorten(item)!r} has no answer to match")
                check_text(item, self.file, sub.line, "a subquestion")
                check_text(option, self.file, sub.line, "a subquestion's answer")
                pairs.append((item, bool(item), None, None, option))
        return QuestionKind.MATCHING, pairs, [], {"partial_credit": True}  # Moodle credits each right pair


def _holders(element):
    """The elements of a question that hold a text and its <file>s."""
    for child in element.children:
        yield child
        for grandchild in child.children:
            yield grandchild


def _file_key(file):
    """A <file>'s "path/name" as `@@PLUGINFILE@@/path/name` names it, without the leading slash."""
    path = file.attrs.get("path", "/").strip().strip("/")
    name = file.attrs.get("name", "").strip()
    return f"{path}/{name}" if path else name


def _extension(name):
    return PurePosixPath(name).suffix.lstrip(".").lower()


def _safe_name(name):
    """A file name a `media:` reference can hold: letters, digits, `.`, `_` and `-` only."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".") or "image"
    stem, dot, extension = name.rpartition(".")
    if len(name) > MAX_MEDIA_NAME:
        name = f"{stem[: MAX_MEDIA_NAME - len(extension) - 1]}.{extension}" if dot else name[:MAX_MEDIA_NAME]
    return name


def _word(element, default):
    return element.text.strip().lower() if element is not None else default


def _number(text):
    """The decimal text of a number Moodle accepts (`3.14`, `-2`, `3e8`), or None: as written
    when it is already plain (`-2.50`), else written out (`300000000`)."""
    if re.fullmatch(r"-?\d+(?:\.\d+)?", text.strip()):
        return text.strip()
    number = parse_number(text)
    number = _decimal(text) if number is None else number
    if number is None or (number and not -30 <= number.adjusted() <= 30):  # 1e999999999 is not written out
        return None
    return f"{number.normalize():f}"


def _decimal(text):
    """A finite Decimal of a number written in any way Python reads one, or None."""
    try:
        number = Decimal(text.strip())
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def _as_markup(text, written, markup):
    """A text written in one markup, in another: plain text escaped into HTML (line breaks kept),
    HTML reduced to the text it shows; Markdown and plain text read as each other."""
    if written == markup:
        return text
    if markup == Markup.HTML:
        return "<br>\n".join(escape(line, quote=False) for line in text.split("\n"))
    if written == Markup.HTML:
        return html_to_text(text)
    return text


class _ImageAlts(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.alts = {}

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "img" and (attributes.get("src") or "").startswith("@@PLUGINFILE@@/"):
            self.alts.setdefault(attributes["src"], (attributes.get("alt") or "").strip())


def _image_alts(html):
    """{`@@PLUGINFILE@@/...` src: its alt text} of an HTML text's <img> tags."""
    parser = _ImageAlts()
    parser.feed(html)
    parser.close()
    return parser.alts


# Writing ------------------------------------------------------------------------------------

TOP_CATEGORY = "$course$/top"
PENALTY = {"truefalse": "1"}  # Moodle's default penalties: 1/3 but for true/false


def write_moodle_xml(question_set, media=None):
    """A Moodle XML file of a set (export.py's plain data) that parse_moodle_xml reads back as it is.

    A question's one topic is its category; several are its tags (under the top category). The
    title is a comment: the parser takes the title from the file name. `media` ({name: bytes})
    embeds the images the texts of an HTML or Markdown question refer to as `media:name`; a
    reference without its bytes, or in a plain-text question (which shows no image, so the
    parser keeps no <file> of it), is written as it is. Raises ExportError for what Moodle
    cannot hold: choose N, select all that apply or matching without partial credit, characters
    XML cannot hold."""
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<quiz>", f"<!-- {_comment(question_set['title'])} -->"]
    category = ""
    for number, question in enumerate(question_set["questions"], start=1):
        topics = question.get("topics") or []
        wanted = topics[0] if len(topics) == 1 and _is_category(topics[0]) else ""
        if wanted != category:
            path = f"{TOP_CATEGORY}/{wanted}" if wanted else TOP_CATEGORY
            lines += ["", '  <question type="category">', "    <category>", f"      {_xml_text(path)}", "    </category>",
                      "  </question>"]
            category = wanted
        lines += ["", *_question_lines(question, number, [] if wanted else topics, media or {})]
    return "\n".join([*lines, "", "</quiz>"]) + "\n"


def _is_category(topic):
    """Whether a topic reads back as itself from a category path."""
    return CATEGORY_CONTEXT.sub("", f"{TOP_CATEGORY}/{topic}").strip("/ ") == topic


def _comment(title):
    text = NOT_XML.sub("", one_line(title)).replace("--", "- -")
    return text + " " if text.endswith("-") else text


def _question_lines(question, number, tags, media):
    kind = question.get("kind", QuestionKind.SINGLE)
    where = f"{shorten(one_line(question['stem']))!r}"
    _refuse_what_moodle_cannot_hold(question, kind, where)
    markup = question.get("markup", Markup.PLAIN)
    text_format = FORMAT_OF_MARKUP[markup]
    media = {} if markup == Markup.PLAIN else media
    moodle_type = {
        QuestionKind.TRUE_FALSE: "truefalse", QuestionKind.SHORT_ANSWER: "shortanswer",
        QuestionKind.NUMERICAL: "numerical", QuestionKind.MATCHING: "matching",
    }.get(kind, "multichoice")
    name = one_line(html_to_text(question["stem"]) if markup == Markup.HTML else question["stem"])
    lines = [
        f'  <question type="{moodle_type}">',
        "    <name>", f"      {_xml_text(shorten(name) or f'Question {number}')}", "    </name>",
        *_rich("questiontext", question["stem"], text_format, media, "    "),
        *_rich("generalfeedback", question["explanation"], text_format, media, "    "),
        "    <defaultgrade>1</defaultgrade>",
        f"    <penalty>{PENALTY.get(moodle_type, '0.3333333')}</penalty>",
        "    <hidden>0</hidden>",
    ]
    choices = question["choices"]
    if kind == QuestionKind.TRUE_FALSE:
        is_true = choices[0]["correct"]
        lines += _answer("true", "100" if is_true else "0") + _answer("false", "0" if is_true else "100")
    elif kind in (QuestionKind.SHORT_ANSWER, QuestionKind.NUMERICAL):
        if kind == QuestionKind.SHORT_ANSWER:
            lines.append(f"    <usecase>{1 if question.get('case_sensitive') else 0}</usecase>")
        for choice in choices:
            credit = "100" if choice.get("weight") is None else weight_text(Decimal(str(choice["weight"])) / 100)
            tolerance = f"{Decimal(str(choice.get('tolerance') or 0)).normalize():f}"
            lines += _answer(choice["text"], credit, [f"<tolerance>{tolerance}</tolerance>"] if kind == QuestionKind.NUMERICAL else [])
    elif kind == QuestionKind.MATCHING:
        lines.append("    <shuffleanswers>true</shuffleanswers>")
        for choice in choices:
            lines += [*_rich("subquestion", choice["text"], text_format, media, "    ", closing=False),
                      "      <answer>", f"        {_xml_text(choice['match'])}", "      </answer>", "    </subquestion>"]
    else:
        fractions = percents(choices) if kind == QuestionKind.SELECT_ALL else ["100" if c["correct"] else "0" for c in choices]
        lines += [f"    <single>{'false' if kind == QuestionKind.SELECT_ALL else 'true'}</single>",
                  "    <shuffleanswers>true</shuffleanswers>", "    <answernumbering>abc</answernumbering>"]
        for choice, fraction in zip(choices, fractions):
            lines += _rich("answer", choice["text"], text_format, media, "    ", attrs=f' fraction="{fraction}"')
    if tags:
        lines += ["    <tags>", *(f"      <tag>{_xml_text(tag)}</tag>" for tag in tags), "    </tags>"]
    return [*lines, "  </question>"]


def _refuse_what_moodle_cannot_hold(question, kind, where):
    if kind == QuestionKind.CHOOSE:
        raise ExportError(f"{where} is choose N, which Moodle has no kind of question for; export as JSON")
    if kind == QuestionKind.SELECT_ALL and not question.get("partial_credit"):
        raise ExportError(f"{where} is select all that apply without partial credit, which Moodle cannot say (its "
                          "multiple-answer question always gives partial credit); export as JSON")
    if kind == QuestionKind.MATCHING and not question.get("partial_credit"):
        raise ExportError(f"{where} is matching without partial credit, which Moodle cannot say (its matching "
                          "question credits each right pair); export as JSON")
    texts = [question["stem"], question["explanation"], *question.get("topics", [])]
    texts += [text for choice in question["choices"] for text in (choice["text"], choice.get("match", ""))]
    if found := next((NOT_XML.search(text) for text in texts if NOT_XML.search(text)), None):
        raise ExportError(f"{where} holds the control character U+{ord(found.group()):04X}, which XML cannot hold; "
                          "export as JSON")


def _answer(text, fraction, extra=()):
    return [f'    <answer fraction="{fraction}" format="moodle_auto_format">', f"      {_xml_text(text)}",
            *(f"      {line}" for line in extra), "    </answer>"]


def _rich(tag, text, text_format, media, indent, *, attrs="", closing=True):
    """A text element in the question's format, with the images it refers to as <file>s."""
    files = []

    def embed(match):
        name = match.group(1)
        if name not in media:
            return match.group()
        if name not in files:
            files.append(name)
        return f"@@PLUGINFILE@@/{quote(name)}"

    text = MEDIA_REFERENCE.sub(embed, text) if media else text
    lines = [f'{indent}<{tag}{attrs} format="{text_format}">', f"{indent}  {_xml_text(text)}"]
    lines += [f'{indent}  <file name="{name}" path="/" encoding="base64">{base64.b64encode(media[name]).decode()}</file>'
              for name in files]
    return lines + ([f"{indent}</{tag}>"] if closing else [])


def _xml_text(text):
    """<text>...</text>: in CDATA when it holds markup (as Moodle writes it), else escaped. A CR
    is written &#13; so that it is read back (XML reads a bare CR as a line break)."""
    if ("<" in text or "&" in text) and "\r" not in text:
        return "<text><![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]></text>"
    return "<text>" + escape(text, quote=False).replace("\r", "&#13;") + "</text>"
