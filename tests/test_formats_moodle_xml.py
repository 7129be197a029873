"""Moodle XML: Moodle's own test files and import cases, every kind written and read back, images,
hostile XML and broken files.

The fixtures in tests/samples/moodle_xml/ are Moodle's (question/format/xml/tests/fixtures/, GPL-3,
see its README); the cases marked `xmlformat_test.php` are the XML of Moodle's test_import_* cases,
word for word, each expected as Moodle stores the question, as the app holds it:
* the stem is Moodle's questiontext, kept as written in its format (html: markup "html");
* the choices carry Moodle's fractions (a share, Decimal), tolerances and matching pairs; the
  numerical `*` "any other answer" is dropped;
* the explanation is the generalfeedback or, without one, the right answers' feedback;
* kinds the app has not (essay, description, cloze) are skipped with a warning naming the line.
Not here: Moodle's export tests (the app writes its own Moodle XML, tested below by reading it
back), hints and combined feedback (left out), tags' own tests (tags are read as topics below).
"""

import base64
import hashlib
import io
import random
import re
import tracemalloc
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse
from PIL import Image

from quiz.content import ContentError, ExportError, export_one, parse_document
from quiz.content.documents import SkippedItems
from quiz.content.moodle_xml_format import write_moodle_xml
from quiz.content.reading import recognise
from quiz.models import MediaFile, PendingImport, QuestionSet
from quiz.models.kinds import QuestionKind as Kind
from tests.export_content import (
    SEED_SET_TITLE,
    TRICKY_SET,
    container,
    import_content,
    plain_data,
    reimport,
)
from tests.factories import make_user

SAMPLES = Path(__file__).parent / "samples" / "moodle_xml"
JPEG = b"\xff\xd8\xff"


def png(color="red"):
    """A real 2x2 PNG: importing checks that an image is one."""
    image = io.BytesIO()
    Image.new("RGB", (2, 2), color).save(image, "PNG")
    return image.getvalue()


PNG = png()


def photo():
    """A JPEG of noise, as a photo is: unlike a flat PNG, saving it again from its pixels gives
    other bytes (JPEG is lossy), as importing does with every image it stores."""
    rng = random.Random(1)
    image = Image.new("RGB", (40, 30))
    image.putdata([tuple(rng.randrange(256) for _ in "RGB") for _ in range(40 * 30)])
    out = io.BytesIO()
    image.save(out, "JPEG")
    return out.getvalue()


def parse(text, file="bank.xml"):
    [document], warnings = parse_document(text.encode("utf-8"), file, "moodle")
    return document, warnings


def parse_sample(name):
    [document], warnings = parse_document((SAMPLES / name).read_bytes(), name)  # recognised by content
    return document, warnings


def quiz(*questions):
    return '<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n' + "\n".join(questions) + "\n</quiz>\n"


def held(question):
    return {
        "kind": question.kind, "stem": question.stem, "choices": question.choices,
        "explanation": question.explanation, "partial_credit": question.partial_credit,
        "case_sensitive": question.case_sensitive, "markup": question.markup,
    }


def expected(kind, stem, choices, explanation="", partial_credit=False, case_sensitive=False, markup="html"):
    return {
        "kind": kind, "stem": stem, "choices": choices, "explanation": explanation,
        "partial_credit": partial_credit, "case_sensitive": case_sensitive, "markup": markup,
    }


# --- Moodle's fixtures (qformat_xml_import_export_test.php and xmlformat_test.php) -------------------


def test_a_category_with_a_description_is_its_questions_topic():
    document, warnings = parse_sample("category_with_description.xml")

    [question] = document.items
    assert warnings == []
    assert (document.title, document.file_name) == ("category with description", "category_with_description.xml")
    assert question.topics == ["Alpha"]
    assert held(question) == expected(Kind.TRUE_FALSE, "<p>Testing Alpha Question</p>", [("True", True), ("False", False)])


def test_nested_categories_are_paths_and_the_essay_is_skipped_with_its_line_and_name():
    document, warnings = parse_sample("nested_categories_with_questions.xml")

    assert [(q.stem, q.topics) for q in document.items] == [
        ("<p>Testing Iota Question</p>", ["Iota"]),
        ("<p>Testing Kappa Question</p>", ["Iota/Kappa"]),
        ("<p>Testing Lambda Question</p>", ["Iota/Kappa/Lambda"]),
        ("<p>Testing Mu Question</p>", ["Iota/Mu"]),
    ]
    assert warnings == ["nested_categories_with_questions.xml:55: skipped essay question 'Kappa Essay Question': "
                        "the app has no such kind of question"]


def test_an_old_file_without_formats_reads_its_categories():
    document, warnings = parse_sample("old_format_file.xml")

    assert [(q.stem, q.topics) for q in document.items] == [
        ("<p>Testing Pi Question</p>", ["Pi"]), ("<p>Testing Rho Question</p>", ["Pi/Rho"]),
    ]
    assert warnings == []


def test_a_child_category_before_its_parent_gives_each_question_its_own():
    document, warnings = parse_sample("categories_reverse_order.xml")

    [question] = document.items
    assert question.topics == ["Sigma"]
    assert held(question) == expected(
        Kind.SHORT_ANSWER, "Testing Sigma Question", [("yes", True), ("no", False, 0), ("may be", False, 0)], markup="plain",
    )
    assert warnings == ["categories_reverse_order.xml:14: skipped essay question 'Tau Question': "
                        "the app has no such kind of question"]


@pytest.mark.parametrize(("name", "skipped"), [("broken_cloze_questions.xml", 5), ("multianswer.xml", 1)])
def test_a_file_of_cloze_questions_is_refused_as_empty(name, skipped):
    with pytest.raises(ContentError, match=rf"^{name}: no question to import \({skipped} skipped\)$"):
        parse_sample(name)


