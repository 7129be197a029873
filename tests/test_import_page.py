"""Importing in the browser: upload or paste, a preview that writes nothing, an apply that writes
once; problems shown beside their line; sharing what one owns."""

import re
from pathlib import Path

import pytest
from django.urls import reverse

from quiz.models import Card, Deck, PendingImport, Question, QuestionSet, Visibility
from tests.class_factories import make_instructor
from tests.factories import make_deck, make_question_set, make_user

SAMPLES = Path(__file__).parent / "samples"
GIFT = (SAMPLES / "networking.gift").read_text(encoding="utf-8")


@pytest.fixture
def ann(db, client):
    user = make_user("ann")
    client.force_login(user)
    return user


def paste(client, text, name="My notes", format=""):
    return client.post(reverse("import_content"), {"text": text, "name": name, "format": format})


def apply(client, pending=None):
    """Apply as the preview page does: posting back the fingerprint of the preview it showed."""
    pending = pending or PendingImport.objects.latest("pk")
    url = reverse("import_preview", args=[pending.pk])
    previewed = re.search(r'name="previewed" value="(\w+)"', client.get(url).content.decode()).group(1)
    return client.post(url, {"previewed": previewed})


def test_a_paste_is_previewed_without_writing_and_applied_once(client, ann):
    response = paste(client, GIFT, name="networking")
    pending = PendingImport.objects.get(owner=ann)
    assert response.status_code == 302 and response.url == reverse("import_preview", args=[pending.pk])
    assert not QuestionSet.objects.exists()

    preview = client.get(response.url).content.decode()
    assert "10 to add, 0 to change, 0 to remove" in preview
    assert "line 4</span> Which layer routes packets?" in preview
    assert "skipped: essay" in preview  # the kinds the app does not support are listed with their line
    assert not QuestionSet.objects.exists()

    first = apply(client)
    previewed = re.search(r'name="previewed" value="(\w+)"', preview).group(1)
    second = client.post(response.url, {"previewed": previewed})  # a second click, or the form sent again

    assert first.status_code == second.status_code == 302
    question_set = QuestionSet.objects.get()
    assert (question_set.owner, question_set.visibility) == (ann, Visibility.PRIVATE)
    assert question_set.questions.count() == 10
    assert "nothing was imported twice" in client.get(reverse("library")).content.decode()


def test_importing_again_shows_the_changed_words(client, ann):
    paste(client, GIFT, name="networking")
    apply(client)
    edited = GIFT.replace("Which layer routes packets?", "Which OSI layer routes packets?")

    response = paste(client, edited, name="networking")
    preview = client.get(response.url).content.decode()

    assert "0 to add, 1 to change, 0 to remove, 9 unchanged" in preview
    assert "Which<ins> OSI</ins> layer routes packets?" in preview
    assert Question.objects.filter(stem__startswith="Which layer").exists()  # not applied yet


def test_a_problem_is_shown_beside_its_line_and_nothing_is_staged(client, ann):
    broken = "::Q1:: Which layer routes packets? {\n  ~Network\n  ~Transport\n}\n"
    response = paste(client, broken, name="broken", format="gift")

    html = response.content.decode()
    assert response.status_code == 422
    assert "broken:1:" in html  # FILE:LINE: what is wrong
    assert 'class="problem" aria-current="true"' in html
    assert not PendingImport.objects.exists()


def test_every_problem_is_listed_and_marked_beside_its_own_line(client, ann):
    # Every question is broken, so there is nothing to import (tests/test_import_partial.py: some are).
    broken = "::Q1:: No right answer {~a ~b}\n\n// Q2 was here\n\n::Q3:: Unclosed {=a ~b\n\n::Q4:: {=a}{=b ~c}\n"
    response = paste(client, broken, name="broken", format="gift")

    html = response.content.decode()
    assert response.status_code == 422
    assert "3 problems to fix" in html
    for line, message in [(1, "no right answer"), (5, "&#x27;{&#x27; is not closed"), (7, "a second answer block")]:
        assert f"<li>broken:{line}: {message}" in html  # listed
        marked = re.search(rf'<li value="{line}" class="problem"[^>]*><code>[^<]*</code> <strong[^>]*>([^<]*)<', html)
        assert marked and marked.group(1).startswith(f"← line {line}: {message}")  # and beside its line
    assert html.count('class="problem"') == 3 and html.count('aria-current="true"') == 1
    assert '<li value="3"><code>// Q2 was here</code></li>' in html  # a short file is shown whole
    assert not PendingImport.objects.exists() and not QuestionSet.objects.exists()


