"""An item's texts as the learner reads them: plain text as typed, Markdown and HTML rendered
and sanitised (models.Markup). The stored text stays as written; only the page changes.

Plain text is escaped exactly as the templates always escaped it (the page's `white-space:
pre-wrap` keeps its line breaks), so nothing written before markup existed shows differently.
Markdown is CommonMark with tables and strikethrough, its raw HTML shown as text. Whatever comes
out of either goes through nh3 with an allow-list: no script, no event handler, no style, no
class or id, links to http(s) only, images only the set's or deck's own (`media:<name>`),
served from this site; a remote or data: image keeps its alt text and loads nothing.

A text with no block in it (one paragraph, or HTML without blocks) renders inline, in a
<span>, so it fits where plain text goes (a heading, a label, a list item); anything else
renders as a <div> of blocks. Both carry class "rendered", which the CSS sets back to normal
white space: Markdown's soft line break is a space, and HTML's source line breaks are too.
"""

import functools
import re

import nh3
from django.urls import reverse
from django.utils.html import conditional_escape
from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt

from ..models import Markup
from .cloze import cloze_back, cloze_front
from .html_text import html_to_text

INLINE_TAGS = {"a", "b", "br", "code", "del", "em", "i", "img", "s", "span", "strong", "sub", "sup", "u"}
BLOCK_TAGS = {
    "blockquote", "div", "h3", "h4", "h5", "h6", "hr", "li", "ol", "p", "pre", "table", "tbody", "td", "th",
    "thead", "tr", "ul",
}
# Dropped with what is inside them, not just their tags: their text was never meant to be read.
DROPPED_WITH_CONTENT = {"script", "style", "template", "noscript", "iframe", "object", "embed", "svg", "math", "title"}
ATTRIBUTES = {"a": {"href"}, "img": {"src", "alt", "title"}}
# The image names MediaFile gives (new_media_name): anything else is not the set's own picture.
MEDIA_NAME = re.compile(r"media:([0-9a-f]{24}\.(?:png|jpe?g|gif|webp))")
WEB_LINK = re.compile(r"https?://[^\s]+", re.IGNORECASE)
BLOCK_END = re.compile(r"</(?:p|div|li|h[1-6]|tr|td|th|blockquote|pre)\s*>|<br\s*/?>", re.IGNORECASE)
# An image with neither a source left nor words to show: nothing to keep.
EMPTY_IMAGE = re.compile(r'<img loading="lazy">')
BLOCK_START = re.compile(r"<(?:%s)[\s>/]" % "|".join(sorted(BLOCK_TAGS)))


def render(text, markup):
    """`text` as HTML for a page, whole: paragraphs, lists, code blocks, tables."""
    if markup not in (Markup.MARKDOWN, Markup.HTML):
        return conditional_escape(text)  # plain, and a value this code does not know: shown as typed
    return mark_safe(_rendered(text, markup, inline=False))


def render_inline(text, markup):
    """`text` as HTML inside a line (a choice in its label): emphasis, code, links and images,
    but no blocks (Markdown's block syntax stays text; HTML's block tags are dropped, their
    content kept)."""
    if markup not in (Markup.MARKDOWN, Markup.HTML):
        return conditional_escape(text)
    return mark_safe(_rendered(text, markup, inline=True))


# Where the revealed answer begins and ends while the text is rendered and sanitised: characters
# from Unicode's private use area, which nothing renders and a card's own text may not hold.
CLOZE_OPEN, CLOZE_CLOSE = "\ue000", "\ue001"