def test_moodles_multichoice_fixture_keeps_its_images_and_names_the_sound_it_cannot_keep():
    document, warnings = parse_sample("multichoice.xml")

    [question] = document.items
    assert (question.kind, question.markup, question.topics) == (Kind.SINGLE, "html", ["Default for testhead/Multichoice"])
    assert question.choices == [
        ('<p><img src="media:flag-uk.jpg" alt="British Flag" width="30" height="20" /> English</p>', False),
        ('<p><img src="media:flag-france.jpg" alt="French flag" width="30" height="20" /> French</p>', True),
        ('<p><img src="media:flag-german.jpg" alt="German flag" width="30" height="20" /> German</p>', False),
        ('<p><img src="media:flag-denmark.jpg" alt="Denmark flag" width="30" height="20" /> Danish</p>', False),
    ]
    assert question.explanation == "<p>Yes, well done!</p>"  # no general feedback: the right answer's
    assert [(m.file_name, m.alt, m.data[:3]) for m in document.media] == [
        ("flag-uk.jpg", "British Flag", JPEG), ("flag-france.jpg", "French flag", JPEG),
        ("flag-german.jpg", "German flag", JPEG), ("flag-denmark.jpg", "Denmark flag", JPEG),
    ]
    # Only images are kept: the link to the sound stays as Moodle wrote it, and the warning says so.
    assert '<a href="@@PLUGINFILE@@/bonjour.mp3">' in question.stem
    assert warnings == ["multichoice.xml:18: multichoice question 'Greeting': bonjour.mp3 is not an image "
                        "(only images are kept); the reference is left as it is"]


def test_moodles_true_false_fixture_decodes_the_images_its_kept_texts_show():
    document, warnings = parse_sample("truefalse.xml")

    false_one, true_one = document.items
    assert warnings == []
    assert (false_one.choices, true_one.choices) == ([("True", False), ("False", True)], [("True", True), ("False", False)])
    assert false_one.stem.startswith('<p>Moodle\xa0<img src="media:logo.jpg" alt="Moodle logo" width="48" height="48" />')
    assert false_one.explanation.startswith('<p><img src="media:infos.jpg" alt="Informations"')
    assert "@@PLUGINFILE@@" not in false_one.stem + false_one.explanation + true_one.stem + true_one.explanation
    # Both questions carry the same logo: one image. The answers' feedback is not kept, nor its images.
    assert [(m.file_name, m.alt, m.data[:3], m.line) for m in document.media] == [
        ("logo.jpg", "Moodle logo", JPEG, 18), ("infos.jpg", "Informations", JPEG, 21),
    ]


def test_moodle_19s_image_tag_is_appended_to_the_question_text_as_moodle_does():
    document, warnings = parse_sample("sample_questions_with_old_image_tag.xml")

    [question] = document.items
    assert question.stem == ('This is a multichoice question with an image in the old &quot;image&quot; field that '
                             'was used in Moodle 1.9 <img src="media:moodle.png" />')
    assert question.choices == [("wrong answer", False), ("another wrong answer", False), ("right answer", True)]
    [image] = document.media
    assert (image.file_name, image.data[:8]) == ("moodle.png", PNG[:8])
    assert warnings[0] == ("sample_questions_with_old_image_tag.xml:16: skipped cloze question "
                           "'cloze question with image': the app has no such kind of question")


# --- xmlformat_test.php: test_import_* -------------------------------------------------------------

