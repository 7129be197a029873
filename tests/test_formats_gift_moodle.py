"""Moodle's own GIFT import tests, case by case: question/format/gift/tests/giftformat_test.php
(every `test_import_*`) and the fixture questions_in_category.gift.txt, plus the fixture
questions.gift.txt byte for byte (tests/test_typed_answers.py reads an edited copy of it).

Each GIFT input is Moodle's, word for word; each expectation is the question Moodle stores,
as the app holds it:
* the stem is Moodle's questiontext; a `[html]`/`[markdown]` text is kept as written (and
  rendered when shown: tests/test_markup_formats.py) and every markup prefix (`[html]`,
  `[moodle]`, `[plain]`, `[markdown]`) is dropped;
* the choices carry Moodle's fractions as weights (a share, Decimal), its numerical tolerances
  and its matching pairs; Moodle's `~` "anything else" numerical answer (0%) is dropped;
* the explanation is Moodle's generalfeedback or, without one, the right answers' feedback
  (the app has no per-answer feedback);
* essays are skipped with a warning naming their line. A file with nothing but an essay is
  refused as empty, so those cases get a true/false question appended after a blank line.

Not here: test_export_* (the app writes its own GIFT, tests/test_formats_gift.py),
test_extract_idnumber_and_tags_from_comment (the app keeps neither idnumbers nor tags: the
comment lines holding them must only be ignored), and Moodle's six runs of
test_import_multichoice over answer numbering styles (a site setting, not GIFT input: one case).
"""

from decimal import Decimal

import pytest

from quiz.content import parse_document
from quiz.models.kinds import QuestionKind as Kind

FILE = "x.gift"
FILLER = "\n\n::filler:: A question so the file is not empty.{T}\n"


def parse(gift, file=FILE):
    [document], warnings = parse_document(gift.encode(), file, "gift")
    return document.items, warnings


def held(question):
    """What the app keeps of a parsed question, in one comparable dict."""
    return {
        "kind": question.kind,
        "stem": question.stem,
        "choices": question.choices,
        "explanation": question.explanation,
        "partial_credit": question.partial_credit,
        "case_sensitive": question.case_sensitive,
    }


def expected(kind, stem, choices, explanation="", partial_credit=False, case_sensitive=False):
    return {
        "kind": kind,
        "stem": stem,
        "choices": choices,
        "explanation": explanation,
        "partial_credit": partial_credit,
        "case_sensitive": case_sensitive,
    }


def pair(item, option):
    """A matching choice: (item, has an item, None, None, option); an item "" is an extra option."""
    return (item, bool(item), None, None, option)


# --- giftformat_test.php: test_import_* of an importable kind -----------------------------------

