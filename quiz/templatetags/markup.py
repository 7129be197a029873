"""Template filters for an item's texts, as its markup says (quiz.content.markup):
`{{ question.stem|rendered:question.markup }}` for a text on its own, `rendered_inline` for a
choice inside its label, `as_text` for a line of a list that is cut short, and `paragraph_tag`
for the element around a text that stands as a paragraph."""

from django import template

from quiz.content.markup import render, render_inline, text_of

register = template.Library()

register.filter("rendered", render)
register.filter("rendered_inline", render_inline)
register.filter("as_text", text_of)


@register.filter
def paragraph_tag(text, markup):
    """The element for a text that stands as a paragraph: <p> as it always was, unless the text
    renders as blocks (a list, code, a table, several paragraphs), which a <p> cannot hold: then
    a <div>, whose spacing comes from the blocks inside it."""
    return "div" if render(text, markup).startswith("<div") else "p"