IMPORTED = [
    pytest.param(
        """  <question type="matching">
    <name>
      <text>Matching question</text>
    </name>
    <questiontext format="html">
      <text>Match the upper and lower case letters.</text>
    </questiontext>
    <generalfeedback>
      <text>The answer is A -> a, B -> b and C -> c.</text>
    </generalfeedback>
    <defaultgrade>1</defaultgrade>
    <penalty>0.3333333</penalty>
    <hidden>0</hidden>
    <shuffleanswers>false</shuffleanswers>
    <correctfeedback>
      <text>Well done.</text>
    </correctfeedback>
    <partiallycorrectfeedback>
      <text>Not entirely.</text>
    </partiallycorrectfeedback>
    <incorrectfeedback>
      <text>Completely wrong!</text>
    </incorrectfeedback>
    <subquestion>
      <text>A</text>
      <answer>
        <text>a</text>
      </answer>
    </subquestion>
    <subquestion>
      <text>B</text>
      <answer>
        <text>b</text>
      </answer>
    </subquestion>
    <subquestion>
      <text>C</text>
      <answer>
        <text>c</text>
      </answer>
    </subquestion>
    <subquestion>
      <text></text>
      <answer>
        <text>d</text>
      </answer>
    </subquestion>
    <hint>
      <text>Hint 1</text>
      <shownumcorrect />
    </hint>
    <hint>
      <text></text>
      <shownumcorrect />
      <clearwrong />
    </hint>
    <tags>
      <tag><text>tagMatching</text></tag>
      <tag><text>tagTest</text></tag>
    </tags>
  </question>""",
        expected(Kind.MATCHING, "Match the upper and lower case letters.", [
            ("A", True, None, None, "a"), ("B", True, None, None, "b"), ("C", True, None, None, "c"),
            ("", False, None, None, "d"),
        ], explanation="The answer is A -> a, B -> b and C -> c.", partial_credit=True),
        ["tagMatching", "tagTest"],
        id="test_import_match_19",
    ),
    pytest.param(
        """  <question type="multichoice">
    <name>
      <text>Multiple choice question</text>
    </name>
    <questiontext format="html">
      <text>Which are the even numbers?</text>
    </questiontext>
    <generalfeedback>
      <text>The even numbers are 2 and 4.</text>
    </generalfeedback>
    <defaultgrade>2</defaultgrade>
    <penalty>0.3333333</penalty>
    <hidden>0</hidden>
    <single>false</single>
    <shuffleanswers>false</shuffleanswers>
    <answernumbering>abc</answernumbering>
    <correctfeedback>
      <text><![CDATA[<p>Your answer is correct.</p>]]></text>
    </correctfeedback>
    <partiallycorrectfeedback>
      <text><![CDATA[<p>Your answer is partially correct.</p>]]></text>
    </partiallycorrectfeedback>
    <incorrectfeedback>
      <text><![CDATA[<p>Your answer is incorrect.</p>]]></text>
    </incorrectfeedback>
    <shownumcorrect/>
    <answer fraction="0">
      <text>1</text>
      <feedback>
        <text></text>
      </feedback>
    </answer>
    <answer fraction="100">
      <text>2</text>
      <feedback>
        <text></text>
      </feedback>
    </answer>
    <answer fraction="0">
      <text>3</text>
      <feedback>
        <text></text>
      </feedback>
    </answer>
    <answer fraction="100">
      <text>4</text>
      <feedback>
        <text></text>
      </feedback>
    </answer>
    <hint>
      <text>Hint 1.</text>
    </hint>
    <hint>
      <text>Hint 2.</text>
    </hint>
  </question>""",
        # Moodle's multiple answer: each answer's fraction is its weight (1, 0, 1, 0), partial credit.
        expected(Kind.SELECT_ALL, "Which are the even numbers?", [
            ("1", False, Decimal(0)), ("2", True, Decimal(1)), ("3", False, Decimal(0)), ("4", True, Decimal(1)),
        ], explanation="The even numbers are 2 and 4.", partial_credit=True),
        None,
        id="test_import_multichoice_19",
    ),
    pytest.param(
        """  <question type="numerical">
    <name>
      <text>Numerical question</text>
    </name>
    <questiontext format="html">
      <text>What is the answer?</text>
    </questiontext>
    <generalfeedback>
      <text>General feedback: Think Hitch-hikers guide to the Galaxy.</text>
    </generalfeedback>
    <defaultgrade>1</defaultgrade>
    <penalty>0.1</penalty>
    <hidden>0</hidden>
    <answer fraction="100">
      <text>42</text>
      <feedback>
        <text>Well done!</text>
      </feedback>
      <tolerance>0.001</tolerance>
    </answer>
    <answer fraction="0">
      <text>13</text>
      <feedback>
        <text>What were you thinking?!</text>
      </feedback>
      <tolerance>1</tolerance>
    </answer>
    <answer fraction="0">
      <text>*</text>
      <feedback>
        <text>Completely wrong.</text>
      </feedback>
      <tolerance></tolerance>
    </answer>
  </question>""",
        # Moodle: 42 ± 0.001 (100%), 13 ± 1 (0%), * (0%); the app drops the * catch-all.
        expected(Kind.NUMERICAL, "What is the answer?",
                 [("42", True, None, Decimal("0.001")), ("13", False, Decimal(0), Decimal(1))],
                 explanation="General feedback: Think Hitch-hikers guide to the Galaxy."),
        None,
        id="test_import_numerical_19",
    ),
    pytest.param(
        """  <question type="shortanswer">
    <name>
      <text>Short answer question</text>
    </name>
    <questiontext format="html">
      <text>Fill in the gap in this sequence: Alpha, ________, Gamma.</text>
    </questiontext>
    <generalfeedback>
      <text>The answer is Beta.</text>
    </generalfeedback>
    <defaultgrade>1</defaultgrade>
    <penalty>0.3333333</penalty>
    <hidden>0</hidden>
    <usecase>0</usecase>
    <answer fraction="100" format="plain_text">
      <text>Beta</text>
      <feedback>
        <text>Well done!</text>
      </feedback>
    </answer>
    <answer fraction="0" format="plain_text">
      <text>*</text>
      <feedback>
        <text>Doh!</text>
      </feedback>
    </answer>
    <hint>
      <text>Hint 1</text>
    </hint>
    <hint>
      <text>Hint 2</text>
    </hint>
  </question>""",
        expected(Kind.SHORT_ANSWER, "Fill in the gap in this sequence: Alpha, ________, Gamma.",
                 [("Beta", True), ("*", False, Decimal(0))], explanation="The answer is Beta."),
        None,
        id="test_import_shortanswer_19",
    ),
    pytest.param(
        """  <question type="truefalse">
    <name>
      <text>True false question</text>
    </name>
    <questiontext format="html">
      <text>The answer is true.</text>
    </questiontext>
    <generalfeedback>
      <text>General feedback: You should have chosen true.</text>
    </generalfeedback>
    <defaultgrade>1</defaultgrade>
    <penalty>1</penalty>
    <hidden>0</hidden>
    <answer fraction="100">
      <text>true</text>
      <feedback>
        <text>Well done!</text>
      </feedback>
    </answer>
    <answer fraction="0">
      <text>false</text>
      <feedback>
        <text>Doh!</text>
      </feedback>
    </answer>
  </question>""",
        expected(Kind.TRUE_FALSE, "The answer is true.", [("True", True), ("False", False)],
                 explanation="General feedback: You should have chosen true."),
        None,
        id="test_import_truefalse_19",
    ),
    pytest.param(
        """  <question type="truefalse">
    <name>
      <text>True false question</text>
    </name>
    <questiontext format="html">
      <text>The answer is true.</text>
    </questiontext>
    <generalfeedback>
      <text>General feedback: You should have chosen true.</text>
    </generalfeedback>
    <defaultgrade>1</defaultgrade>
    <penalty>1</penalty>
    <hidden>0</hidden>
    <idnumber>TestIdNum1</idnumber>
    <answer fraction="100">
      <text>true</text>
      <feedback>
        <text>Well done!</text>
      </feedback>
    </answer>
    <answer fraction="0">
      <text>false</text>
      <feedback>
        <text>Doh!</text>
      </feedback>
    </answer>
  </question>""",
        expected(Kind.TRUE_FALSE, "The answer is true.", [("True", True), ("False", False)],
                 explanation="General feedback: You should have chosen true."),
        None,
        id="test_import_truefalse_with_idnumber",
    ),
]


@pytest.mark.parametrize(("xml", "question", "topics"), IMPORTED)
def test_moodles_import_case_is_read_as_moodle_stores_it(xml, question, topics):
    document, warnings = parse(quiz(xml))

    [read] = document.items
    assert warnings == []
    assert held(read) == question
    assert read.topics == topics  # Moodle's tags are topics; no category and no tag: None