def render_cloze(text, markup, number, *, revealed):
    """Card `number` of a cloze note, as HTML: its question (deletion `number` blank) or, when
    `revealed`, the whole text with that deletion's answer in <mark class="cloze">.

    The markers are replaced in the text as written, which is then rendered and sanitised as any
    text of its markup, so an answer holding HTML is cleaned like the rest; only afterwards does
    the mark, which the allow-list does not know, take the place of its two placeholders (left
    out if the sanitiser dropped one of them with the content around it)."""
    text = text.replace(CLOZE_OPEN, "").replace(CLOZE_CLOSE, "")
    if not revealed:
        return render(cloze_front(text, number), markup)
    html = str(render(cloze_back(text, number, mark=(CLOZE_OPEN, CLOZE_CLOSE)), markup))
    if html.count(CLOZE_OPEN) == html.count(CLOZE_CLOSE):
        html = html.replace(CLOZE_OPEN, '<mark class="cloze">').replace(CLOZE_CLOSE, "</mark>")
    return mark_safe(html.replace(CLOZE_OPEN, "").replace(CLOZE_CLOSE, ""))


def card_front(card):
    """What a learner sees before the flip: a cloze card's question, else the front."""
    if card.cloze is None:
        return render(card.front, card.markup)
    return render_cloze(card.front, card.markup, card.cloze, revealed=False)


def card_revealed(card):
    """The front as the back of the card shows it: a cloze card's answer marked in its text."""
    if card.cloze is None:
        return render(card.front, card.markup)
    return render_cloze(card.front, card.markup, card.cloze, revealed=True)


def card_front_text(card):
    """card_front as plain text, for a line of a list."""
    if card.cloze is None:
        return text_of(card.front, card.markup)
    return text_of(cloze_front(card.front, card.cloze), card.markup)


def text_of(text, markup):
    """What the rendered text says, as plain text: for a truncated line in a list or a table,
    where markup cut in the middle would break the page."""
    if markup not in (Markup.MARKDOWN, Markup.HTML):
        return text
    return html_to_text(_rendered(text, markup, inline=False))


@functools.lru_cache(maxsize=4096)
def _rendered(text, markup, *, inline):
    """Cached: a page of twenty questions renders the same texts on every visit."""
    if markup == Markup.MARKDOWN:
        html = _markdown().renderInline(text) if inline else _markdown().render(text)
    elif inline:
        html = BLOCK_END.sub(r"\g<0> ", text)  # blocks flattened into a line stay apart as words
    else:
        html = text
    clean = EMPTY_IMAGE.sub("", _cleaner(inline).clean(html)).strip()
    if not clean:
        return ""
    if not inline and clean.startswith("<p>") and clean.endswith("</p>") and clean.count("<p>") == 1:
        clean = clean[3:-4]  # one paragraph: reads as a line, like plain text
    if inline or not BLOCK_START.search(clean):
        return f'<span class="rendered">{clean}</span>'
    return f'<div class="rendered">{clean}</div>'


@functools.cache
def _markdown():
    md = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    md.core.ruler.push("lower_headings", _lower_headings)
    return md


def _lower_headings(state):
    """A `#` heading becomes an <h3>: the page's own <h1> and <h2> stay the page's outline."""
    for token in state.tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + 2, 6)}"


@functools.cache
def _cleaner(inline):
    tags = INLINE_TAGS if inline else INLINE_TAGS | BLOCK_TAGS
    return nh3.Cleaner(
        tags=tags,
        clean_content_tags=DROPPED_WITH_CONTENT,
        attributes={tag: names for tag, names in ATTRIBUTES.items() if tag in tags},
        attribute_filter=_checked_attribute,
        # Checked before the filter: `media:` may pass to it, anything else with a scheme not.
        url_schemes={"http", "https", "media"},
        link_rel="noopener noreferrer nofollow",
        set_tag_attribute_values={"img": {"loading": "lazy"}},
        strip_comments=True,
    )


def _checked_attribute(tag, attribute, value):
    """Images only from the set's or deck's own files, links only to the web: a relative,
    protocol-relative or other-scheme URL is dropped (the image then loads nothing)."""
    if tag == "img" and attribute == "src":
        media = MEDIA_NAME.fullmatch(value)
        return reverse("media_file", args=[media[1]]) if media else None
    if tag == "a" and attribute == "href":
        return value if WEB_LINK.fullmatch(value) else None
    return value
