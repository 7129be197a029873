"""An import that keeps the good items: a file whose only problems are items that stand on their
own is staged, its preview lists those items (`FILE:LINE: what is wrong`) beside every valid item
as it will be saved, and the learner applies the valid ones, saying so, or fixes the file. Nothing
is written before the apply, the apply happens once, and a skipped item's stored row stays as it is."""

import re

import pytest
from django.urls import reverse

from quiz.content.documents import ContentError, SkippedItems
from quiz.content.importing import Skipped, parse_files
from quiz.content.reading import parse_document
from quiz.models import Card, Deck, PendingImport, Question, QuestionSet
from tests.factories import make_user

FIVE = ["Alpha", "Beta", "Gamma", "Delta", "Epsilon"]


def gift(stems, broken=()):
    """A GIFT file of one question per stem (one block every other line: stem n is on line 2n-1);
    the stems in `broken` have no right answer."""
    return "".join(f"::{stem}:: {stem}? {{{'~' if stem in broken else '='}yes ~no}}\n\n" for stem in stems)


@pytest.fixture
def ann(db, client):
    user = make_user("ann")
    client.force_login(user)
    return user


def paste(client, text, name="notes", format="gift"):
    return client.post(reverse("import_content"), {"text": text, "name": name, "format": format})


def preview_url(pending=None):
    return reverse("import_preview", args=[(pending or PendingImport.objects.latest("pk")).pk])


def apply(client, *, skip, pending=None):
    """Apply as the preview page does, with its skip button (`skip`) or as a plain Apply."""
    url = preview_url(pending)
    previewed = re.search(r'name="previewed" value="(\w+)"', client.get(url).content.decode()).group(1)
    return client.post(url, {"previewed": previewed, **({"skip_bad_items": "yes"} if skip else {})})


def stems():
    return list(Question.objects.order_by("position", "pk").values_list("stem", flat=True))


# --- Staging and the preview ---------------------------------------------------------------------


def test_it_stages_a_file_with_one_bad_question_of_five_and_lists_it_with_its_line(client, ann):
    response = paste(client, gift(FIVE, broken={"Gamma"}))

    assert response.status_code == 302 and response.url == preview_url()
    html = client.get(response.url).content.decode()
    assert not QuestionSet.objects.exists() and not Question.objects.exists()  # nothing written before the apply
    skipped = re.search(r'data-testid="preview-skipped">(.*?)</section>', html, re.S).group(1)
    assert "1 item has a problem and cannot be imported" in skipped
    assert "saved version" not in skipped  # a new set: nothing imported before to keep
    assert "<li>notes:5: no right answer: mark the right one with &#x27;=&#x27;" in skipped  # FILE:LINE: what is wrong
    assert "4 to add, 0 to change, 0 to remove, 0 unchanged</span>, <span data-testid=\"preview-skipped-count\">1 skipped" in html
    assert ">Apply the 4 valid items and skip 1</button>" in html
    assert f'href="{reverse("import_content")}">Fix the file and upload again</a>' in html
    assert ">Apply</button>" not in html  # no plain Apply: the learner chooses to skip


def test_it_applies_the_valid_items_only_when_the_learner_chooses_to_skip_and_only_once(client, ann):
    paste(client, gift(FIVE, broken={"Gamma"}))

    refused = apply(client, skip=False)  # a plain Apply (an old page, a hand-made request) writes nothing
    assert refused.status_code == 302 and refused.url == preview_url()
    assert not Question.objects.exists()
    assert "some items have problems" in client.get(preview_url()).content.decode()

    url = preview_url()
    previewed = re.search(r'name="previewed" value="(\w+)"', client.get(url).content.decode()).group(1)
    first = apply(client, skip=True)
    assert first.status_code == 302 and first.url == reverse("library")
    assert stems() == ["Alpha?", "Beta?", "Delta?", "Epsilon?"]
    assert list(Question.objects.order_by("position").values_list("position", flat=True)) == [1, 2, 4, 5]  # their places
    library = client.get(reverse("library")).content.decode()
    assert "4 questions (4 new, 0 updated, 1 skipped for their problems)" in library
    assert "Skipped 1 item with problems" in library

    again = client.post(url, {"previewed": previewed, "skip_bad_items": "yes"})
    assert again.status_code == 302 and Question.objects.count() == 4  # a second click writes nothing twice