IMPORTED = [
    pytest.param(
        """
// question: 2  name: Moodle activities
::Moodle activities::[html]Match the <b>activity</b> to the description.{
    =[html]An activity supporting asynchronous discussions. -> Forum
    =[moodle]A teacher asks a question and specifies a choice of multiple responses. -> Choice
    =[plain]A bank of record entries which participants can add to. -> Database
    =[markdown]A collection of web pages that anyone can add to or edit. -> Wiki
    = -> Chat
}""",
        expected(Kind.MATCHING, "Match the <b>activity</b> to the description.", [
            pair("An activity supporting asynchronous discussions.", "Forum"),
            pair("A teacher asks a question and specifies a choice of multiple responses.", "Choice"),
            pair("A bank of record entries which participants can add to.", "Database"),
            pair("A collection of web pages that anyone can add to or edit.", "Wiki"),
            pair("", "Chat"),
        ], partial_credit=True),
        id="test_import_match",
    ),
    pytest.param(
        """
// multiple choice with specified feedback for right and wrong answers
::Q2:: What's between orange and green in the spectrum?
{
    =yellow # right; good!
    ~red # [html]wrong, it's yellow
    ~[plain]blue # wrong, it's yellow
}""",
        expected(Kind.SINGLE, "What's between orange and green in the spectrum?",
                 [("yellow", True), ("red", False), ("blue", False)],  # fractions 1, 0, 0
                 explanation="right; good!"),
        id="test_import_multichoice",
    ),
    pytest.param(
        """
// multiple choice, multiple response with specified feedback for right and wrong answers
::colours:: What's between orange and green in the spectrum?
{
    ~%50%yellow # right; good!
    ~%-100%red # [html]wrong
    ~%50%off-beige # right; good!
    ~%-100%[plain]blue # wrong
}""",
        expected(Kind.SELECT_ALL, "What's between orange and green in the spectrum?", [
            ("yellow", True, Decimal("0.5")),
            ("red", False, Decimal(-1)),
            ("off-beige", True, Decimal("0.5")),
            ("blue", False, Decimal(-1)),
        ], explanation="right; good!", partial_credit=True),
        id="test_import_multichoice_multi",
    ),
    pytest.param(
        """
// multiple choice, multiple response with specified feedback for right and wrong answers
::colours:: What's between orange and green in the spectrum?
{
    ~%100%yellow # right; good!
    ~%-50%red # wrong
    ~%-50%blue # wrong
}""",
        expected(Kind.SELECT_ALL, "What's between orange and green in the spectrum?", [
            ("yellow", True, Decimal(1)),
            ("red", False, Decimal("-0.5")),
            ("blue", False, Decimal("-0.5")),
        ], explanation="right; good!", partial_credit=True),
        id="test_import_multichoice_multi_tricky",
    ),
    pytest.param(
        """
// math range question
::Q5:: What is a number from 1 to 5? {#3:2~#Completely wrong}""",
        # Moodle: answers 3 (tolerance 2, 100%) and * (0%, "Completely wrong"); the app drops the 0% catch-all.
        expected(Kind.NUMERICAL, "What is a number from 1 to 5?", [("3", True, None, Decimal(2))]),
        id="test_import_numerical",
    ),
    pytest.param(
        """
// question: 666  name: Shortanswer
::Shortanswer::Which is the best animal?{
    =Frog#Good!
    =%50%Cat#What is it with Moodlers and cats?
    =%0%*#Completely wrong
}""",
        expected(Kind.SHORT_ANSWER, "Which is the best animal?",
                 [("Frog", True), ("Cat", False, Decimal("0.5")), ("*", False, Decimal(0))],
                 explanation="Good!"),
        id="test_import_shortanswer",
    ),
    pytest.param(
        """
// question: 666  name: Shortanswer
::Shortanswer::Which is the best animal?{
    =Frog#Good!
    =%50%Cat#What is it with Moodlers and cats?
    =%0%*#Completely wrong
    ####[html]Here is some general feedback!
}""",
        expected(Kind.SHORT_ANSWER, "Which is the best animal?",
                 [("Frog", True), ("Cat", False, Decimal("0.5")), ("*", False, Decimal(0))],
                 explanation="Here is some general feedback!"),
        id="test_import_shortanswer_with_general_feedback",
    ),
    pytest.param(
        """
// true/false
::Q1:: 42 is the Absolute Answer to everything.{
FALSE#42 is the Ultimate Answer.#You gave the right answer.}""",
        # Moodle: correctanswer 0, feedbacktrue "42 is the Ultimate Answer.", feedbackfalse (the right one's) below.
        expected(Kind.TRUE_FALSE, "42 is the Absolute Answer to everything.", [("True", False), ("False", True)],
                 explanation="You gave the right answer."),
        id="test_import_truefalse",
    ),
    pytest.param(
        """// name 0-11
::2-08 TSL::TSL is blablabla.{T}""",
        expected(Kind.TRUE_FALSE, "TSL is blablabla.", [("True", True), ("False", False)]),
        id="test_import_truefalse_true_answer1",
    ),
    pytest.param(
        """// name 0-11
::2-08 TSL::TSL is blablabla.{TRUE}""",
        expected(Kind.TRUE_FALSE, "TSL is blablabla.", [("True", True), ("False", False)]),
        id="test_import_truefalse_true_answer2",
    ),
]


@pytest.mark.parametrize(("gift", "question"), IMPORTED)
def test_moodles_import_case_is_read_as_moodle_stores_it(gift, question):
    items, warnings = parse(gift)

    assert warnings == []
    assert [held(item) for item in items] == [question]


# --- giftformat_test.php: test_import_* of an essay ----------------------------------------------

ESSAYS = [
    pytest.param("""
// essay
::Q8:: How are you? {}""", 3, id="test_import_essay"),
    # PHP's 'A \\\\ B \\\\\\\\ C{}' is the GIFT text A \\ B \\\\ C{} (Moodle stores A \ B \\ C).
    pytest.param(r"""
// essay
::double backslash:: A \\ B \\\\ C{}""", 3, id="test_import_backslash"),
    pytest.param(r"""
::Q001::[html]<p>What would running the test method print?</p>
<pre>
    public void test() \{
        method1();
        method2();
        method3();
    \}
</pre>
{}""", 2, id="test_import_pre_content"),
    pytest.param("""
// This question is to test importing tags: [tag:tag] [tag:other-tag].
// And an idnumber: [id:myid].
::Question name:: How are you? {}""", 4, id="test_import_question_with_tags"),
]


