"""Anki's cloze deletions: the numbers a text asks, each card's question and answer side, and the
cards a document's cloze note becomes. Pure functions: no database."""

from hypothesis import given
from hypothesis import strategies as st

from quiz.content.cloze import cloze_back, cloze_front, cloze_numbers, expand_cloze_cards
from quiz.content.documents import MAX_KEY, ParsedCard

CAPITAL = "{{c1::Paris}} is the capital of {{c2::France::a country}}."


def card(front, key="c1", cloze=None):
    return ParsedCard(key, front, "Extra", "", "", 3, topics=["geo"], markup="html", cloze=cloze)


def test_it_finds_each_number_once_in_order():
    assert cloze_numbers(CAPITAL) == [1, 2]
    assert cloze_numbers("{{c3::a}} {{c1::b}} {{c3::c}}") == [1, 3]
    assert cloze_numbers("no deletions {{Front}} here") == []
    assert cloze_numbers("") == []


def test_the_front_blanks_its_number_and_shows_the_others():
    assert cloze_front(CAPITAL, 1) == "[...] is the capital of France."
    assert cloze_front(CAPITAL, 2) == "Paris is the capital of [a country]."


def test_the_back_reveals_and_marks_its_number_without_hints():
    assert cloze_back(CAPITAL, 2) == 'Paris is the capital of <mark class="cloze">France</mark>.'
    assert cloze_back(CAPITAL, 1, mark=("*", "*")) == "*Paris* is the capital of France."


def test_one_number_may_blank_several_deletions():
    text = "{{c1::TCP}} and {{c1::UDP}} are {{c2::transport}} protocols"

    assert cloze_front(text, 1) == "[...] and [...] are transport protocols"
    assert cloze_back(text, 1, mark=("[", "]")) == "[TCP] and [UDP] are transport protocols"


def test_a_deletion_may_belong_to_several_cards():
    text = "{{c1,2::both}} and {{c2::two}}"

    assert cloze_numbers(text) == [1, 2]
    assert cloze_front(text, 1) == "[...] and two"
    assert cloze_front(text, 2) == "[...] and [...]"


def test_nested_deletions_read_as_anki_reads_them():
    text = "{{c1::The {{c2::mitochondria}} is the powerhouse::biology}} of the cell"

    assert cloze_numbers(text) == [1, 2]
    assert cloze_front(text, 1) == "[biology] of the cell"
    assert cloze_front(text, 2) == "The [...] is the powerhouse of the cell"
    assert cloze_back(text, 2, mark=("<", ">")) == "The <mitochondria> is the powerhouse of the cell"
    assert cloze_back(text, 1, mark=("<", ">")) == "<The mitochondria is the powerhouse> of the cell"


def test_html_around_and_inside_a_deletion_is_kept():
    text = "<b>{{c1::<i>42</i>}}</b> is the answer"

    assert cloze_front(text, 1) == "<b>[...]</b> is the answer"
    assert cloze_back(text, 1) == '<b><mark class="cloze"><i>42</i></mark></b> is the answer'


def test_malformed_markers_are_shown_as_written():
    assert cloze_front("{{c1::never closed", 1) == "{{c1::never closed"
    assert cloze_front("a stray }} here {{c1::x}}", 1) == "a stray }} here [...]"
    assert cloze_front("{{c0::zero}} {{c501::too big}} {{c::none}}", 1) == "{{c0::zero}} {{c501::too big}} {{c::none}}"
    assert cloze_numbers("{{c0::zero}} {{c1::never closed") == []
    # An outer deletion left open is text; the closed one inside it still asks.
    assert cloze_front("{{c1::open {{c2::inner}} text", 2) == "{{c1::open [...] text"
    assert cloze_numbers("{{c1::open {{c2::inner}} text") == [2]


def test_a_number_the_text_does_not_ask_shows_every_answer():
    assert cloze_front(CAPITAL, 7) == "Paris is the capital of France."


def test_deep_nesting_never_exhausts_the_recursion_limit():
    text = "{{c1::" * 5_000 + "x" + "}}" * 5_000

    assert cloze_numbers(text) == [1]
    assert cloze_front(text, 1) == "[...]" + "}}" * (5_000 - 50)  # beyond 50 levels the markers are text
    assert len(cloze_back(text, 1)) > 5_000


@given(st.text(alphabet="{}:c12 ab,", max_size=60), st.integers(min_value=0, max_value=3))
def test_it_never_raises_and_text_without_markers_is_unchanged(text, number):
    front, back = cloze_front(text, number), cloze_back(text, number)
    assert isinstance(front, str) and isinstance(back, str)
    if not cloze_numbers(text):
        assert front == back == text


def test_a_card_with_deletions_becomes_one_card_per_number():
    first, second = expand_cloze_cards(card(CAPITAL))

    assert (first.key, first.cloze, first.front, first.back) == ("c1-c1", 1, CAPITAL, "Extra")
    assert (second.key, second.cloze, second.topics, second.markup, second.line) == ("c1-c2", 2, ["geo"], "html", 3)


def test_cards_without_deletions_or_with_a_number_stay_as_they_are():
    plain, numbered = card("What is 6 x 7?"), card(CAPITAL, key="n:1", cloze=2)

    assert expand_cloze_cards(plain) == [plain]
    assert expand_cloze_cards(numbered) == [numbered]


def test_an_expanded_key_still_fits():
    [first, _] = expand_cloze_cards(card(CAPITAL, key="k" * MAX_KEY))

    assert len(first.key) == MAX_KEY and first.key.endswith("-c1")