SKIPPED = [
    pytest.param(
        """  <question type="description">
    <name>
      <text>A description</text>
    </name>
    <questiontext format="html">
      <text>The question text.</text>
    </questiontext>
    <generalfeedback>
      <text>Here is some general feedback.</text>
    </generalfeedback>
    <defaultgrade>0</defaultgrade>
    <penalty>0</penalty>
    <hidden>0</hidden>
    <tags>
      <tag><text>tagDescription</text></tag>
      <tag><text>tagTest</text></tag>
    </tags>
  </question>""", "description question 'A description'", id="test_import_description"),
    pytest.param(
        """  <question type="essay">
    <name>
      <text>An essay</text>
    </name>
    <questiontext format="moodle_auto_format">
      <text>Write something.</text>
    </questiontext>
    <generalfeedback>
      <text>I hope you wrote something interesting.</text>
    </generalfeedback>
    <defaultgrade>1</defaultgrade>
    <penalty>0</penalty>
    <hidden>0</hidden>
    <tags>
      <tag><text>tagEssay</text></tag>
      <tag><text>tagEssay20</text></tag>
      <tag><text>tagTest</text></tag>
    </tags>
  </question>""", "essay question 'An essay'", id="test_import_essay_20"),
    pytest.param(
        """  <question type="cloze">
    <name>
      <text>Simple multianswer</text>
    </name>
    <questiontext format="html">
      <text><![CDATA[Complete this opening line of verse: "The {1:SHORTANSWER:Dog#Wrong, silly!~=Owl#Well done!~*#Wrong answer} and the {1:MULTICHOICE:Bow-wow#You seem to have a dog obsessions!~Wiggly worm#Now you are just being ridiculous!~=Pussy-cat#Well done!} went to sea".]]></text>
    </questiontext>
    <generalfeedback format="html">
      <text><![CDATA[General feedback: It\\'s from "The Owl and the Pussy-cat" by Lear: "The owl and the pussycat went to sea".]]></text>
    </generalfeedback>
    <penalty>0.5</penalty>
    <hidden>0</hidden>
    <hint format="html">
      <text>Hint 1</text>
    </hint>
    <hint format="html">
      <text>Hint 2</text>
    </hint>
    <tags>
      <tag><text>tagCloze</text></tag>
      <tag><text>tagTest</text></tag>
    </tags>
  </question>""", "cloze question 'Simple multianswer'", id="test_import_multianswer"),
]
TRUE_FALSE = """<question type="truefalse"><name><text>filler</text></name>
<questiontext format="plain_text"><text>A question, so the file is not empty.</text></questiontext>
<answer fraction="100"><text>true</text></answer><answer fraction="0"><text>false</text></answer></question>"""


@pytest.mark.parametrize(("xml", "label"), SKIPPED)
def test_moodles_kinds_the_app_has_not_are_skipped_with_a_warning_naming_them(xml, label):
    document, warnings = parse(quiz(xml, TRUE_FALSE))

    assert [q.stem for q in document.items] == ["A question, so the file is not empty."]
    assert warnings == [f"bank.xml:3: skipped {label}: the app has no such kind of question"]


def test_a_file_in_a_folder_is_found_by_its_path_as_test_import_truefalse_wih_files_has_it():
    # xmlformat_test.php's case, with an image where it has a text file.
    xml = quiz(f"""<question type="truefalse">
    <name>
      <text>truefalse</text>
    </name>
    <questiontext format="html">
      <text><![CDATA[<p><img src="@@PLUGINFILE@@/myfolder/moodle.png" alt="Moodle"> contains the word Moodle.</p>]]></text>
<file name="moodle.png" path="/myfolder/" encoding="base64">{base64.b64encode(PNG).decode()}</file>
    </questiontext>
    <answer fraction="100" format="moodle_auto_format"><text>true</text></answer>
    <answer fraction="0" format="moodle_auto_format"><text>false</text></answer>
  </question>""")

    document, warnings = parse(xml)

    assert document.items[0].stem == '<p><img src="media:moodle.png" alt="Moodle"> contains the word Moodle.</p>'
    assert [(m.file_name, m.data, m.alt, m.line) for m in document.media] == [("moodle.png", PNG, "Moodle", 9)]
    assert warnings == []


# --- How the app reads what Moodle allows and the app holds otherwise ------------------------------


def multichoice(*answers, single="true", name="Pick"):
    rows = "".join(f'<answer fraction="{fraction}"><text>{text}</text></answer>' for text, fraction in answers)
    return (f'<question type="multichoice"><name><text>{name}</text></name><questiontext format="plain_text">'
            f"<text>Pick one.</text></questiontext><single>{single}</single>{rows}</question>")


@pytest.mark.parametrize(("answers", "reason"), [
    ((("a", 100), ("b", 50)), "an answer gives partial credit or a penalty"),
    ((("a", 100), ("b", -50)), "an answer gives partial credit or a penalty"),
    ((("a", 100), ("b", 100)), "2 answers are worth 100% (Moodle accepts any one of them)"),
])
def test_a_single_answer_question_the_app_cannot_grade_as_moodle_does_is_skipped(answers, reason):
    document, warnings = parse(quiz(multichoice(*answers), TRUE_FALSE))

    assert len(document.items) == 1
    assert warnings[0].startswith(f"bank.xml:3: skipped multichoice question 'Pick': {reason}")


def test_texts_in_another_format_than_the_question_text_are_turned_into_its_markup():
    xml = quiz("""<question type="multichoice"><name><text>Mixed</text></name>
<questiontext format="html"><text><![CDATA[<p>Which is <b>bold</b>?</p>]]></text></questiontext>
<generalfeedback format="plain_text"><text>a < b & c
second line</text></generalfeedback>
<answer fraction="100" format="plain_text"><text>x <b></text></answer>
<answer fraction="0" format="markdown"><text>*y*</text></answer>
</question>
<question type="multichoice"><name><text>Plain</text></name>
<questiontext format="moodle_auto_format"><text>Plain?</text></questiontext>
<answer fraction="100" format="html"><text><![CDATA[<p>Yes &amp; <b>no</b></p>]]></text></answer>
<answer fraction="0" format="html"><text><![CDATA[<p>No</p>]]></text></answer>
</question>""".replace("a < b & c", "a &lt; b &amp; c").replace("x <b>", "x &lt;b&gt;"))

    document, _ = parse(xml)

    html, plain = document.items
    assert (html.markup, plain.markup) == ("html", "plain")
    assert html.explanation == "a &lt; b &amp; c<br>\nsecond line"
    assert html.choices == [("x &lt;b&gt;", True), ("*y*", False)]
    assert plain.choices == [("Yes & no", True), ("No", False)]


def test_a_markdown_question_stays_markdown():
    document, _ = parse(quiz("""<question type="shortanswer"><name><text>m</text></name>
<questiontext format="markdown"><text>What is **bold** written with?</text></questiontext>
<usecase>1</usecase><answer fraction="100"><text>**</text></answer></question>"""))

    [question] = document.items
    assert (question.markup, question.stem, question.choices, question.case_sensitive) == (
        "markdown", "What is **bold** written with?", [("**", True)], True)