def bad_quotes(number, every):
    """A row of a question table, whose quotes the csv reader cannot read on every `every`-th: the
    file's problem (it cannot tell where the next rows start), so the file is refused."""
    return f'"Q{number}?"x,a|b,A' if number % every == 0 else f"Q{number}?,a|b,A"


def test_a_long_file_shows_the_lines_around_each_problem_with_gaps_and_at_most_200(client, ann):
    rows = [bad_quotes(number, 50) for number in range(1, 1001)]
    response = paste(client, "stem,choices,answer\n" + "\n".join(rows) + "\n", name="long.csv")

    html = response.content.decode()
    shown = [int(number) for number in re.findall(r'<li value="(\d+)"', html)]
    assert response.status_code == 422 and "20 problems to fix" in html
    assert shown[:8] == [48, 49, 50, 51, 52, 53, 54, 98]  # three lines either side of line 51
    assert len(shown) == 19 * 7 + 4 and html.count('class="gap"') == 20  # the last problem is on the last line
    assert html.count('class="problem"') == 20

    rows = [bad_quotes(number, 10) for number in range(1, 2001)]
    html = paste(client, "stem,choices,answer\n" + "\n".join(rows) + "\n", name="many.csv").content.decode()
    assert "200 problems to fix" in html and "… and 100 more" in html
    assert len(re.findall(r'<li value="', html)) == 200  # not 100 windows of 7 lines


def test_markup_is_shown_as_text(client, ann):
    response = paste(client, "::x:: <script>alert(1)</script> pick?{=a ~b}\n", name="markup", format="gift")
    preview = client.get(response.url).content.decode()

    assert "<script>alert(1)</script>" not in preview
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in preview


def test_an_uploaded_csv_deck_becomes_the_learners_private_deck(client, ann):
    with open(SAMPLES / "cards.tsv", "rb") as upload:
        response = client.post(reverse("import_content"), {"files": [upload]})
    assert response.status_code == 302, response.content.decode()
    apply(client)

    deck = Deck.objects.get()
    assert (deck.owner, deck.visibility) == (ann, Visibility.PRIVATE)
    assert Card.objects.filter(deck=deck).count() > 0
    assert deck.title in client.get(reverse("library")).content.decode()


def test_an_empty_form_and_a_stranger_get_clear_answers(client, ann):
    assert "Choose a file or paste some text." in client.post(reverse("import_content"), {}).content.decode()
    pending = PendingImport.objects.get(pk=PendingImport.objects.create(owner=make_user("bob")).pk)

    assert client.get(reverse("import_preview", args=[pending.pk])).status_code == 404
    assert client.post(reverse("import_preview", args=[pending.pk])).status_code == 404


def test_an_owner_shares_and_no_one_else_can(client, ann):
    paste(client, GIFT, name="networking")
    apply(client)
    question_set = QuestionSet.objects.get()

    client.post(reverse("share_set", args=[question_set.pk]), {"visibility": "everyone"})
    refused = client.post(reverse("share_set", args=[question_set.pk]), {"visibility": "classes"})  # not an instructor
    question_set.refresh_from_db()
    assert question_set.visibility == Visibility.EVERYONE
    assert refused.status_code == 302

    client.force_login(make_instructor("teacher"))
    assert client.post(reverse("share_set", args=[question_set.pk]), {"visibility": "private"}).status_code == 404
    question_set.refresh_from_db()
    assert question_set.visibility == Visibility.EVERYONE


# --- Downloads ----------------------------------------------------------------------------------------

def test_an_owner_downloads_their_set_in_every_format_and_it_reads_back(client, ann):
    from quiz.content.export import SET_FORMATS
    from quiz.content.reading import parse_document

    paste(client, GIFT, name="networking")
    apply(client)
    question_set = QuestionSet.objects.get()

    for format in SET_FORMATS:
        response = client.get(reverse("download_set", args=[question_set.pk, format]))
        if response.status_code == 302:  # a format that cannot hold this content says so
            continue
        assert response.status_code == 200, format
        assert response["Content-Disposition"].startswith("attachment; filename=")
        documents, _ = parse_document(response.content, "download", format)
        assert [len(document.items) for document in documents] == [10], format


DOWNLOAD_LINK = re.compile(r'data-testid="download-(\w+)">([^<]*)</a>')


def test_the_download_menus_name_every_format_as_people_do(client, ann):
    make_question_set("Mine", owner=ann)
    deck = make_deck("My deck", owner=ann)
    set_menu = [
        ("json", "JSON"), ("quiz", "Quiz document"), ("gift", "Moodle GIFT"), ("aiken", "Aiken"), ("csv", "CSV"),
        ("moodle", "Moodle XML"),
    ]
    deck_menu = [("json", "JSON"), ("deck", "Deck document"), ("csv", "CSV"), ("anki", "Anki plain text")]

    assert DOWNLOAD_LINK.findall(client.get(reverse("library")).content.decode()) == set_menu + deck_menu
    assert DOWNLOAD_LINK.findall(client.get(reverse("deck", args=[deck.pk])).content.decode()) == deck_menu


