"""An item's texts in Markdown or HTML (quiz.content.markup): rendered and sanitised whatever
the input, plain text exactly as before, every page that shows a text using it, snapshots
keeping the markup, the editor's Format and preview. The formats' rules are in
tests/test_markup_formats.py; the code block at 320 px in tests/test_browser_markup.py."""

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings
from django.template import Context, Template
from django.urls import reverse
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from quiz.content.markup import render, render_inline, text_of
from quiz.models import Markup, MemoryState, ReviewLog
from quiz.study import scheduling
from tests.factories import make_deck, make_question_set, start_attempt
from tests.helpers import HTMX, correct_number

MEDIA = "0123456789abcdef01234567.png"


# --- What the sanitiser lets through ------------------------------------------------------------

class _Tags(HTMLParser):
    """Every element and attribute of a rendered text, as a browser would read them."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag


def tags_of(html):
    parser = _Tags()
    parser.feed(html)
    parser.close()
    return parser.tags


ALLOWED_TAGS = {
    "a", "b", "blockquote", "br", "code", "del", "div", "em", "h3", "h4", "h5", "h6", "hr", "i", "img", "li", "ol",
    "p", "pre", "s", "span", "strong", "sub", "sup", "table", "tbody", "td", "th", "thead", "tr", "u", "ul",
}


def assert_harmless(html):
    """No script or other active element, no event handler, no style, no id or class of the
    author's, links only to the web and images only from this site's media URL."""
    media_url = reverse("media_file", args=[MEDIA]).removesuffix(MEDIA)
    for tag, attrs in tags_of(html):
        assert tag in ALLOWED_TAGS, (tag, html)
        for name, value in attrs.items():
            assert not name.startswith("on") and name not in ("style", "id", "name", "srcset", "formaction"), (name, html)
            if name == "class":
                assert value == "rendered" and tag in ("span", "div"), html
            if name == "href":
                assert tag == "a" and re.match(r"https?://", value), html
            if name == "src":
                assert tag == "img" and value.startswith(media_url), html
    assert "<script" not in html.lower()


HOSTILE = [
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    '<img src="x" onerror="alert(1)">',
    '<img src=x onerror=alert(1)//',
    '<a href="javascript:alert(1)">click</a>',
    '<a href="JaVaScRiPt:alert(1)">click</a>',
    '<a href="java&#x73;cript:alert(1)">entity</a>',
    '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">decimal entities</a>',
    '<a href=" javascript:alert(1)">leading space</a>',
    '<a href="/relative">relative</a>',
    '<a href="//evil.example/">protocol-relative</a>',
    '<p style="position:fixed;top:0">covering</p>',
    '<b style="background:url(javascript:alert(1))">styled</b>',
    '<img src="https://evil.example/track.png" alt="tracker">',
    '<img src="//evil.example/track.png">',
    '<img src="data:image/png;base64,iVBORw0KGgo=">',
    f'<img src="media:{MEDIA}" onload="alert(1)" alt="ok">',
    '<img src="media:../../etc/passwd">',
    '<img src="media:0123456789abcdef01234567.svg">',
    '<svg><script>alert(1)</script></svg>',
    '<svg onload=alert(1)><circle r="5"/></svg>',
    '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
    '<iframe src="https://evil.example"></iframe>',
    '<object data="x.swf"></object><embed src="x.swf">',
    '<form action="https://evil.example"><button formaction="javascript:alert(1)">go</button></form>',
    '<input autofocus onfocus=alert(1)>',
    '<div id="question-card" class="verdict-right" data-answer="1">clobbering</div>',
    '<!--<img src=x onerror=alert(1)>-->',
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
    '<style>body{display:none}</style>',
    '<meta http-equiv="refresh" content="0;url=https://evil.example">',
    '<base href="https://evil.example/">',
    '<template><img src=x onerror=alert(1)></template>',
    "[click](javascript:alert(1))",
    "[click](JAVASCRIPT:alert(1))",
    "[click](vbscript:msgbox(1))",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "![pixel](https://evil.example/pixel.png)",
    "![pixel](//evil.example/pixel.png)",
    "![inline](data:image/png;base64,iVBORw0KGgo=)",
    '![x](media:0123456789abcdef01234567.png "t" onerror=alert(1))',
    "<b onmouseover=alert(1)>raw HTML in Markdown</b>",
    "[a](<javascript:alert(1)>)",
    "[ref][x]\n\n[x]: javascript:alert(1)",
]


@pytest.mark.parametrize("markup", [Markup.MARKDOWN, Markup.HTML])
@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_input_renders_harmless(text, markup):
    assert_harmless(render(text, markup))
    assert_harmless(render_inline(text, markup))


@pytest.mark.parametrize("text", HOSTILE)
def test_plain_text_shows_hostile_input_as_text(text):
    assert render(text, Markup.PLAIN) == Template("{{ text }}").render(Context({"text": text}))
    assert tags_of(str(render(text, Markup.PLAIN))) == []


# Fragments that make up hostile texts, mixed with anything at all.
PIECES = st.sampled_from([
    "<", ">", "&", '"', "'", "=", "`", "```", "\n", "\n\n", " ", "*", "[", "]", "(", ")", "!", "#", "|", "-", ":",
    "<script>", "</script>", "<img", " src=", " onerror=", " onclick=", " style=", "javascript:", "data:", "//",
    "https://evil.example/x.png", f"media:{MEDIA}", "media:", "<a href=", "<svg", "<iframe", "&#", "&#x6a;", ";",
    "<!--", "-->", "<![CDATA[", "]]>", "<style>", "<math>", "<table>", "<p>", "</p>", "<div", "/>", "\\",
])
TEXTS = st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=30).map("".join)


@hypothesis_settings(max_examples=400, deadline=None)
@given(text=TEXTS, markup=st.sampled_from([Markup.MARKDOWN, Markup.HTML]))
def test_no_text_renders_anything_active(text, markup):
    assert_harmless(render(text, markup))
    assert_harmless(render_inline(text, markup))
    assert isinstance(text_of(text, markup), str)


# --- What it renders -----------------------------------------------------------------------------

def test_markdown_renders_code_blocks_tables_lists_and_inline_code():
    text = "Which line fails?\n\n```python\nprint('a' * 200)\n```\n\n| kind | size |\n|---|---|\n| H100 | 80 GB |\n\n- one\n- two"
    html = render(text, Markup.MARKDOWN)

    assert html.startswith('<div class="rendered">')
    assert "<pre><code>print(&#39;a&#39; * 200)\n</code></pre>" in html or "<pre><code>print('a' * 200)\n</code></pre>" in html
    assert "<table>" in html and "<th>kind</th>" in html and "<td>H100</td>" in html
    assert "<ul>\n<li>one</li>" in html
    assert render("Use `nvidia-smi`, **always**.", Markup.MARKDOWN) == (
        '<span class="rendered">Use <code>nvidia-smi</code>, <strong>always</strong>.</span>'
    )


def test_one_paragraph_renders_inline_so_it_fits_where_plain_text_did():
    assert render("Just *one* line.", Markup.MARKDOWN) == '<span class="rendered">Just <em>one</em> line.</span>'
    assert render("What does <b>TCP</b> guarantee?", Markup.HTML) == '<span class="rendered">What does <b>TCP</b> guarantee?</span>'
    assert render("<p>Moodle wraps it.</p>", Markup.HTML) == '<span class="rendered">Moodle wraps it.</span>'


def test_raw_html_in_markdown_is_shown_as_text():
    assert render("a <b>bold</b> claim", Markup.MARKDOWN) == '<span class="rendered">a &lt;b&gt;bold&lt;/b&gt; claim</span>'


def test_markdown_headings_stay_below_the_pages_own():
    html = render("# Big\n\n## Smaller\n\ntext", Markup.MARKDOWN)
    assert "<h3>Big</h3>" in html and "<h4>Smaller</h4>" in html and "<h1" not in html and "<h2" not in html


def test_images_come_from_the_sets_own_files_lazily_and_links_open_nothing_of_ours():
    html = render(f"![A GPU]({'media:' + MEDIA}) and [docs](https://docs.nvidia.com)", Markup.MARKDOWN)
    assert f'<img src="{reverse("media_file", args=[MEDIA])}" alt="A GPU" loading="lazy">' in html
    assert '<a href="https://docs.nvidia.com" rel="noopener noreferrer nofollow">docs</a>' in html
    html = render(f'<img src="media:{MEDIA}" alt="A GPU">', Markup.HTML)
    assert f'src="{reverse("media_file", args=[MEDIA])}"' in html


def test_a_remote_image_loads_nothing_but_keeps_its_words():
    html = render("![a tracking pixel](https://evil.example/p.png)", Markup.MARKDOWN)
    assert tags_of(html) == [("span", {"class": "rendered"}), ("img", {"alt": "a tracking pixel", "loading": "lazy"})]
    assert render('<img src="https://evil.example/p.png">', Markup.HTML) == ""


def test_inline_rendering_keeps_blocks_apart_as_words():
    assert render_inline("<p>one</p><p>two</p>", Markup.HTML) == '<span class="rendered">one two</span>'
    assert render_inline("**yes**\n```\nno block\n```", Markup.MARKDOWN).count("<pre") == 0


def test_as_text_reads_the_rendered_words():
    assert text_of("**Bold** and `code`", Markup.MARKDOWN) == "Bold and code"
    assert text_of("<div>one</div><div>two</div>", Markup.HTML) == "one\ntwo"
    assert text_of("**as typed**", Markup.PLAIN) == "**as typed**"


def seed_texts():
    """Every text of the seed content: plain text, as all content was before markup."""
    seed = json.loads(Path(settings.BASE_DIR, "fixtures", "seed.json").read_text())
    for question_set in seed["question_sets"]:
        for question in question_set["questions"]:
            yield question["stem"]
            yield question["explanation"]
            yield from (choice["text"] for choice in question["choices"])
    for deck in seed["decks"]:
        for card in deck["cards"]:
            yield from (card["front"], card["back"], card.get("misconception", ""), card.get("correction", ""))


def test_plain_text_renders_exactly_as_the_templates_escaped_it():
    old = Template("{{ text }}")
    new = Template("{% load markup %}{{ text|rendered:markup }}|{{ text|rendered_inline:markup }}")
    texts = [*seed_texts(), "Line one\nline two,  two spaces", "a < b & c > 'd' \"e\"", "**not bold** `not code`"]
    assert len(texts) > 50
    for text in texts:
        before = old.render(Context({"text": text}))
        assert new.render(Context({"text": text, "markup": Markup.PLAIN})) == f"{before}|{before}"


def test_an_unknown_markup_value_shows_the_text_as_typed():
    assert render("<b>x</b>", "rtf") == "&lt;b&gt;x&lt;/b&gt;"


# --- The pages ------------------------------------------------------------------------------------

CODE = "```\nnvidia-smi --query-gpu=name,memory.total --format=csv\n```"


@pytest.fixture
def markdown_set(db):
    question_set = make_question_set("Markdown set", questions=2)
    question_set.questions.update(markup=Markup.MARKDOWN)
    first = question_set.questions.get(position=1)
    first.stem = f"What does this print?\n\n{CODE}"
    first.explanation = "It lists **every** GPU."
    first.save()
    for choice in first.choices.all():
        choice.text = f"`{choice.text}`"
        choice.save()
    return question_set


def test_a_markdown_question_page_renders_the_stem_and_choices_and_marks_no_answer(learner, learner_client, markdown_set):
    attempt = start_attempt(learner, markdown_set)
    slot = attempt.slots.get(position=1)
    html = learner_client.get(reverse("attempt_question", args=[attempt.pk, 1])).content.decode()

    assert '<h2 class="stem"><div class="rendered"><p>What does this print?</p>\n<pre><code>nvidia-smi' in html
    texts = re.findall(r'<span class="choice-text"><span class="rendered"><code>([^<]*)</code></span></span>', html)
    assert texts == [text.strip("`") for text in slot.choice_texts]
    # Nothing on the page tells the right choice from the others before the answer.
    card = html[html.index('id="question-card"'):]
    assert "correct" not in card.lower().replace("correct answer and the explanation", "")
    assert "It lists" not in html and "every</strong> GPU" not in html
    for number, _ in enumerate(slot.choice_texts, start=1):
        label = re.search(rf'<input type="radio" name="choice" value="{number}"[^>]*>', html)[0]
        assert label.endswith(' required>')


def test_after_answering_the_explanation_renders_too(learner, learner_client, markdown_set):
    attempt = start_attempt(learner, markdown_set)
    slot = attempt.slots.get(position=1)
    url = reverse("attempt_question", args=[attempt.pk, 1])
    html = learner_client.post(url, {"choice": correct_number(slot)}, follow=True).content.decode()
    html = learner_client.get(url).content.decode()

    assert "It lists <strong>every</strong> GPU." in html
    assert '<li class="review-choice is-correct' in html and '<span class="choice-text"><span class="rendered"><code>' in html


def test_an_attempt_shows_the_markup_it_was_taken_in_after_the_question_changes(learner, learner_client, markdown_set):
    attempt = start_attempt(learner, markdown_set)
    markdown_set.questions.update(markup=Markup.PLAIN)

    html = learner_client.get(reverse("attempt_question", args=[attempt.pk, 1])).content.decode()

    assert "<pre><code>nvidia-smi" in html
    assert attempt.slots.get(position=1).markup == Markup.MARKDOWN


def test_plain_snapshots_carry_no_markup_key(learner):
    attempt = start_attempt(learner, make_question_set(questions=1))
    slot = attempt.slots.get()
    assert all("markup" not in choice for choice in slot.shown_choices) and slot.markup == Markup.PLAIN


def test_a_review_answer_shows_its_snapshot_in_its_markup(learner, learner_client, markdown_set):
    question = markdown_set.questions.get(position=1)
    scheduling.rate(user=learner, kind=MemoryState.Kind.QUESTION, item=question, rating=1, source="review")
    learner_client.get(reverse("review_due"))
    html = learner_client.get(reverse("review_due")).content.decode()
    assert "<pre><code>nvidia-smi" in html and '<span class="choice-text"><span class="rendered"><code>' in html
    number = re.search(r'name="choice" value="(\d)"', html)[1]
    response = learner_client.post(reverse("review_due"), {"item": question.pk, "choice": number})

    review = ReviewLog.objects.filter(user=learner).latest("pk")
    assert review.shown["markup"] == Markup.MARKDOWN
    html = learner_client.get(response["Location"]).content.decode()
    assert "<pre><code>nvidia-smi" in html and "It lists <strong>every</strong> GPU." in html


@pytest.fixture
def markdown_deck(db):
    deck = make_deck("Markdown deck", cards=2)
    deck.cards.update(
        markup=Markup.MARKDOWN, front="What does `nvidia-smi` show?", back="The **GPUs**.",
        misconception="It shows *CPUs*.", correction="It talks to the `NVIDIA` driver.",
    )
    return deck


def test_flashcards_drill_and_card_info_render_markdown(learner_client, markdown_deck):
    card = markdown_deck.cards.first()
    study = learner_client.get(reverse("study_deck", args=[markdown_deck.pk])).content.decode()
    assert '<span class="card-text"><span class="rendered">What does <code>nvidia-smi</code> show?</span></span>' in study
    assert '<p class="card-text card-answer"><span class="rendered">The <strong>GPUs</strong>.</span></p>' in study

    drill = learner_client.get(reverse("drill", args=[markdown_deck.pk])).content.decode()
    assert "About: <span class=\"rendered\">What does <code>nvidia-smi</code> show?</span>" in drill
    assert re.search(r'<blockquote class="statement"><span class="rendered">(It shows <em>CPUs</em>.|The <strong>GPUs</strong>.)</span>', drill)

    info = learner_client.get(reverse("card_info", args=[card.pk])).content.decode()
    assert '<dd class="as-written"><span class="rendered">The <strong>GPUs</strong>.</span></dd>' in info


def test_lists_show_the_words_not_the_markup(learner, learner_client, markdown_deck):
    card = markdown_deck.cards.first()
    scheduling.rate(user=learner, kind=MemoryState.Kind.CARD, item=card, rating=3, source="study")
    html = learner_client.get(reverse("card_history")).content.decode()
    assert "What does nvidia-smi show?" in html and "`nvidia-smi`" not in html


def test_the_editors_lists_render_each_item(learner, learner_client):
    own = make_question_set("Mine", questions=1, owner=learner)
    own.questions.update(markup=Markup.MARKDOWN, stem=f"Which?\n\n{CODE}", explanation="**Because.**")
    html = learner_client.get(reverse("edit_set", args=[own.pk])).content.decode()
    assert '<div class="stem"><div class="rendered"><p>Which?</p>' in html
    assert '<p class="explanation"><span class="rendered"><strong>Because.</strong></span></p>' in html

    deck = make_deck("Mine too", cards=1, owner=learner)
    deck.cards.update(markup=Markup.HTML, front="<b>TCP</b>", back="<ul><li>ordered</li></ul>")
    html = learner_client.get(reverse("edit_deck", args=[deck.pk])).content.decode()
    assert '<p class="card-text"><strong><span class="rendered"><b>TCP</b></span></strong></p>' in html
    assert '<div class="card-text"><div class="rendered"><ul><li>ordered</li></ul></div></div>' in html


# --- The editor ------------------------------------------------------------------------------------

def question_form(**extra):
    data = {"stem": "Which is `code`?", "explanation": "", "topics": "", "correct": "1", "op": "save",
            "choice_1": "`a`", "choice_2": "b", "markup": Markup.MARKDOWN}
    return {**data, **extra}


def test_the_editor_saves_the_format(learner, learner_client):
    own = make_question_set("Mine", questions=1, owner=learner)
    question = own.questions.get()

    response = learner_client.post(reverse("edit_question", args=[question.pk]), question_form())

    assert response.status_code == 302
    question.refresh_from_db()
    assert (question.stem, question.markup) == ("Which is `code`?", Markup.MARKDOWN)
    form = learner_client.get(reverse("edit_question", args=[question.pk])).content.decode()
    assert '<option value="markdown" selected>Markdown</option>' in form


def test_a_form_without_a_format_saves_plain_text(learner, learner_client):
    own = make_question_set("Mine", questions=1, owner=learner)
    question = own.questions.get()
    question.markup = Markup.MARKDOWN
    question.save()
    data = question_form()
    del data["markup"]

    assert learner_client.post(reverse("edit_question", args=[question.pk]), data).status_code == 302
    question.refresh_from_db()
    assert question.markup == Markup.PLAIN


def test_the_preview_button_shows_the_rendered_item_without_saving(learner, learner_client):
    own = make_question_set("Mine", questions=1, owner=learner)
    question = own.questions.get()

    response = learner_client.post(reverse("edit_question", args=[question.pk]), question_form(op="preview"))

    assert response.status_code == 200
    html = response.content.decode()
    preview = html[html.index('data-testid="preview"'):]
    assert "<dd class=\"as-written\"><span class=\"rendered\">Which is <code>code</code>?</span></dd>" in preview
    assert '<span class="rendered"><code>a</code></span>' in preview
    assert "Which is `code`?</textarea>" in html  # the form keeps what was typed
    question.refresh_from_db()
    assert question.stem == "Question 1 stem?"


def test_the_preview_button_of_a_card_keeps_what_was_typed_even_when_it_would_not_save(learner, learner_client):
    deck = make_deck("Mine", cards=1, owner=learner)
    card = deck.cards.get()
    data = {"front": "", "back": "<i>half</i>", "misconception": "x", "correction": "", "markup": "html", "op": "preview"}

    response = learner_client.post(reverse("edit_card", args=[card.pk]), data)

    assert response.status_code == 200
    assert '<dd class="as-written"><span class="rendered"><i>half</i></span></dd>' in response.content.decode()
    card.refresh_from_db()
    assert card.back != "<i>half</i>"


def test_the_htmx_preview_renders_the_posted_texts(learner_client):
    response = learner_client.post(reverse("preview_item"), question_form(stem="# Title\n\n<script>x</script>"), **HTMX)

    assert response.status_code == 200
    html = response.content.decode()
    assert "<h3>Title</h3>" in html and "&lt;script&gt;x&lt;/script&gt;" in html and "<script" not in html

    card = {"front": "**F**", "back": "<b>B</b>", "markup": "html"}
    html = learner_client.post(reverse("preview_item"), card, **HTMX).content.decode()
    assert "**F**" in html and "<b>B</b>" in html


def test_the_htmx_preview_of_plain_text_is_empty_and_no_input_breaks_it(learner_client):
    url = reverse("preview_item")
    assert learner_client.post(url, question_form(markup="plain")).content.decode().strip() == ""
    for data in ({}, {"markup": "nonsense"}, {"stem": ["a", "b"], "markup": "html", "choice_1": "x" * 20_000},
                 {"front": "\x00", "markup": "markdown"}, {"stem": "s", "kind": "matching", "choice_1": "**a**", "markup": "markdown"}):
        assert learner_client.post(url, data).status_code == 200
    assert learner_client.get(url).status_code == 405


def test_a_duplicated_set_keeps_its_format(learner, learner_client):
    own = make_question_set("Mine", questions=1, owner=learner)
    own.questions.update(markup=Markup.HTML)
    learner_client.post(reverse("duplicate_set", args=[own.pk]))
    copy = own.__class__.objects.exclude(pk=own.pk).get(owner=learner)
    assert copy.questions.get().markup == Markup.HTML


def test_the_preview_refuses_a_script_asking_more_than_typing_would(learner_client):
    url, data = reverse("preview_item"), question_form(markup="plain")
    statuses = [learner_client.post(url, data).status_code for _ in range(121)]
    assert statuses[:120] == [200] * 120 and statuses[120] == 429
