"""Template filters for an item's texts, as its markup says (quiz.content.markup):
`{{ question.stem|rendered:question.markup }}` for a text on its own, `rendered_inline` for a
choice inside its label, `as_text` for a line of a list that is cut short, and `paragraph_tag`
for the element around a text that stands as a paragraph."""

from django import template

from quiz.content.markup import card_front, card_front_text, card_revealed, render, render_inline, text_of

register = template.Library()

register.filter("rendered", render)
register.filter("rendered_inline", render_inline)
register.filter("as_text", text_of)
# A card's own sides, whatever kind it is: a cloze card's question never holds its answer.
register.filter("card_front", card_front)
register.filter("card_revealed", card_revealed)
register.filter("card_front_text", card_front_text)


@register.filter
def paragraph_tag(text, markup):
    """The element for a text that stands as a paragraph: <p> as it always was, unless the text
    renders as blocks (a list, code, a table, several paragraphs), which a <p> cannot hold: then
    a <div>, whose spacing comes from the blocks inside it."""
    return "div" if render(text, markup).startswith("<div") else "p"


@register.filter
def html_tag(html):
    """paragraph_tag for HTML already rendered (card_front, card_revealed)."""
    return "div" if str(html).startswith("<div") else "p"
