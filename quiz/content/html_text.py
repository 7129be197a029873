"""HTML fields reduced to plain text, for formats whose fields are HTML (Anki's exports).

The app shows every text escaped, so markup from a file is never run; but a card that shows
`<b>TCP</b>` to the learner is broken too. Tags are dropped, line breaks kept, entities
unescaped, and what is inside <script> and <style> is dropped as well. The standard
library's parser is lenient, so no HTML makes it fail. Pure: no database.
"""

import re
from html.parser import HTMLParser

# Blocks start on a line of their own (`</div><div>` is one line break, not two); a <br> is
# always a line break, so `<br><br>` leaves a blank line.
BLOCKS = {"div", "p", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "table", "hr", "blockquote", "pre"}
NOT_TEXT = {"script", "style"}
LOOKS_LIKE_HTML = re.compile(r"</?[a-zA-Z][^>]*>|&(?:[a-zA-Z]+|#\d+|#x[0-9a-fA-F]+);")


class _TextCollector(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        self.skipping = 0  # depth inside <script> or <style>

    def handle_starttag(self, tag, attrs):
        if tag in NOT_TEXT:
            self.skipping += 1
        else:
            self._break(tag)

    def handle_startendtag(self, tag, attrs):
        self._break(tag)

    def handle_endtag(self, tag):
        if tag in NOT_TEXT:
            self.skipping = max(0, self.skipping - 1)
        elif tag in BLOCKS:
            self._break(tag)

    def _break(self, tag):
        ends_a_line = not self.parts or self.parts[-1].endswith("\n")
        if tag == "br" or (tag in BLOCKS and not ends_a_line):
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.skipping:
            self.parts.append(data)


def html_to_text(html):
    """The text a browser would show: a line per line break, at most one blank line in a row."""
    collector = _TextCollector()
    # In HTML, a line break in the source is a space; only tags break lines.
    collector.feed(html.replace("\n", " "))
    collector.close()
    text = "".join(collector.parts).replace("\u00a0", " ")
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def looks_like_html(text):
    return bool(LOOKS_LIKE_HTML.search(text))