def test_a_numerical_value_in_exponent_notation_is_written_out_and_units_are_left_out_with_a_warning():
    document, warnings = parse(quiz("""<question type="numerical"><name><text>c</text></name>
<questiontext format="plain_text"><text>The speed of light in m/s?</text></questiontext>
<answer fraction="100"><text>3e8</text><tolerance>1e7</tolerance></answer>
<units><unit><multiplier>1</multiplier><unit_name>m/s</unit_name></unit></units>
</question>"""))

    assert document.items[0].choices == [("300000000", True, None, Decimal("1E+7"))]
    assert warnings == ["bank.xml:3: numerical question 'c': its units are left out"]


def test_the_same_value_accepted_twice_is_skipped_with_a_warning():
    document, warnings = parse(quiz("""<question type="numerical"><name><text>n</text></name>
<questiontext format="plain_text"><text>n?</text></questiontext>
<answer fraction="100"><text>42</text><tolerance>0</tolerance></answer>
<answer fraction="50"><text>42</text><tolerance>1</tolerance></answer></question>""", TRUE_FALSE))

    assert len(document.items) == 1
    assert "skipped numerical question 'n': the value 42 is accepted twice" in warnings[0]


def test_a_category_applies_until_the_next_and_tags_add_topics():
    document, _ = parse(quiz(
        TRUE_FALSE,
        '<question type="category"><category><text>$module$/top/Networking//Routing</text></category></question>',
        TRUE_FALSE.replace("</question>", "<tags><tag><text>OSI</text></tag><tag><text>Networking//Routing</text></tag></tags></question>"),
        '<question type="category"><category><text>$course$/top</text></category></question>',
        TRUE_FALSE,
    ))

    assert [q.topics for q in document.items] == [None, ["Networking//Routing", "OSI"], []]


# --- Images ----------------------------------------------------------------------------------------


def image_question(name, data, reference=None, line_break=""):
    reference = reference or name
    return (f'<question type="truefalse"><name><text>{name}</text></name>\n<questiontext format="html">'
            f'<text><![CDATA[<img src="@@PLUGINFILE@@/{reference}" alt="An image">]]></text>\n'
            f'<file name="{name}" path="/" encoding="base64">{line_break}{base64.b64encode(data).decode()}</file>'
            '</questiontext><answer fraction="100"><text>true</text></answer><answer fraction="0"><text>false</text>'
            "</answer></question>")


def test_the_same_name_with_other_bytes_in_another_question_gets_a_name_of_its_own():
    other = png("blue")

    document, _ = parse(quiz(image_question("x.png", PNG), image_question("x.png", other), image_question("x.png", PNG)))

    renamed = f"{hashlib.sha256(other).hexdigest()[:8]}-x.png"
    assert [q.stem for q in document.items] == [
        '<img src="media:x.png" alt="An image">', f'<img src="media:{renamed}" alt="An image">',
        '<img src="media:x.png" alt="An image">',
    ]
    assert [(m.file_name, m.data) for m in document.media] == [("x.png", PNG), (renamed, other)]


def test_a_url_encoded_reference_finds_its_file_and_the_name_is_made_safe_for_a_reference():
    document, _ = parse(quiz(image_question("my pic (1).png", PNG, reference="my%20pic%20%281%29.png", line_break="\n")))

    assert document.items[0].stem == '<img src="media:my_pic__1_.png" alt="An image">'
    assert document.media[0].file_name == "my_pic__1_.png"


def test_a_file_that_is_not_base64_is_refused_at_its_line():
    xml = quiz(image_question("x.png", PNG).replace(base64.b64encode(PNG).decode(), "not base64!"))

    with pytest.raises(ContentError, match=r"^bank.xml:5: the file 'x.png' is not valid base64$"):
        parse(xml)


def test_a_reference_without_its_file_is_left_as_it_is_with_a_warning():
    xml = quiz(image_question("x.png", PNG, reference="missing.png"))

    document, warnings = parse(xml)

    assert document.items[0].stem == '<img src="@@PLUGINFILE@@/missing.png" alt="An image">'
    assert document.media == []
    assert warnings == ["bank.xml:4: truefalse question 'x.png': missing.png is not in the file (no <file> of that "
                        "name); the reference is left as it is"]


def test_the_images_of_a_skipped_question_are_not_kept():
    skipped = image_question("x.png", PNG).replace('type="truefalse"', 'type="essay"')

    document, _ = parse(quiz(skipped, TRUE_FALSE))

    assert document.media == []