def test_fixing_the_file_afterwards_adds_the_skipped_item_in_its_place(client, ann):
    paste(client, gift(FIVE, broken={"Gamma"}))
    apply(client, skip=True)

    paste(client, gift(FIVE))
    html = client.get(preview_url()).content.decode()
    apply(client, skip=False)

    assert "1 to add, 0 to change, 0 to remove, 4 unchanged" in html
    assert stems() == [f"{stem}?" for stem in FIVE]


def test_a_reimport_with_a_broken_item_keeps_the_stored_item_as_it_is(client, ann):
    paste(client, gift(FIVE))
    apply(client, skip=False)
    gamma = Question.objects.get(stem="Gamma?")
    gamma_choices = list(gamma.choices.values_list("pk", "text", "is_correct"))

    # Gamma is now broken, Beta is gone from the file and Zeta is new.
    paste(client, gift(["Alpha", "Gamma", "Delta", "Epsilon", "Zeta"], broken={"Gamma"}))
    html = client.get(preview_url()).content.decode()
    assert "1 to add, 0 to change, 0 to remove, 3 unchanged" in html
    assert "what this item would have updated keeps its saved version" in html
    kept = re.search(r'data-testid="preview-kept">(.*?)</ol>', html, re.S).group(1)
    assert "Beta?" in kept and "Gamma?" in kept  # neither removed: either may be what Gamma's item was
    apply(client, skip=True)

    gamma.refresh_from_db()
    assert (gamma.stem, gamma.position) == ("Gamma?", 3)
    assert list(gamma.choices.values_list("pk", "text", "is_correct")) == gamma_choices
    assert sorted(stems()) == ["Alpha?", "Beta?", "Delta?", "Epsilon?", "Gamma?", "Zeta?"]


def test_an_item_edited_beside_a_broken_one_is_added_not_matched_to_the_broken_ones_row(client, ann):
    stored = "Quiz\nQuestion 1: One?\n- yes (Correct answer)\n- no\nCorrect answer: yes\nBecause.\n\n"
    stored += "Question 2: Two?\n- yes (Correct answer)\n- no\nCorrect answer: yes\nBecause.\n"
    paste(client, stored, format="quiz")
    apply(client, skip=False)
    two = Question.objects.get(key="q2")

    # Question 2's text is taken by a new question, and the old one (now 3) is broken: by its place
    # the new one would take the broken one's row; by its key, a key the kept row holds.
    edited = stored.replace("Two?", "Brand new?") + "\nQuestion 3: Two?\n- yes\n- no\nCorrect answer: yes\nBecause.\n"
    paste(client, edited, format="quiz")
    assert "notes:14: question q3: no choice ends with (Correct answer)" in client.get(preview_url()).content.decode()
    assert apply(client, skip=True).status_code == 302

    two.refresh_from_db()
    assert (two.key, two.stem) == ("q2", "Two?")
    new = Question.objects.get(stem="Brand new?")
    assert new.key.startswith("q2-")  # its own key: q2 is the kept row's


def test_a_file_whose_items_are_all_bad_is_refused_with_the_list_and_the_form(client, ann):
    response = paste(client, gift(["Alpha", "Beta"], broken={"Alpha", "Beta"}))

    html = response.content.decode()
    assert response.status_code == 422 and "2 problems to fix" in html
    assert "<li>notes:1: no right answer" in html and "<li>notes:3: no right answer" in html
    assert 'enctype="multipart/form-data"' in html  # the upload form, to fix and upload again
    assert not PendingImport.objects.exists() and not QuestionSet.objects.exists()