@pytest.mark.parametrize(("gift", "line"), ESSAYS)
def test_moodles_essay_case_is_skipped_with_a_warning_naming_its_line(gift, line):
    items, warnings = parse(gift + FILLER)

    assert [item.stem for item in items] == ["A question so the file is not empty."]
    [warning] = warnings
    assert warning.startswith(f"{FILE}:{line}: skipped: ")
    assert "essay" in warning


# --- Moodle's fixtures ---------------------------------------------------------------------------

# question/format/gift/tests/fixtures/questions_in_category.gift.txt, byte for byte (tabs included).
QUESTIONS_IN_CATEGORY = r"""// question: 0  name: switch category to $course$/Default for New Features
$CATEGORY: $course$/Default for New Features

// question: 44  name: Moodle activities
::Moodle activities::[html]Match the activity to the description.{
	=An activity supporting asynchronous discussions. -> Forum
	=A teacher asks a question and specifies a choice of multiple responses. -> Choice
	=A bank of record entries which participants can add to. -> Database
	=A collection of web pages that anyone can add to or edit. -> Wiki
	= -> Chat
}

// question: 43  name: Greeting
::Greeting::[html]<a href\="http\://demo.moodle.net/file.php/5/media/bonjour.mp3">Listen to this greeting\:</a><br /><br />What language is being spoken?{
	~English#Sorry, listen again.
	=French#Yes, well done!
	~German#Sorry, listen again.
	~Spanish#Sorry, listen again.
}

// question: 46  name: Moodle user
::Moodle user::[html]Anyone who uses Moodle is a ...{
	=%100%Moodler#
}

// question: 45  name: Moodle acronym
::Moodle acronym::[html]Moodle is an acronym for <span style\="font-style\: italic;">Modular Object-Oriented Dynamic Learning Environment</span>.{TRUE}
"""


def test_moodles_questions_in_category_fixture_is_read_into_its_category():
    items, warnings = parse(QUESTIONS_IN_CATEGORY, "questions_in_category.gift.txt")

    assert warnings == []
    assert [held(item) for item in items] == [
        expected(Kind.MATCHING, "Match the activity to the description.", [
            pair("An activity supporting asynchronous discussions.", "Forum"),
            pair("A teacher asks a question and specifies a choice of multiple responses.", "Choice"),
            pair("A bank of record entries which participants can add to.", "Database"),
            pair("A collection of web pages that anyone can add to or edit.", "Wiki"),
            pair("", "Chat"),
        ], partial_credit=True),
        expected(Kind.SINGLE,
                 '<a href="http://demo.moodle.net/file.php/5/media/bonjour.mp3">Listen to this greeting:</a>'
                 "<br /><br />What language is being spoken?",
                 [("English", False), ("French", True), ("German", False), ("Spanish", False)],
                 explanation="Yes, well done!"),
        expected(Kind.SHORT_ANSWER, "Anyone who uses Moodle is a ...", [("Moodler", True, Decimal(1))]),
        expected(Kind.TRUE_FALSE,
                 'Moodle is an acronym for <span style="font-style: italic;">Modular Object-Oriented Dynamic '
                 "Learning Environment</span>.",
                 [("True", True), ("False", False)]),
    ]
    # `$course$/` is Moodle's context, not part of the category's name.
    assert [item.topics for item in items] == [["Default for New Features"]] * 4
    assert [item.line for item in items] == [5, 14, 22, 27]