# --- Hostile and broken XML ------------------------------------------------------------------------

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE quiz [
  <!ENTITY lol "lol">
  <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
  <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
  <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
  <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
  <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
  <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
  <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
  <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<quiz><question type="truefalse"><questiontext><text>&lol9;</text></questiontext></question></quiz>
"""


def external_entity(secret):
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE quiz [<!ENTITY xxe SYSTEM "file://{secret}">]>
<quiz><question type="truefalse"><name><text>n</text></name>
<questiontext format="plain_text"><text>&xxe;</text></questiontext>
<answer fraction="100"><text>true</text></answer><answer fraction="0"><text>false</text></answer></question></quiz>
"""


def test_the_billion_laughs_are_refused_without_expanding_them():
    tracemalloc.start()
    with pytest.raises(ContentError) as refused:
        parse(BILLION_LAUGHS, "laughs.xml")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    assert str(refused.value).startswith("laughs.xml:2: a <!DOCTYPE> is not allowed")
    assert peak < 5_000_000  # expanded, lol9 is a gigabyte


def test_an_external_entity_is_refused_without_reading_the_file(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the server's secret")

    with pytest.raises(ContentError) as refused:
        parse(external_entity(secret), "xxe.xml")

    assert str(refused.value).startswith("xxe.xml:2: a <!DOCTYPE> is not allowed")
    assert "secret" not in str(refused.value).replace(str(tmp_path), "")


@pytest.mark.parametrize("doctype", [
    '<!DOCTYPE quiz SYSTEM "http://example.com/quiz.dtd">',
    '<!DOCTYPE quiz [<!ENTITY % remote SYSTEM "http://example.com/x.dtd"> %remote;]>',
    "<!DOCTYPE quiz>",
])
def test_any_dtd_is_refused_naming_the_file_and_line(doctype):
    xml = f'<?xml version="1.0"?>\n\n{doctype}\n<quiz>{TRUE_FALSE}</quiz>\n'

    with pytest.raises(ContentError, match=r"^dtd.xml:3: a <!DOCTYPE> is not allowed"):
        parse(xml, "dtd.xml")


def test_an_xml_file_is_recognised_by_content_even_with_a_dtd():
    with pytest.raises(ContentError, match=r"^laughs.txt:2: a <!DOCTYPE> is not allowed"):
        parse_document(BILLION_LAUGHS.encode(), "laughs.txt")


@pytest.mark.parametrize(("xml", "message"), [
    (quiz(TRUE_FALSE, "<question type='truefalse'>\n<questiontext><text>x</questiontext>"),
     "bank.xml:7: not well-formed XML: mismatched tag"),
    (quiz(TRUE_FALSE.replace("A question", "A&nbsp;question")), "bank.xml:4: not well-formed XML: undefined entity"),
    ('<?xml version="1.0"?>\n<questions>\n</questions>\n',
     "bank.xml:2: not a Moodle XML question bank: the root element is <questions>, not <quiz>"),
    (quiz(TRUE_FALSE) + "<quiz/>", "bank.xml:7: not well-formed XML: junk after document element"),
    ('<?xml version="1.0"?>\n<quiz>\n<question type="truefalse">', "bank.xml:3: not well-formed XML: no element found"),
    (quiz("<question><questiontext><text>x</text></questiontext></question>"),
     "bank.xml:3: a <question> needs a type attribute (multichoice, truefalse, ...)"),
    (quiz(TRUE_FALSE.replace("<text>A question", "<text><b>A</b> question")),
     "bank.xml:4: <text> holds a <b> element: write HTML inside <![CDATA[ ... ]]>, or &lt; for <"),
    (quiz(multichoice(("a", "lots"), ("b", 0))),
     "bank.xml:3: an answer's fraction: the weight 'lots' is not a number"),
    (quiz(multichoice(("a", 50), ("b", 0))), "bank.xml:3: no answer is worth 100%"),
    (quiz(multichoice(("a", 50), ("b", 0), single="false")),
     "bank.xml:3: the multichoice question 'Pick': the right choices' weights add up to less than 100%"),
    (quiz('<question type="numerical"><questiontext><text>n?</text></questiontext>\n'
          '<answer fraction="100"><text>forty</text></answer></question>'),
     "bank.xml:4: the value 'forty' is not a number"),
    (quiz('<question type="truefalse"><name><text>n</text></name></question>'), "bank.xml:3: the question has no <questiontext>"),
])
def test_broken_xml_is_refused_with_the_elements_line(xml, message):
    with pytest.raises(ContentError) as refused:
        parse(xml)

    assert str(refused.value).startswith(message)


def test_every_broken_question_is_reported_at_once():
    broken = multichoice(("a", 50), ("b", 0))

    with pytest.raises(ContentError) as refused:
        parse(quiz(broken, TRUE_FALSE, broken))

    assert [problem.line for problem in refused.value.problems] == [3, 7]


def test_broken_questions_are_skipped_items_and_a_broken_file_is_not():
    broken = multichoice(("a", 50), ("b", 0))

    with pytest.raises(SkippedItems) as skipped:
        parse(quiz(broken, TRUE_FALSE, broken, TRUE_FALSE))
    [document] = skipped.value.documents
    assert (document.skipped, document.positions(), len(document.items)) == ([1, 3], [2, 4], 2)

    with pytest.raises(ContentError) as refused:  # a broken category names the topics of what follows
        parse(quiz(TRUE_FALSE, f'<question type="category"><category><text>{"t" * 101}</text></category></question>',
                   TRUE_FALSE))
    assert not isinstance(refused.value, SkippedItems)


def test_an_encoding_declaration_other_than_utf8_does_not_garble_the_utf8_text():
    xml = quiz(TRUE_FALSE.replace("A question", "Une qüestion")).replace('encoding="UTF-8"', 'encoding="ISO-8859-1"')

    document, _ = parse(xml)

    assert document.items[0].stem == "Une qüestion, so the file is not empty."


# --- Writing, and reading back ---------------------------------------------------------------------

KINDS = {
    "title": "Every kind",
    "questions": [
        {"key": "a", "stem": "Which <b>layer</b> routes packets?", "explanation": "<p>Layer 3 &amp; up</p>",
         "markup": "html", "topics": ["Networking/Routing"],
         "choices": [{"text": "Network", "correct": True}, {"text": "Link ]]> &", "correct": False}]},
        {"key": "b", "stem": "Which are even?", "explanation": "", "kind": "select_all", "partial_credit": True,
         "topics": ["A, with a comma", "B"],
         "choices": [{"text": "2", "correct": True, "weight": 50}, {"text": "4", "correct": True},
                     {"text": "3", "correct": False, "weight": -100}]},
        {"key": "c", "stem": "Routers keep state.\nSecond line\twith a tab", "explanation": "They do not.",
         "kind": "true_false", "choices": [{"text": "True", "correct": False}, {"text": "False", "correct": True}]},
        {"key": "d", "stem": "Which link joins GPUs?", "explanation": "NVLink.", "kind": "short_answer",
         "case_sensitive": True, "markup": "markdown",
         "choices": [{"text": "NVLink", "correct": True}, {"text": "NV*", "correct": False, "weight": 50},
                     {"text": "*", "correct": False, "weight": 0}]},
        {"key": "e", "stem": "Pi?", "explanation": "", "kind": "numerical", "topics": ["Maths"],
         "choices": [{"text": "3.14", "correct": True, "tolerance": 0.01}, {"text": "3", "correct": False, "weight": 12.5}]},
        {"key": "f", "stem": "Match the layers.", "explanation": "TCP -> 4", "kind": "matching", "partial_credit": True,
         "topics": ["Maths"],
         "choices": [{"text": "TCP", "correct": True, "match": "Transport"},
                     {"text": "IP", "correct": True, "match": "Network"},
                     {"text": "", "correct": False, "match": "Physical"}]},
    ],
}


def test_every_kind_is_written_so_that_it_reads_back_as_it_is():
    document, warnings = parse(write_moodle_xml(KINDS), "every_kind.xml")

    assert warnings == []
    assert [held(q) | {"topics": q.topics} for q in document.items] == [
        expected(Kind.SINGLE, "Which <b>layer</b> routes packets?", [("Network", True), ("Link ]]> &", False)],
                 "<p>Layer 3 &amp; up</p>") | {"topics": ["Networking/Routing"]},
        expected(Kind.SELECT_ALL, "Which are even?", [("2", True, Decimal("0.5")), ("4", True, Decimal("0.5")),
                                                      ("3", False, Decimal(-1))], partial_credit=True, markup="plain")
        | {"topics": ["A, with a comma", "B"]},
        expected(Kind.TRUE_FALSE, "Routers keep state.\nSecond line\twith a tab", [("True", False), ("False", True)],
                 "They do not.", markup="plain") | {"topics": []},
        expected(Kind.SHORT_ANSWER, "Which link joins GPUs?", [("NVLink", True), ("NV*", False, Decimal("0.5")),
                                                               ("*", False, Decimal(0))], "NVLink.", case_sensitive=True,
                 markup="markdown") | {"topics": []},
        expected(Kind.NUMERICAL, "Pi?", [("3.14", True, None, Decimal("0.01")), ("3", False, Decimal("0.125"), Decimal(0))],
                 markup="plain") | {"topics": ["Maths"]},
        expected(Kind.MATCHING, "Match the layers.", [("TCP", True, None, None, "Transport"), ("IP", True, None, None, "Network"),
                                                      ("", False, None, None, "Physical")], "TCP -> 4", partial_credit=True,
                 markup="plain") | {"topics": ["Maths"]},
    ]


def test_a_written_file_is_recognised_as_moodle_xml_and_opens_with_moodles_header():
    text = write_moodle_xml(KINDS)

    assert recognise(text) == "moodle"
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n<!-- Every kind -->\n')
    assert '<question type="category">\n    <category>\n      <text>$course$/top/Networking/Routing</text>' in text


@pytest.mark.parametrize(("change", "refusal"), [
    ({"kind": "choose", "choices": [{"text": "a", "correct": True}, {"text": "b", "correct": True},
                                    {"text": "c", "correct": False}]}, "is choose N"),
    ({"kind": "select_all", "partial_credit": False}, "select all that apply without partial credit"),
    ({"kind": "matching", "partial_credit": False}, "matching without partial credit"),
    ({"stem": "A vertical\x0btab"}, "holds the control character U+000B"),
])
def test_what_moodle_cannot_hold_is_refused_naming_the_question(change, refusal):
    question = {"key": "a", "stem": "Which one?", "explanation": "", "choices": [
        {"text": "a", "correct": True, "match": "x"}, {"text": "b", "correct": False, "match": "y"}]} | change

    with pytest.raises(ExportError, match=re.escape(refusal)) as refused:
        write_moodle_xml({"title": "t", "questions": [question]})

    assert str(refused.value).startswith(repr(question["stem"]))


def test_images_given_with_the_set_are_embedded_and_read_back_as_media():
    data = {"title": "t", "questions": [
        {"key": "a", "stem": '<p><img src="media:osi.png" alt="The OSI layers"> Which layer?</p>', "markup": "html",
         "explanation": '<img src="media:osi.png" alt="again">',
         "choices": [{"text": "3", "correct": True}, {"text": '<img src="media:other.png" alt="">', "correct": False}]}]}

    text = write_moodle_xml(data, media={"osi.png": PNG})
    document, warnings = parse(text)

    assert text.count(f'<file name="osi.png" path="/" encoding="base64">{base64.b64encode(PNG).decode()}</file>') == 2
    [question] = document.items
    assert (question.stem, question.explanation, question.choices[1][0]) == (
        data["questions"][0]["stem"], data["questions"][0]["explanation"], '<img src="media:other.png" alt="">')
    assert [(m.file_name, m.data, m.alt) for m in document.media] == [("osi.png", PNG, "The OSI layers")]


def test_a_plain_text_questions_image_reference_is_written_as_it_is_and_reads_back():
    # A plain-text question shows no image, so reading takes no <file> for it: written as one, its
    # `media:` reference would come back as `@@PLUGINFILE@@/...`, a changed text.
    data = {"title": "t", "questions": [
        {"key": "a", "stem": "See media:osi.png", "explanation": "media:osi.png again",
         "choices": [{"text": "media:osi.png", "correct": True}, {"text": "b", "correct": False}]}]}

    text = write_moodle_xml(data, media={"osi.png": PNG})
    document, warnings = parse(text)

    assert "<file" not in text and "@@PLUGINFILE@@" not in text
    [question] = document.items
    assert (question.stem, question.explanation, question.choices) == (
        "See media:osi.png", "media:osi.png again", [("media:osi.png", True), ("b", False)])
    assert (document.media, warnings) == ([], [])


# --- Through the database: export, import into an empty one, export again ----------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("title", [TRICKY_SET, "Every kind"])
def test_it_exports_the_same_bytes_after_a_round_trip_and_keeps_every_row(tmp_path, title):
    import_content(tmp_path)
    kinds = tmp_path / "Every_kind.xml"
    kinds.write_text(write_moodle_xml(KINDS), encoding="utf-8")
    call_command("import_questions", str(kinds), "--format", "moodle", stdout=None)
    original = plain_data(container(title))
    first = export_one(container(title), "moodle")

    reimported = reimport(first, "moodle", tmp_path)

    assert export_one(reimported, "moodle") == first
    assert first.file_name.endswith(".xml")
    for question, number in zip(original["questions"], range(1, 100)):
        question["key"] = f"q{number}"  # every format but JSON numbers the questions
    assert plain_data(reimported) == original | {"source": first.file_name}


@pytest.mark.django_db
def test_the_seed_set_is_refused_naming_its_first_choose_n_question_or_written(tmp_path):
    import_content(tmp_path)
    try:
        exported = export_one(container(SEED_SET_TITLE), "moodle")
    except ExportError as refused:
        assert "is choose N, which Moodle has no kind of question for" in str(refused)
    else:
        assert recognise(exported.text) == "moodle"


@pytest.mark.django_db
def test_import_questions_reads_a_moodle_file_named_in_format(tmp_path):
    path = tmp_path / "moodle_bank.txt"  # the name says nothing: --format does
    path.write_bytes((SAMPLES / "nested_categories_with_questions.xml").read_bytes())

    call_command("import_questions", str(path), "--format", "moodle", stdout=None)

    question_set = QuestionSet.objects.get()
    assert question_set.title == "moodle bank"
    assert sorted(t.name for q in question_set.questions.all() for t in q.topics.all()) == [
        "Iota", "Iota/Kappa", "Iota/Kappa/Lambda", "Iota/Mu"]


# --- In the browser: the import page and the download menu -----------------------------------------


@pytest.fixture
def ann(db, client):
    user = make_user("ann")
    client.force_login(user)
    return user


def apply_previewed(client, url):
    previewed = re.search(r'name="previewed" value="(\w+)"', client.get(url).content.decode()).group(1)
    return client.post(url, {"previewed": previewed})


def test_the_import_page_previews_a_moodle_file_and_applies_it_once(client, ann):
    with open(SAMPLES / "nested_categories_with_questions.xml", "rb") as upload:
        response = client.post(reverse("import_content"), {"files": [upload]})
    assert response.status_code == 302, response.content.decode()

    preview = client.get(response.url).content.decode()
    assert "4 to add, 0 to change, 0 to remove" in preview
    assert "skipped essay question &#x27;Kappa Essay Question&#x27;" in preview  # with its line, as every warning
    assert not QuestionSet.objects.exists()

    assert apply_previewed(client, response.url).status_code == 302
    question_set = QuestionSet.objects.get()
    assert (question_set.owner, question_set.title) == (ann, "nested categories with questions")
    assert [(q.stem, [t.name for t in q.topics.all()]) for q in question_set.questions.order_by("position")] == [
        ("<p>Testing Iota Question</p>", ["Iota"]), ("<p>Testing Kappa Question</p>", ["Iota/Kappa"]),
        ("<p>Testing Lambda Question</p>", ["Iota/Kappa/Lambda"]), ("<p>Testing Mu Question</p>", ["Iota/Mu"]),
    ]
    assert {q.markup for q in question_set.questions.all()} == {"html"}


def test_the_import_page_refuses_a_hostile_file_naming_its_line_and_stages_nothing(client, ann):
    response = client.post(reverse("import_content"), {"text": BILLION_LAUGHS, "name": "laughs.xml", "format": ""})

    assert response.status_code == 422
    assert "laughs.xml:2: a &lt;!DOCTYPE&gt; is not allowed" in response.content.decode()
    assert not PendingImport.objects.exists()


def test_a_set_downloads_as_moodle_xml_from_the_download_menu(client, ann):
    with open(SAMPLES / "category_with_description.xml", "rb") as upload:
        apply_previewed(client, client.post(reverse("import_content"), {"files": [upload]}).url)
    question_set = QuestionSet.objects.get()

    response = client.get(reverse("download_set", args=[question_set.pk, "moodle"]))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/xml; charset=utf-8"
    assert 'filename="category_with_description.xml"' in response["Content-Disposition"]
    assert "<text>$course$/top/Alpha</text>" in response.content.decode()
    assert 'data-testid="download-moodle"' in client.get(reverse("library")).content.decode()


def test_a_plain_text_question_keeps_no_image_and_says_so():
    xml = quiz(image_question("x.png", PNG).replace('<questiontext format="html">', '<questiontext format="moodle_auto_format">'))

    document, warnings = parse(xml)

    assert document.items[0].stem == '<img src="@@PLUGINFILE@@/x.png" alt="An image">'  # plain text, shown as written
    assert document.media == []
    assert warnings == ["bank.xml:4: truefalse question 'x.png': x.png is left out (a plain-text question shows no image)"]


@pytest.mark.django_db
def test_an_exported_set_carries_the_images_its_texts_show_and_they_read_back(tmp_path):
    path = tmp_path / "Shapes.xml"
    path.write_text(quiz(image_question("square.png", PNG), TRUE_FALSE), encoding="utf-8")
    call_command("import_questions", str(path), stdout=None)
    question_set = QuestionSet.objects.get()
    [image] = question_set.media.all()
    with image.file.open("rb") as stored:
        stored_bytes = stored.read()

    exported = export_one(question_set, "moodle")
    document, _ = parse(exported.text, exported.file_name)

    assert f'<img src="@@PLUGINFILE@@/{image.name}" alt="An image">' in exported.text
    assert exported.text.count('encoding="base64"') == 1  # only the image shown, once
    assert [(m.file_name, m.data, m.alt) for m in document.media] == [(image.name, stored_bytes, "An image")]
    assert document.items[0].stem == f'<img src="media:{image.name}" alt="An image">'


# A JPEG cleaned again gives other bytes (JPEG is lossy): the set's own photo is known by its bytes
# as carried, which are exactly the stored ones, or it would be stored again under a new name.
@pytest.mark.parametrize("image", [
    pytest.param(PNG, id="png"), pytest.param(photo(), id="jpeg photo"),
])
def test_importing_a_downloaded_set_again_changes_nothing(client, ann, image):
    name = "square.png" if image == PNG else "photo.jpg"
    source = SimpleUploadedFile("Shapes.xml", quiz(image_question(name, image), TRUE_FALSE).encode())
    apply_previewed(client, client.post(reverse("import_content"), {"files": [source]}).url)
    question_set = QuestionSet.objects.get()
    before = plain_data(question_set), list(MediaFile.objects.values_list("name", "sha256"))
    downloaded = client.get(reverse("download_set", args=[question_set.pk, "moodle"]))
    upload = SimpleUploadedFile("Shapes.xml", downloaded.content)  # the name the download has

    staged = client.post(reverse("import_content"), {"files": [upload]})
    assert "0 to add, 0 to change, 0 to remove, 2 unchanged" in client.get(staged.url).content.decode()
    assert apply_previewed(client, staged.url).status_code == 302

    assert (plain_data(question_set), list(MediaFile.objects.values_list("name", "sha256"))) == before
    assert client.get(reverse("download_set", args=[question_set.pk, "moodle"])).content == downloaded.content