def test_a_file_level_problem_still_refuses_the_whole_upload(client, ann):
    deck = "Deck\n\nQ1\n\nA1\n\nM1\n\nC1\n\n" + "x" * 10_001 + "\n\nA2\n\nM2\n\nC2\n"  # a deck cannot skip a card
    response = paste(client, deck, format="deck")

    assert response.status_code == 422 and "notes:11: a paragraph is longer" in response.content.decode()
    assert not PendingImport.objects.exists()


def test_the_preview_shows_each_question_with_its_choices_marked_right_and_each_cards_back(client, ann):
    questions = (
        "::single:: Which layer routes packets? {~Transport =Network ~Link #Layer 3 routes. ####Routing is layer 3.}\n\n"
        "::partial:: Which are transport protocols? {~%50%TCP ~%50%UDP ~%-100%IP}\n\n"
        "::number:: Pi to two places? {#3.14:0.01}\n\n"
        "::match:: Match the layer. {=TCP -> Transport =IP -> Network = -> Physical}\n"
    )
    paste(client, questions)
    html = client.get(preview_url()).content.decode()

    contents = re.search(r'<details data-testid="preview-contents" open>(.*?)</details>', html, re.S).group(1)
    items = contents.split('<li class="result-item" data-testid="preview-item">')[1:]
    assert len(items) == 4
    single, partial, number, matching = (" ".join(item.split()) for item in items)
    assert "line 1 · new · Single answer" in single and "Which layer routes packets?" in single
    assert ('<li class="review-choice is-correct"><span aria-hidden="true">✓ </span><span class="as-written">Network</span> '
            '<span class="tag tag-correct">marked right</span></li>') in single
    assert single.count("marked right") == 1 and '<span class="as-written">Transport</span></li>' in single
    assert "Routing is layer 3." in single  # the explanation
    assert "Select all that apply, partial credit" in partial
    assert "TCP</span> <span class=\"tag tag-correct\">marked right</span> <span class=\"muted\">(+50% credit)</span>" in partial
    assert "IP</span> <span class=\"muted\">(-100% credit)</span>" in partial
    assert "Number (typed)" in number and "3.14</span> ± 0.01" in number
    assert "TCP</span> → <span class=\"as-written\">Transport</span>" in matching
    assert "extra option:</span> <span class=\"as-written\">Physical</span>" in matching

    paste(client, "Deck\n\nWhat does TCP guarantee?\n\nOrdered delivery.\n\nThat it is fast.\n\nIt trades speed for order.\n",
          name="cards", format="deck")
    card = " ".join(client.get(preview_url()).content.decode().split())
    assert ("<dt>Front</dt><dd class=\"as-written\">What does TCP guarantee?</dd> <dt>Back</dt><dd class=\"as-written\">"
            "Ordered delivery.</dd>") in card
    assert "<dt>Misconception</dt><dd class=\"as-written\">That it is fast.</dd>" in card
    assert "<dt>Correction</dt><dd class=\"as-written\">It trades speed for order.</dd>" in card


def test_a_long_file_is_listed_collapsed(client, ann):
    paste(client, gift([f"Q{number}" for number in range(11)]))

    html = client.get(preview_url()).content.decode()
    assert '<details data-testid="preview-contents">' in html and html.count('data-testid="preview-item"') == 11


def test_the_import_page_links_back_to_an_open_preview(client, ann):
    paste(client, gift(FIVE, broken={"Gamma"}))

    html = client.get(reverse("import_content")).content.decode()
    assert f'<a href="{preview_url()}">notes</a>' in html
    apply(client, skip=True)
    assert 'data-testid="open-imports"' not in client.get(reverse("import_content")).content.decode()


def test_no_one_else_applies_a_learners_open_import(client, ann):
    paste(client, gift(FIVE, broken={"Gamma"}))
    url = preview_url()
    client.force_login(make_user("bob"))

    assert client.post(url, {"previewed": "x", "skip_bad_items": "yes"}).status_code == 404
    assert client.get(url).status_code == 404
    assert not Question.objects.exists()


