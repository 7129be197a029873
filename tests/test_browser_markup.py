"""Markdown in Chromium: a code block too wide for a phone scrolls inside itself while the page
does not scroll sideways, readable in both themes; the editor's preview follows the typing."""

import pytest
from playwright.sync_api import expect

from quiz.models import Markup
from tests.browser import ARTIFACTS, sign_in
from tests.factories import make_question_set, make_user, start_attempt

pytestmark = pytest.mark.browser

STEM = """What does this print on a node with eight GPUs?

```python
import torch; print([torch.cuda.get_device_name(index) for index in range(torch.cuda.device_count())], flush=True)
```

| flag | meaning |
|---|---|
| `--query-gpu=name,memory.total,memory.used,utilization.gpu` | what to list, one column per field |"""


def overflow(page, selector):
    """(the element's scrollWidth, its clientWidth) and the page's, after layout."""
    return page.evaluate(
        """selector => {
            const element = document.querySelector(selector), root = document.documentElement;
            return [element.scrollWidth, element.clientWidth, root.scrollWidth, root.clientWidth,
                    getComputedStyle(element).overflowX, getComputedStyle(element).fontFamily];
        }""",
        selector,
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_long_code_line_scrolls_inside_its_block_at_320_px(page, scheme):
    learner = make_user("coder")
    question_set = make_question_set("CUDA basics", questions=1)
    question_set.questions.update(stem=STEM, markup=Markup.MARKDOWN)
    attempt = start_attempt(learner, question_set)
    page.set_viewport_size({"width": 320, "height": 800})
    page.emulate_media(color_scheme=scheme)
    sign_in(page, "coder")

    page.goto(f"/attempts/{attempt.pk}/questions/1/")

    code = page.locator("#question-card pre")
    expect(code).to_contain_text("torch.cuda.get_device_name")
    block_width, block_client, page_width, page_client, overflow_x, font = overflow(page, "#question-card pre")
    assert block_width > block_client  # the line is longer than the block: it scrolls there
    assert overflow_x == "auto" and "monospace" in font
    assert page_width <= page_client  # and the page itself never scrolls sideways
    table_width, table_client, *_ = overflow(page, "#question-card table")
    assert table_width > table_client
    # Readable: the code's colour is the page's text colour, on a background of its own.
    colours = page.evaluate("""() => {
        const code = getComputedStyle(document.querySelector('#question-card pre'));
        return [code.color, code.backgroundColor, getComputedStyle(document.body).backgroundColor];
    }""")
    assert colours[0] != colours[1] and colours[1] != colours[2]
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"markup-code-320-{scheme}.png"), full_page=True)
    # Scrolling the block moves its text, not the page.
    code.evaluate("element => element.scrollBy(200, 0)")
    assert code.evaluate("element => element.scrollLeft") > 0
    assert page.evaluate("() => window.scrollX") == 0


def test_the_editor_previews_markdown_as_it_is_typed(page):
    author = make_user("writer")
    question = make_question_set("Mine", questions=1, owner=author).questions.get()
    sign_in(page, "writer")
    page.goto(f"/library/questions/{question.pk}/")
    form = page.locator(f"#question-{question.pk}.editing form")
    preview = form.get_by_test_id("preview")
    expect(preview).to_be_empty()  # plain text: nothing to preview

    form.get_by_label("Format").select_option(label="Markdown")
    form.get_by_label("Question", exact=True).fill("Which flag lists **every** GPU?\n\n```\nnvidia-smi -L\n```")

    expect(preview.locator("strong")).to_have_text("every")
    expect(preview.locator("pre code")).to_have_text("nvidia-smi -L\n")
    form.get_by_label("Choice 1", exact=True).fill("`-L`")
    expect(preview.locator("dd").nth(1).locator("code")).to_have_text("-L")
    ARTIFACTS.mkdir(exist_ok=True)
    preview.screenshot(path=str(ARTIFACTS / "markup-editor-preview.png"))
    assert question.__class__.objects.get(pk=question.pk).stem == "Question 1 stem?"  # nothing saved yet

    form.get_by_role("button", name="Save", exact=True).last.click()
    saved = page.locator(f"#question-{question.pk}")
    expect(saved.locator(".stem strong")).to_have_text("every")
    question.refresh_from_db()
    assert question.markup == Markup.MARKDOWN