# question/format/gift/tests/fixtures/questions.gift.txt, byte for byte: with the `";` that
# follow two answer blocks (left over from PHP strings), which Moodle reads as text after the
# block, so as a missing-word question: a blank "_____" where the block stood.
QUESTIONS = """// essay
::Q8:: How are you? {}

// question: 2  name: Moodle activities
::Moodle activities::[html]Match the <b>activity</b> to the description.{
    =[html]An activity supporting asynchronous discussions. -> Forum
    =[moodle]A teacher asks a question and specifies a choice of multiple responses. -> Choice
    =[plain]A bank of record entries which participants can add to. -> Database
    =[markdown]A collection of web pages that anyone can add to or edit. -> Wiki
    = -> Chat
}

// multiple choice with specified feedback for right and wrong answers
::Q2:: What's between orange and green in the spectrum?
{
    =yellow # right; good!
    ~red # [html]wrong, it's yellow
    ~[plain]blue # wrong, it's yellow
}

// multiple choice, multiple response with specified feedback for right and wrong answers
::colours:: What's between orange and green in the spectrum?
{
    ~%50%yellow # right; good!
    ~%-100%red # [html]wrong
    ~%50%off-beige # right; good!
    ~%-100%[plain]blue # wrong
}

// math range question
::Q5:: What is a number from 1 to 5? {#3:2~#Completely wrong}";

// question: 666  name: Shortanswer
::Shortanswer::Which is the best animal?{
    =Frog#Good!
    =%50%Cat#What is it with Moodlers and cats?
    =%0%*#Completely wrong
}

// true/false, with general feedback
::Q1:: 42 is the Absolute Answer to everything.{
FALSE#42 is the Ultimate Answer.#You gave the right answer.
####This is, of course, a Hitchiker's Guide to the Galaxy reference.}";

// name 0-11
::2-08 TSL::TSL is blablabla.{T}

// name 0-11
::2-08 TSL::TSL is blablabla.{TRUE}
"""


def test_moodles_questions_fixture_is_read_byte_for_byte():
    items, warnings = parse(QUESTIONS, "questions.gift.txt")

    [warning] = warnings
    assert warning.startswith("questions.gift.txt:2: skipped: ") and "essay" in warning
    spectrum = "What's between orange and green in the spectrum?"
    assert [held(item) for item in items] == [
        expected(Kind.MATCHING, "Match the <b>activity</b> to the description.", [
            pair("An activity supporting asynchronous discussions.", "Forum"),
            pair("A teacher asks a question and specifies a choice of multiple responses.", "Choice"),
            pair("A bank of record entries which participants can add to.", "Database"),
            pair("A collection of web pages that anyone can add to or edit.", "Wiki"),
            pair("", "Chat"),
        ], partial_credit=True),
        expected(Kind.SINGLE, spectrum, [("yellow", True), ("red", False), ("blue", False)],
                 explanation="right; good!"),
        expected(Kind.SELECT_ALL, spectrum, [
            ("yellow", True, Decimal("0.5")), ("red", False, Decimal(-1)),
            ("off-beige", True, Decimal("0.5")), ("blue", False, Decimal(-1)),
        ], explanation="right; good!", partial_credit=True),
        expected(Kind.NUMERICAL, 'What is a number from 1 to 5? _____";', [("3", True, None, Decimal(2))]),
        expected(Kind.SHORT_ANSWER, "Which is the best animal?",
                 [("Frog", True), ("Cat", False, Decimal("0.5")), ("*", False, Decimal(0))], explanation="Good!"),
        expected(Kind.TRUE_FALSE, '42 is the Absolute Answer to everything._____";', [("True", False), ("False", True)],
                 explanation="This is, of course, a Hitchiker's Guide to the Galaxy reference."),
        expected(Kind.TRUE_FALSE, "TSL is blablabla.", [("True", True), ("False", False)]),
        expected(Kind.TRUE_FALSE, "TSL is blablabla.", [("True", True), ("False", False)]),
    ]
    assert [item.line for item in items] == [5, 14, 22, 31, 34, 41, 46, 49]


# Not Moodle cases: the essays' texts with `{T}` for `{}`, so their stems show the escapes
# (`\\` is one backslash, `\{` a brace) and the tag comments are read as Moodle reads them.
ESSAY_STEMS = [
    pytest.param(r"""
// essay
::double backslash:: A \\ B \\\\ C{T}""", "A \\ B \\\\ C", id="backslash_text"),
    pytest.param(r"""
::Q001::[html]<p>What would running the test method print?</p>
<pre>
    public void test() \{
        method1();
        method2();
        method3();
    \}
</pre>
{T}""", """<p>What would running the test method print?</p>
<pre>
    public void test() {
        method1();
        method2();
        method3();
    }
</pre>""", id="pre_content_text"),
    pytest.param("""
// This question is to test importing tags: [tag:tag] [tag:other-tag].
// And an idnumber: [id:myid].
::Question name:: How are you? {T}""", "How are you?", id="question_with_tags_text"),
]


@pytest.mark.parametrize(("gift", "stem"), ESSAY_STEMS)
def test_the_essay_cases_texts_are_read_word_for_word(gift, stem):
    [item], warnings = parse(gift)

    assert (item.kind, item.stem, warnings) == (Kind.TRUE_FALSE, stem, [])