def test_the_import_command_still_refuses_a_file_with_a_bad_item(tmp_path, db):
    from quiz.content import import_documents

    path = tmp_path / "notes.gift"
    path.write_text(gift(FIVE, broken={"Gamma"}), encoding="utf-8")

    with pytest.raises(ContentError, match="notes.gift:5: no right answer"):
        import_documents([path])
    assert not Question.objects.exists()


# --- Which formats skip an item, and which refuse the file ------------------------------------------

CHOICES = '"choices": [{"text": "y", "correct": true}, {"text": "n", "correct": false}]'
# The second set's only question is broken: that set is left out whole, and nothing of it changes.
JSON_SETS = f"""{{"question_sets": [
 {{"title": "Set", "source": null, "questions": [
  {{"key": "a", "stem": "A?", "explanation": "", {CHOICES}}},
  {{"key": "b", "stem": "", "explanation": "", {CHOICES}}}]}},
 {{"title": "All bad", "source": null, "questions": [
  {{"key": "c", "stem": "C?", "explanation": "", "choices": []}}]}}]}}
"""

SKIPPING = {
    "quiz": (
        "Quiz\nQuestion 1: One?\n- a (Correct answer)\n- b\nCorrect answer: a\nBecause.\n"
        "Question 2: Two?\n- a\n- b\nCorrect answer: a\nBecause.\n"
        "Question 3: Three?\n- a (Correct answer)\n- b\nCorrect answer: a\nBecause.\n",
        ["One?", "Three?"], [2], 7, "no choice ends with (Correct answer)",
    ),
    "gift": (gift(["A", "B", "C"], broken={"B"}), ["A?", "C?"], [2], 3, "no right answer"),
    "aiken": ("One?\nA. a\nB. b\nANSWER: A\nTwo?\nA. a\nB. b\nANSWER: C\nThree?\nA. a\nB. b\nANSWER: B\n",
              ["One?", "Three?"], [2], 8, "ANSWER must be one of A, B"),
    "csv": ("stem,choices,answer\nOne?,a|b,A\nTwo?,a|b,Z\nThree?,a|b,B\n", ["One?", "Three?"], [2], 3, "matches no choice"),
    "anki": ("#separator:tab\nOne\tun\n\tdeux\nThree\ttrois\n", ["One", "Three"], [2], 3, "the front is empty"),
    "json": (JSON_SETS, ["A?"], [2], 4, '"stem" must be a non-empty string'),
}


@pytest.mark.parametrize("format", SKIPPING)
def test_each_format_whose_items_stand_alone_skips_a_bad_one_and_reads_the_rest(format):
    text, read, places, line, message = SKIPPING[format]
    skipped = Skipped()

    documents, _ = parse_files([("notes", text.encode())], format=format, skipped=skipped)

    assert [item.stem if hasattr(item, "stem") else item.front for item in documents[0].items] == read
    assert documents[0].skipped == places
    assert str(skipped.problems[0]).startswith(f"notes:{line}: ") and message in str(skipped.problems[0])
    assert skipped.items == (2 if format == "json" else 1)
    assert [document.title for document in documents] == (["Set"] if format == "json" else [documents[0].title])


