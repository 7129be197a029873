"""Property tests: whatever text a set or deck holds, the GIFT and CSV writers write it so that
their parsers read back exactly that text. Pure: no database."""

from hypothesis import example, given, settings
from hypothesis import strategies as st

from quiz.content import parse_document
from quiz.content.anki_format import write_anki
from quiz.content.gift_format import write_gift
from quiz.content.tabular_format import write_cards_table, write_questions_table

# What a stored text can be: imports strip every text, decode() reads a CR as a line break,
# and no database column holds NUL or a lone surrogate. GIFT's parser also refuses its own
# placeholders (U+E000-U+E007), which its writer refuses as well (tested elsewhere).
CHARACTERS = st.characters(blacklist_categories=["Cs"], blacklist_characters="\r\x00\ue000\ue001\ue002\ue003"
                           "\ue004\ue005\ue006\ue007")
TEXT = st.text(CHARACTERS, min_size=1, max_size=40).map(str.strip).filter(bool)
# Topic names are stripped too; the formats that list them split at commas.
TOPIC = TEXT.filter(lambda name: "," not in name and name.strip("/ ") == name)


@st.composite
def questions(draw, most_topics=2):
    texts = draw(st.lists(TEXT, min_size=2, max_size=5, unique=True))
    right = draw(st.integers(0, len(texts) - 1))
    question = {
        "stem": draw(TEXT),
        "explanation": draw(st.one_of(st.just(""), TEXT)),
        "choices": [{"text": text, "correct": index == right} for index, text in enumerate(texts)],
    }
    if topics := draw(st.lists(TOPIC, max_size=most_topics, unique=True)):
        question["topics"] = topics
    return question


@st.composite
def cards(draw):
    has_misconception = draw(st.booleans())
    card = {
        "front": draw(TEXT),
        "back": draw(TEXT),
        "misconception": draw(TEXT) if has_misconception else "",
        "correction": draw(TEXT) if has_misconception else "",
    }
    if topics := draw(st.lists(TOPIC, max_size=2, unique=True)):
        card["topics"] = topics
    return card


def read_back(text, file_name, format):
    documents, _ = parse_document(text.encode("utf-8"), file_name, format)
    return documents[0]


def as_questions(document):
    return [
        {"stem": q.stem, "explanation": q.explanation, "choices": [{"text": t, "correct": c} for t, c in q.choices]}
        | ({"topics": q.topics} if q.topics else {})
        for q in document.items
    ]


@settings(max_examples=200, deadline=None)
@given(st.lists(questions(most_topics=1), min_size=1, max_size=4))
@example([{"stem": "[html]<b>x</b>", "explanation": "#### \\n {T}", "topics": ["$course$/top/a"],
           "choices": [{"text": "%50", "correct": True}, {"text": "// ->", "correct": False}]}])
@example([{"stem": "// a\n\nb", "explanation": "",
           "choices": [{"text": "True", "correct": False}, {"text": "False", "correct": True}]}])
def test_gift_reads_back_every_text_it_writes(written):
    text = write_gift({"title": "Any", "questions": written})

    assert as_questions(read_back(text, "any.gift", "gift")) == written


@settings(max_examples=200, deadline=None)
@given(st.lists(questions(), min_size=1, max_size=4))
def test_a_questions_csv_reads_back_every_text_it_writes(written):
    text = write_questions_table({"title": "Any", "questions": written})

    assert as_questions(read_back(text, "any.csv", "csv")) == written


@settings(max_examples=200, deadline=None)
@given(st.lists(cards(), min_size=1, max_size=4))
def test_a_cards_csv_reads_back_every_text_it_writes(written):
    text = write_cards_table({"title": "Any", "cards": written})

    document = read_back(text, "any.csv", "csv")

    parts = ("front", "back", "misconception", "correction")
    read = [{part: getattr(card, part) for part in parts} | ({"topics": card.topics} if card.topics else {})
            for card in document.items]
    assert read == written


@settings(max_examples=200, deadline=None)
@given(st.lists(cards(), min_size=1, max_size=4))
@example([{"front": "#separator:comma", "back": '"\t\n"', "misconception": "", "correction": ""}])
def test_anki_reads_back_every_front_and_back_it_writes(written):
    text = write_anki({"title": "Any", "cards": written})

    document = read_back(text, "any.txt", "anki")

    assert [(card.front, card.back) for card in document.items] == [(c["front"], c["back"]) for c in written]


# Typed and matching questions in the line formats: a text is written so that it reads back as it
# is, or the export is refused (ExportError) naming why; never misread. One line each, as these
# formats write every text.
LINE = st.text(CHARACTERS.filter(lambda c: c not in "\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), min_size=1, max_size=30)
LINE = LINE.map(lambda text: " ".join(text.split())).filter(bool)


@st.composite
def typed_or_matching(draw):
    if draw(st.booleans()):
        texts = draw(st.lists(LINE, min_size=1, max_size=3, unique=True))
        credits = [None] + [draw(st.sampled_from([None, 50, 12.5])) for _ in texts[1:]]
        choices = [{"text": text, "correct": credit is None} | ({"weight": credit} if credit else {})
                   for text, credit in zip(texts, credits)]
        return {"stem": draw(LINE), "explanation": draw(LINE), "kind": "short_answer", "choices": choices}
    items = draw(st.lists(LINE, min_size=2, max_size=3, unique=True))
    choices = [{"text": item, "correct": True, "match": draw(LINE)} for item in items]
    return {"stem": draw(LINE), "explanation": draw(LINE), "kind": "matching", "choices": choices}


def as_written(question):
    def choice(c):
        if question["kind"] == "matching":
            return (c["text"], c["match"])
        return (c["text"], c.get("weight"))
    return question["kind"], [choice(c) for c in question["choices"]]


def as_read(question):
    def choice(c):
        if question.kind == "matching":
            return (c[0], c[4])
        weight = c[2] if len(c) > 2 else None
        return (c[0], None if weight is None else float(weight * 100))
    return question.kind, [choice(c) for c in question.choices]


@settings(max_examples=150, deadline=None)
@given(typed_or_matching())
@example({"stem": "s", "explanation": "- x -> y", "kind": "matching",
          "choices": [{"text": "a", "correct": True, "match": "b"}, {"text": "c", "correct": True, "match": "d"}]})
@example({"stem": "s", "explanation": "Correct answer: a", "kind": "matching",
          "choices": [{"text": "a", "correct": True, "match": "b"}, {"text": "c", "correct": True, "match": "d"}]})
@example({"stem": "s", "explanation": "e", "kind": "short_answer",
          "choices": [{"text": "a (Correct answer)", "correct": True}, {"text": "b (5%)", "correct": False, "weight": 50}]})
def test_typed_and_matching_questions_read_back_from_csv_and_the_quiz_document_or_are_refused(question):
    from quiz.content.documents import ExportError
    from quiz.content.quiz_format import write_quiz

    for write, name, format in ((write_questions_table, "any.csv", "csv"), (write_quiz, "any.txt", "quiz")):
        try:
            text = write({"title": "Any", "questions": [question]})
        except ExportError:
            continue
        [read] = read_back(text, name, format).items
        assert as_read(read) == as_written(question)