def test_a_learner_cannot_download_the_answer_key_of_a_set_they_do_not_own(client, ann):
    from tests.factories import make_deck, make_question_set

    library_set = make_question_set("Library")
    deck = make_deck("Library deck")

    assert client.get(reverse("download_set", args=[library_set.pk, "gift"])).status_code == 404
    assert client.get(reverse("download_deck", args=[deck.pk, "csv"])).status_code == 200  # backs show on every flip
    assert client.get(reverse("download_deck", args=[deck.pk, "gift"])).status_code == 404  # not a deck format
    client.force_login(make_instructor("prof"))
    assert client.get(reverse("download_set", args=[library_set.pk, "gift"])).status_code == 200


def test_text_over_the_size_limit_is_refused_with_a_message_and_nothing_staged(client, ann):
    response = paste(client, "x" * 5_000_001, name="huge")

    assert "Paste at most 5 MB of text." in response.content.decode()
    assert not PendingImport.objects.exists()


def test_an_apply_refuses_when_the_content_changed_since_its_preview(client, ann):
    paste(client, "::a:: Alpha? {=yes ~no}\n", name="notes", format="gift")
    first = PendingImport.objects.latest("pk")
    paste(client, "::b:: Beta? {=yes ~no}\n\n::c:: Gamma? {=yes ~no}\n", name="notes", format="gift")
    second = PendingImport.objects.latest("pk")
    url = reverse("import_preview", args=[second.pk])
    previewed = re.search(r'name="previewed" value="(\w+)"', client.get(url).content.decode()).group(1)  # "a new set"

    apply(client, first)  # meanwhile, the first import makes the set
    refused = client.post(url, {"previewed": previewed})

    assert refused.status_code == 302 and refused.url == url
    assert list(Question.objects.values_list("stem", flat=True)) == ["Alpha?"]
    assert "changed since this preview" in client.get(url).content.decode()
    apply(client, second)  # previewed again: now it says what it replaces, and applies
    assert sorted(Question.objects.values_list("stem", flat=True)) == ["Beta?", "Gamma?"]


def test_a_preview_reads_a_few_queries_whatever_the_size_and_shows_moves(client, ann, django_assert_max_num_queries):
    many = "".join(f"::q{n}:: Question {n}? {{=yes ~no}}\n\n" for n in range(200))
    paste(client, many, name="big", format="gift")
    apply(client)
    reordered = "".join(f"::q{n}:: Question {n}? {{=yes ~no}}\n\n" for n in [1, 0, *range(2, 200)])
    response = paste(client, reordered, name="big", format="gift")

    with django_assert_max_num_queries(12):
        html = client.get(response.url).content.decode()

    assert "0 to add, 0 to change, 0 to remove, 200 unchanged" in html
    assert "2 of them moved" in html


def test_removing_an_answered_question_is_refused_in_the_preview(client, ann):
    from tests.factories import start_attempt
    from tests.helpers import answer_all

    paste(client, "::a:: Alpha? {=yes ~no}\n\n::b:: Beta? {=yes ~no}\n", name="notes", format="gift")
    apply(client)
    answer_all(start_attempt(ann, QuestionSet.objects.get()))
    response = paste(client, "::a:: Alpha? {=yes ~no}\n", name="notes", format="gift")

    html = client.get(response.url).content.decode()
    assert "cannot remove “Beta?”" in html
    assert 'name="previewed"' not in html  # no Apply button


@pytest.mark.parametrize("name", ["/", ".", "..", "  "])
def test_a_paste_needs_a_usable_name(client, ann, name):
    response = paste(client, "::a:: Alpha? {=yes ~no}\n", name=name, format="gift")

    assert "Give the pasted text a name" in response.content.decode()
    assert not PendingImport.objects.exists()


def test_staged_bytes_do_not_pile_up(client, ann):
    for n in range(8):
        paste(client, f"::a:: Alpha {n}? {{=yes ~no}}\n", name=f"notes {n}", format="gift")
    assert PendingImport.objects.filter(owner=ann, applied_at=None).count() == 5

    apply(client)
    assert not PendingImport.objects.latest("pk").files.exists()  # applied: its bytes are in the content


def test_the_page_offers_exactly_the_formats_the_importer_reads():
    from quiz.content.reading import FORMATS
    from quiz.editor.forms import IMPORT_FORMATS

    assert [name for name, _ in IMPORT_FORMATS] == list(FORMATS)