REFUSING = {
    # A deck's cards are told apart only by counting paragraphs: a broken one may be a shifted one.
    "deck": ("Deck\n\nQ1\n\nA1\n\nM1\n\nC1\n\nTopics: " + "t" * 101 + "\nQ2\n\nA2\n\nM2\n\nC2\n", "is longer than 100"),
    # Quotes decide where the next rows start.
    "csv": ('stem,choices,answer\nOne?,a|b,A\n"Two?"x,a|b,A\nThree?,a|b,B\n', "malformed row"),
    # A line after the choices looks like a missing ANSWER line: the next question was read as this one's end.
    "aiken": ("One?\nA. a\nB. b\nstray\nANSWER: A\nTwo?\nA. a\nB. b\nANSWER: A\n", "expected the next choice or 'ANSWER: X'"),
    # A category names the topics of every question after it.
    "gift": ("$CATEGORY: " + "t" * 101 + "\n\n::a:: A? {=y ~n}\n", "is longer than 100"),
    # A repeated guid: which note is the card?
    "anki": ("#separator:tab\n#guid column:1\ng1\tOne\tun\ng1\tTwo\tdeux\n", "the guid 'g1' is also on line 3"),
    # A string no database can store is refused wherever it is.
    "json": ('{"decks": [{"title": "D", "source": null, "cards": [\n'
             '{"key": "c1", "front": "F\\u0000", "back": "B", "misconception": "", "correction": ""},\n'
             '{"key": "c2", "front": "G", "back": "B", "misconception": "", "correction": ""}]}]}\n', "NUL character"),
}


@pytest.mark.parametrize("format", REFUSING)
def test_a_problem_that_is_not_one_items_refuses_the_file(format):
    text, message = REFUSING[format]

    with pytest.raises(ContentError, match=re.escape(message)) as raised:
        parse_files([("notes", text.encode())], format=format, skipped=Skipped())
    assert not isinstance(raised.value, SkippedItems)


def test_a_skipped_item_in_one_file_does_not_hide_another_files_problem():
    good_but_one, broken = gift(["A", "B"], broken={"B"}).encode(), b"::x:: X? {=y ~n\n"
    skipped = Skipped()

    with pytest.raises(ContentError) as raised:
        parse_files([("one", good_but_one), ("two", broken)], format="gift", skipped=skipped)
    assert [str(problem).split(":")[0:2] for problem in raised.value.problems] == [["one", "3"], ["two", "1"]]


def test_positions_count_the_skipped_items():
    with pytest.raises(SkippedItems) as raised:
        parse_document(gift(["A", "B", "C", "D"], broken={"A", "C"}).encode(), "notes", "gift")
    document, = raised.value.documents

    assert document.skipped == [1, 3] and document.positions() == [2, 4]


def test_a_deck_reimport_with_a_broken_card_keeps_the_stored_card(client, ann):
    rows = "front,back\nOne,un\nTwo,deux\nThree,trois\n"
    paste(client, rows, name="cards.csv", format="csv")
    apply(client, skip=False)
    two = Card.objects.get(front="Two")

    paste(client, rows.replace("Two,deux", "Two,").replace("Three,trois", "Three,tres"), name="cards.csv", format="csv")
    assert "cards.csv:3: the back is empty" in client.get(preview_url()).content.decode()
    apply(client, skip=True)

    two.refresh_from_db()
    assert two.back == "deux" and Deck.objects.count() == 1
    assert list(Card.objects.order_by("position").values_list("front", "back")) == [
        ("One", "un"), ("Two", "deux"), ("Three", "tres")
    ]


def test_the_preview_renders_an_items_markup_as_the_learner_will_read_it(client, ann):
    choices = '[{"text": "`TCP`", "correct": true}, {"text": "<script>alert(1)</script>", "correct": false}]'
    export = ('{"question_sets": [{"title": "Marked up", "source": null, "questions": [{"key": "a", "markup": "markdown", '
              f'"stem": "Which is **reliable**?", "explanation": "", "choices": {choices}}}]}}]}}\n')
    paste(client, export, format="json")

    html = client.get(preview_url()).content.decode()
    assert "<strong>reliable</strong>" in html and "<code>TCP</code>" in html
    assert "<script>alert(1)</script>" not in html


def test_too_many_items_refuse_the_file_even_beside_a_skipped_one():
    rows = "".join(f"Q{number}?,a|b,A\n" for number in range(5001))

    with pytest.raises(ContentError, match="5001 questions in one set or deck; at most 5000") as raised:
        parse_document(("stem,choices,answer\n" + rows + "Bad?,a|b,Z\n").encode(), "big.csv")
    assert not isinstance(raised.value, SkippedItems)
