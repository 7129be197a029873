"""Images of sets and decks: checked by content, cleaned of metadata, stored once per set or deck,
served only to those who may see them, added in the editor, carried by imported documents."""

import io
import random
import struct
import time
import zlib

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import timezone
from PIL import Image, PngImagePlugin

from quiz.content.documents import ContentError, ParsedCard, ParsedDocument, ParsedMedia, ParsedQuestion, Problems
from quiz.content.importing import import_parsed
from quiz.content.media import (
    MAX_IMAGE_BYTES,
    check_image,
    check_media,
    rewrite_media_references,
    save_image,
)
from quiz.models import Attempt, Card, Markup, MediaFile, Question, SourceDocument, Visibility
from tests.class_factories import make_assignment, make_classroom, make_instructor, make_pool
from tests.factories import make_deck, make_question_set, make_user
from tests.helpers import logged_in
from tests.images import exif_with_gps, image_bytes, make_image


def check(data, name="picture.png"):
    return check_image(data, file="upload", line=7, name=name)


def refusal(data, name="picture.png"):
    with pytest.raises(ContentError) as caught:
        check(data, name)
    return caught.value


def stored(media):
    with default_storage.open(media.file.name, "rb") as file:
        return file.read()


# --- Checking -------------------------------------------------------------------------------------

@pytest.mark.parametrize("format, extension, content_type", [
    ("PNG", "png", "image/png"), ("JPEG", "jpg", "image/jpeg"), ("GIF", "gif", "image/gif"), ("WEBP", "webp", "image/webp"),
])
def test_it_accepts_each_format_by_its_content(format, extension, content_type):
    # Named .png whatever it is: the content decides.
    image = check(image_bytes(format, size=(12, 5)), name="named-wrongly.png")

    assert (image.extension, image.content_type, image.width, image.height) == (extension, content_type, 12, 5)
    assert Image.open(io.BytesIO(image.data)).format == format


def test_it_refuses_a_text_file_named_png():
    error = refusal(b"Question 1: the answer is B\n")

    assert str(error) == "upload:7: image 'picture.png': it is not a PNG, JPEG, GIF or WebP image (told by its content, not its name)"


@pytest.mark.parametrize("format", ["PNG", "JPEG"])
def test_it_refuses_a_truncated_image(format):
    whole = image_bytes(format, size=(64, 64), color=(10, 200, 90))

    assert "damaged or cut off" in refusal(whole[: len(whole) * 2 // 3]).message


def test_it_refuses_a_picture_of_another_format():
    bmp = image_bytes("BMP")

    assert "not a PNG, JPEG, GIF or WebP image" in refusal(bmp, "picture.bmp").message


def png_claiming(width, height):
    """A small PNG whose header claims `width`×`height` pixels: a decompression bomb's header."""
    data = bytearray(image_bytes("PNG", size=(1, 1), mode="1", color=0))
    header = struct.pack(">II", width, height) + bytes(data[24:29])
    data[16:29] = header
    data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + header))
    return bytes(data)


@pytest.mark.parametrize("width, height", [(8_000, 8_000), (100_000, 100_000), (2**31 - 1, 2**31 - 1)])
def test_it_refuses_a_decompression_bomb_quickly(width, height):
    started = time.perf_counter()

    error = refusal(png_claiming(width, height))

    assert "more than 40 million pixels" in error.message
    assert time.perf_counter() - started < 1


def test_it_counts_every_frame_of_an_animation_against_the_pixel_limit():
    frames = [Image.new("P", (1000, 1000), n) for n in range(45)]
    buffer = io.BytesIO()
    frames[0].save(buffer, "GIF", save_all=True, append_images=frames[1:], optimize=False)

    assert "more than 40 million pixels" in refusal(buffer.getvalue(), "a.gif").message


def test_it_refuses_a_file_over_the_size_limit_before_reading_it():
    assert "larger than 5 MB" in refusal(b"\x89PNG\r\n\x1a\n" + bytes(MAX_IMAGE_BYTES)).message


def test_it_refuses_an_empty_file():
    assert refusal(b"").message == "image 'picture.png': the file is empty"


def test_it_strips_exif_and_gps_and_applies_the_orientation(question_set):
    photo = image_bytes("JPEG", size=(40, 20), exif=exif_with_gps(), comment=b"Secret answer: B")

    media = save_image(question_set, photo, "A photo")

    data = stored(media)
    reopened = Image.open(io.BytesIO(data))
    assert not reopened.getexif() and "exif" not in reopened.info and "comment" not in reopened.info
    assert b"Secret" not in data
    # Orientation 6 (a quarter turn) applied to the pixels, so it shows upright without EXIF.
    assert reopened.size == (20, 40) == (media.width, media.height)


def test_it_strips_a_png_s_text_chunks_and_profile(question_set):
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "Secret answer: B")
    info.add_itxt("XML:com.adobe.xmp", "<x:xmpmeta>Secret</x:xmpmeta>")
    from PIL import ImageCms
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    png = image_bytes("PNG", pnginfo=info, icc_profile=srgb, exif=exif_with_gps())

    media = save_image(question_set, png, "A square")

    data = stored(media)
    assert b"Secret" not in data and b"iCCP" not in data and b"eXIf" not in data
    assert Image.open(io.BytesIO(data)).info == {}


def test_an_animation_keeps_its_frames_and_timing(question_set):
    frames = [Image.new("RGB", (10, 10), color) for color in ("red", "green", "blue")]
    buffer = io.BytesIO()
    frames[0].save(buffer, "GIF", save_all=True, append_images=frames[1:], duration=80, loop=0, comment=b"Secret")

    media = save_image(question_set, buffer.getvalue(), "Three colours")

    reopened = Image.open(io.BytesIO(stored(media)))
    assert reopened.n_frames == 3 and reopened.info["duration"] == 80 and "comment" not in reopened.info


# --- Storing ---------------------------------------------------------------------------------------

def test_the_same_picture_twice_in_a_set_is_stored_once(question_set):
    first = save_image(question_set, image_bytes(), "A red square")
    # The same pixels with other metadata clean to the same bytes.
    second = save_image(question_set, image_bytes(pnginfo=PngImagePlugin.PngInfo()), "Another alt")

    assert second == first and MediaFile.objects.count() == 1
    assert first.alt == "A red square"


def test_each_set_or_deck_keeps_its_own_copy(question_set):
    deck = make_deck()

    in_set, in_deck = save_image(question_set, image_bytes(), "x"), save_image(deck, image_bytes(), "x")

    assert in_set.name != in_deck.name
    assert (in_set.question_set, in_set.deck, in_deck.question_set, in_deck.deck) == (question_set, None, None, deck)


def test_a_stored_image_has_a_random_name_that_says_nothing_of_the_file(question_set):
    media = save_image(question_set, image_bytes("JPEG"), "x", name="answer-is-B.png")

    assert len(media.name) == 28 and media.name.endswith(".jpg") and "answer" not in media.file.name
    assert media.file.name == f"content/{media.name}"
    assert (media.content_type, media.size, len(media.sha256)) == ("image/jpeg", len(stored(media)), 64)


def test_deleting_a_set_deletes_its_images_files(db, django_capture_on_commit_callbacks):
    question_set = make_question_set(owner=make_user())
    media = make_image(question_set)
    assert default_storage.exists(media.file.name)

    with django_capture_on_commit_callbacks(execute=True):
        question_set.delete()

    assert not MediaFile.objects.exists()
    assert not default_storage.exists(media.file.name)


def test_a_rolled_back_deletion_keeps_the_file(db, django_capture_on_commit_callbacks):
    deck = make_deck()
    media = make_image(deck)

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        deck.delete()

    assert len(callbacks) == 1  # run only if the deletion commits
    assert default_storage.exists(media.file.name)


# --- Serving ---------------------------------------------------------------------------------------

def image_url(media):
    return reverse("media_file", args=[media.name])


@pytest.fixture
def owner(db):
    return make_instructor("ines")


@pytest.fixture
def private_image(owner):
    return make_image(make_question_set(owner=owner), format="PNG")


def test_it_serves_the_owner_their_image_privately(owner, private_image):
    response = logged_in(owner).get(image_url(private_image))

    assert response.status_code == 200
    assert b"".join(response.streaming_content) == stored(private_image)
    assert response["Content-Type"] == "image/png"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Content-Disposition"].startswith("inline")
    assert "private" in response["Cache-Control"] and "public" not in response["Cache-Control"]


def test_it_serves_a_learner_of_a_class_the_content_is_shared_with(owner):
    learner = make_user("lena")
    make_classroom(owner, learners=[learner])
    media = make_image(make_deck(owner=owner, visibility=Visibility.CLASSES))

    assert logged_in(learner).get(image_url(media)).status_code == 200


@pytest.mark.parametrize("visitor", ["stranger", "anonymous"])
def test_whoever_may_not_see_the_set_is_told_the_image_does_not_exist(client, private_image, visitor):
    if visitor == "stranger":
        client = logged_in(make_user("mallory"))

    assert client.get(image_url(private_image)).status_code == 404


def test_a_classes_only_image_is_not_for_learners_of_other_classes(owner):
    outsider = make_user("otto")
    make_classroom(make_instructor("other"), learners=[outsider])
    media = make_image(make_question_set(owner=owner, visibility=Visibility.CLASSES))

    assert logged_in(outsider).get(image_url(media)).status_code == 404


def test_the_library_s_images_are_for_visitors_too(db, client):
    media = make_image(make_question_set())

    response = client.get(image_url(media))

    assert response.status_code == 200
    assert "public" in response["Cache-Control"]


def test_an_assignment_shows_its_learners_the_images_of_its_instructor_s_private_set(owner):
    learner, other = make_user("lena"), make_user("otto")
    classroom = make_classroom(owner, learners=[learner])
    question_set = make_question_set(owner=owner, questions=2)
    media, unshown = make_image(question_set), make_image(question_set, color=(0, 0, 255))
    question = question_set.questions.order_by("position").first()
    Question.objects.filter(pk=question.pk).update(stem=f"Which? ![A diagram](media:{media.name})")
    assignment = make_assignment(classroom, make_pool(owner, [question]))
    Attempt.objects.create_with_slots(
        user=learner, questions=[Question.objects.get(pk=question.pk)], feedback="immediate", rng=random.Random(1),
        assignment=assignment,
    )

    assert logged_in(learner).get(image_url(media)).status_code == 200
    # Another image of that set, which no question of theirs shows, and another learner: nothing.
    assert logged_in(learner).get(image_url(unshown)).status_code == 404
    assert logged_in(other).get(image_url(media)).status_code == 404


def test_an_unknown_name_is_a_404_and_post_a_405(client, private_image):
    assert client.get(reverse("media_file", args=["0" * 24 + ".png"])).status_code == 404
    assert client.get("/media/..%2Fsettings.py").status_code == 404
    assert client.post(image_url(private_image)).status_code == 405


def test_a_file_gone_from_the_store_is_a_404(owner, private_image):
    default_storage.delete(private_image.file.name)

    assert logged_in(owner).get(image_url(private_image)).status_code == 404


# --- Adding an image in the editor -----------------------------------------------------------------

@pytest.fixture
def author(db):
    return make_user("alice")


@pytest.fixture
def own_question(author):
    return make_question_set(owner=author, questions=1).questions.get()


def upload(item, kind="questions", **fields):
    data = {"image": SimpleUploadedFile("diagram.png", image_bytes()), "alt": "A red square", "target": "stem", **fields}
    return reverse("add_image", args=[kind, item.pk]), data


def test_it_adds_an_image_to_a_question_s_text_and_makes_it_markdown(author, own_question):
    url, data = upload(own_question)

    response = logged_in(author).post(url, data, follow=True)

    media = MediaFile.objects.get()
    own_question.refresh_from_db()
    assert response.redirect_chain[-1][0] == reverse("edit_question", args=[own_question.pk])
    assert own_question.stem == f"Question 1 stem?\n\n![A red square](media:{media.name})"
    assert own_question.markup == Markup.MARKDOWN
    assert media.question_set == own_question.question_set and media.alt == "A red square"
    assert "now written in Markdown" in response.content.decode()


def test_an_html_item_gets_an_img_tag_and_stays_html(author, own_question):
    Question.objects.filter(pk=own_question.pk).update(markup=Markup.HTML)
    url, data = upload(own_question, alt='A "quoted" <b>square</b>', target="explanation")

    logged_in(author).post(url, data)

    own_question.refresh_from_db()
    media = MediaFile.objects.get()
    assert own_question.explanation.endswith(
        f'<img src="media:{media.name}" alt="A &quot;quoted&quot; &lt;b&gt;square&lt;/b&gt;">'
    )
    assert own_question.markup == Markup.HTML


def test_it_adds_an_image_to_a_choice(author, own_question):
    choice = own_question.choices.order_by("position").first()
    url, data = upload(own_question, target=f"choice-{choice.pk}", alt="A [bracketed] square")

    assert logged_in(author).post(url, data).status_code == 302

    choice.refresh_from_db()
    assert choice.text == f"Choice 1.0 ![A \\[bracketed\\] square](media:{MediaFile.objects.get().name})"


def test_it_adds_an_image_to_the_back_of_a_card(author):
    card = make_deck(owner=author, cards=1).cards.get()
    url, data = upload(card, "cards", target="back")

    assert logged_in(author).post(url, data).status_code == 302

    card.refresh_from_db()
    assert card.back.startswith("Back 1\n\n![A red square](media:") and card.markup == Markup.MARKDOWN


@pytest.mark.parametrize("change, message", [
    ({"alt": ""}, "Write what the image shows (its alt text)"),
    ({"alt": "   "}, "Write what the image shows (its alt text)"),
    ({"image": None}, "Choose the image file to add."),
    ({"image": SimpleUploadedFile("diagram.png", b"not an image")}, "Not added: image &#x27;diagram.png&#x27;: it is not a PNG"),
    ({"target": "key"}, "Select a valid choice"),
])
def test_nothing_is_added_when_the_form_is_refused(author, own_question, change, message):
    url, data = upload(own_question)
    data = {name: value for name, value in {**data, **change}.items() if value is not None}

    response = logged_in(author).post(url, data)

    assert response.status_code == 400
    assert message in response.content.decode()
    own_question.refresh_from_db()
    assert own_question.stem == "Question 1 stem?" and own_question.markup == Markup.PLAIN
    assert not MediaFile.objects.exists()


def test_the_editor_shows_the_image_form_only_for_a_saved_item(author, own_question):
    client = logged_in(author)

    editor = client.get(reverse("edit_question", args=[own_question.pk])).content.decode()
    new = client.get(reverse("new_question", args=[own_question.question_set.pk])).content.decode()

    assert 'enctype="multipart/form-data"' in editor and "Add an image" in editor
    assert "Add an image" not in new


@pytest.mark.parametrize("kind", ["questions", "cards", "sets"])
def test_only_the_owner_may_add_an_image(author, own_question, kind):
    item = own_question if kind != "cards" else make_deck(owner=author, cards=1).cards.get()
    url, data = upload(item, kind)

    assert logged_in(make_user("mallory")).post(url, data).status_code == 404
    assert not MediaFile.objects.exists()


def test_adding_images_is_rate_limited(author, own_question, settings):
    settings.RATELIMIT_IMAGE_UPLOAD = "1/h"
    client = logged_in(author)

    assert client.post(*upload(own_question)).status_code == 302
    assert client.post(*upload(own_question)).status_code == 429


# --- Documents that carry images -------------------------------------------------------------------

def quiz_document(stem, media, file_name="diagrams.xml", explanation="", choices=(("Yes", True), ("No", False))):
    question = ParsedQuestion("q1", stem, explanation, list(choices), line=3, markup=Markup.MARKDOWN)
    return ParsedDocument(
        file_name, SourceDocument.Kind.QUIZ, "Diagrams", file_name, "checksum", [question], media=media,
    )


def test_saving_a_document_stores_its_images_and_rewrites_the_references(author):
    media = [ParsedMedia("net diagram.png", image_bytes(), line=9), ParsedMedia("unused.png", image_bytes("GIF"), line=12)]
    document = quiz_document(
        "Which layer? ![The OSI layers](media:net%20diagram.png)", media,
        explanation='<img src="media:net diagram.png">', choices=[("media:net diagram.png", True), ("No", False)],
    )

    import_parsed([document], owner=author)

    stored_image = MediaFile.objects.get()  # the image no item shows is not stored
    question = Question.objects.get()
    assert question.stem == f"Which layer? ![The OSI layers](media:{stored_image.name})"
    assert question.explanation == f'<img src="media:{stored_image.name}">'
    assert question.choices.get(position=1).text == f"media:{stored_image.name}"
    assert stored_image.question_set == question.question_set and stored_image.alt == "The OSI layers"


def test_re_importing_a_document_does_not_duplicate_its_images(author):
    def document():
        return quiz_document("![A square](media:a.png) and ![the same](media:b.png)",
                             [ParsedMedia("a.png", image_bytes(), 5), ParsedMedia("b.png", image_bytes(), 6)])

    import_parsed([document()], owner=author)
    report = import_parsed([document()], owner=author)

    media = MediaFile.objects.get()
    assert Question.objects.get().stem == f"![A square](media:{media.name}) and ![the same](media:{media.name})"
    assert not report.outcomes[0].changed


def test_a_deck_s_cards_show_their_images_by_the_stored_names(author):
    card = ParsedCard("c1", "What is this? ![A square](media:sq.webp)", "<img src='media:sq.webp' alt='x'>", "", "", 4,
                      markup=Markup.MARKDOWN)
    document = ParsedDocument("cards.apkg", SourceDocument.Kind.DECK, "Shapes", "cards.apkg", "sum", [card],
                              media=[ParsedMedia("sq.webp", image_bytes("WEBP"), 2)])

    import_parsed([document], owner=author)

    media = MediaFile.objects.get()
    assert media.deck is not None and media.content_type == "image/webp"
    assert Card.objects.get().back == f"<img src='media:{media.name}' alt='x'>"


def test_an_item_showing_a_bad_image_is_a_bad_item_named_with_the_file_and_reason():
    good = ParsedQuestion("q1", "![ok](media:ok.png)", "", [("A", True), ("B", False)], line=3)
    bad = ParsedQuestion("q2", "Which? <img src=\"media:broken.png\">", "", [("A", True), ("B", False)], line=8)
    document = ParsedDocument("bank.xml", SourceDocument.Kind.QUIZ, "Bank", "bank.xml", "sum", [good, bad], media=[
        ParsedMedia("ok.png", image_bytes(), 20), ParsedMedia("broken.png", b"<html>not an image</html>", 24),
    ])
    problems = Problems()

    warnings = check_media([document], problems)

    assert document.items == [good] and document.skipped == [2]
    assert [str(problem) for problem in problems.found] == [
        "bank.xml:8: image 'broken.png': it is not a PNG, JPEG, GIF or WebP image (told by its content, not its name)"
    ]
    assert not problems.of_the_file and warnings == []


def test_an_imported_image_without_alt_text_is_listed():
    item = ParsedCard("c1", "<img src='media:a.png'>", "![](media:b.png)", "", "", line=3)
    with_alt = ParsedCard("c2", "![A square](media:c.png)", "x", "", "", line=5)
    document = ParsedDocument("deck.apkg", SourceDocument.Kind.DECK, "D", "deck.apkg", "sum", [item, with_alt], media=[
        ParsedMedia("a.png", image_bytes(), 11), ParsedMedia("b.png", image_bytes(), 12),
        ParsedMedia("c.png", image_bytes(), 13), ParsedMedia("d.png", image_bytes(), 14, alt=""),
    ])

    warnings = check_media([document], Problems())

    assert warnings == [
        f"deck.apkg:{line}: image '{name}' has no alt text (what it shows, for those who cannot see it); add one in the editor"
        for line, name in ((11, "a.png"), (12, "b.png"))
    ]


def test_rewriting_changes_only_the_references_of_the_document_s_own_files():
    mapping = {"a.png": "0123456789abcdef01234567.png", "a.png.png": "fedcba9876543210fedcba98.png"}
    text = "![x](media:a.png) ![y](media:a.png.png) media:a.pngx media:b.png <img src='media:a.png'>"

    assert rewrite_media_references(text, mapping) == (
        "![x](media:0123456789abcdef01234567.png) ![y](media:fedcba9876543210fedcba98.png) media:a.pngx "
        "media:b.png <img src='media:0123456789abcdef01234567.png'>"
    )


def test_saving_refuses_a_bad_image_that_parsing_let_through(author):
    document = quiz_document("![x](media:bad.png)", [ParsedMedia("bad.png", b"nope", 4)])

    with pytest.raises(ContentError, match="image 'bad.png'"):
        import_parsed([document], owner=author, now=timezone.now())

    assert not Question.objects.exists() and not MediaFile.objects.exists()


# --- Importing in the browser: a Moodle XML file with images ---------------------------------------

def moodle_question(name, image_name, data, line_text="Which shape?"):
    import base64

    return f"""  <question type="multichoice">
    <name><text>{name}</text></name>
    <questiontext format="html">
      <text><![CDATA[<p>{line_text} <img src="@@PLUGINFILE@@/{image_name}" alt="A shape"></p>]]></text>
      <file name="{image_name}" path="/" encoding="base64">{base64.b64encode(data).decode()}</file>
    </questiontext>
    <single>true</single>
    <answer fraction="100" format="html"><text>Square</text></answer>
    <answer fraction="0" format="html"><text>Circle</text></answer>
  </question>
"""


def moodle_file(*questions):
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n{"".join(questions)}</quiz>\n'.encode()


def test_a_moodle_file_s_bad_image_skips_its_question_and_the_rest_is_imported(author):
    from quiz.content.pending import apply_pending, preview_pending, stage_import

    data = moodle_file(
        moodle_question("Good", "square.png", image_bytes()),
        moodle_question("Bad", "answer.png", b"GIF89a then nothing", line_text="Which colour?"),
    )
    pending = stage_import(owner=author, files=[("shapes.xml", data)])
    staged = preview_pending(pending)

    assert [str(problem) for problem in staged.skipped.problems] == [
        # At the question's line, naming the file and what is wrong with it.
        "shapes.xml:13: image 'answer.png': it is not a PNG, JPEG, GIF or WebP image (told by its content, not its name)"
    ]
    apply_pending(pending, previewed=staged.fingerprint, skip_bad_items=True)

    media = MediaFile.objects.get()
    question = Question.objects.get()
    assert question.stem == f'<p>Which shape? <img src="media:{media.name}" alt="A shape"></p>'
    assert media.alt == "A shape" and media.question_set == question.question_set


def test_the_preview_of_an_unchanged_re_import_shows_its_images_unchanged(author):
    from quiz.content.preview import preview_documents

    def document():
        return quiz_document("![A square](media:a.png)", [ParsedMedia("a.png", image_bytes(), 5)])

    import_parsed([document()], owner=author)
    preview = preview_documents([document()], owner=author)[0]

    assert (preview.unchanged, preview.changed, preview.added) == (1, [], [])
    assert preview.document.items[0].stem == f"![A square](media:{MediaFile.objects.get().name})"


# --- Files no image names ---------------------------------------------------------------------------

def test_prune_media_deletes_the_files_a_rolled_back_import_left(author, settings, media_root):
    import os

    from django.core.management import call_command

    settings.MEDIA_ROOT = media_root / "prune"  # this test's own folder: it lists every file there
    kept = make_image(make_deck(owner=author))
    import_parsed([quiz_document("![x](media:a.png)", [ParsedMedia("a.png", image_bytes("GIF"), 3)])],
                  owner=author, dry_run=True)
    assert MediaFile.objects.count() == 1
    orphan = next(path for path in default_storage.listdir("content")[1] if f"content/{path}" != kept.file.name)
    hours_ago = time.time() - 2 * 60 * 60
    for path in (kept.file.name, f"content/{orphan}"):
        os.utime(default_storage.path(path), (hours_ago, hours_ago))
    young = default_storage.save("content/ffffffffffffffffffffffff.png", ContentFile(image_bytes()))  # a running import's

    out = io.StringIO()
    call_command("prune_media", "--dry-run", stdout=out)
    assert out.getvalue() == f"  content/{orphan}\nWould delete 1 unused image file(s).\n"
    assert default_storage.exists(f"content/{orphan}")

    call_command("prune_media", stdout=io.StringIO())
    assert not default_storage.exists(f"content/{orphan}")
    assert default_storage.exists(kept.file.name) and default_storage.exists(young)


# --- Copies of sets and decks -----------------------------------------------------------------------

def test_a_copy_of_a_set_has_its_own_images_and_outlives_the_original(author, django_capture_on_commit_callbacks):
    original = make_question_set(owner=author, questions=2)
    image, unused = make_image(original), make_image(original, color=(0, 0, 0))
    question = original.questions.get(position=1)
    Question.objects.filter(pk=question.pk).update(stem=f"![A square](media:{image.name})", markup=Markup.MARKDOWN)
    question.choices.filter(position=0).update(text=f"The one in media:{image.name}")

    response = logged_in(author).post(reverse("duplicate_set", args=[original.pk]))
    copy = author.owned_questionsets.exclude(pk=original.pk).get()
    original_bytes = stored(image)
    with django_capture_on_commit_callbacks(execute=True):
        original.delete()

    assert response.status_code == 302
    copied = MediaFile.objects.get()  # only the image its texts show
    assert copied.question_set == copy and copied.name != image.name and copied.alt == image.alt
    assert copy.questions.get(position=1).stem == f"![A square](media:{copied.name})"
    assert copy.questions.get(position=1).choices.get(position=0).text == f"The one in media:{copied.name}"
    assert stored(copied) == original_bytes and not default_storage.exists(image.file.name)
    assert not default_storage.exists(unused.file.name)


def test_a_copy_of_a_deck_has_its_own_images(author):
    original = make_deck(owner=author, cards=1)
    image = make_image(original, format="GIF")
    Card.objects.filter(deck=original).update(back=f"<img src='media:{image.name}' alt='x'>", markup=Markup.HTML)

    logged_in(author).post(reverse("duplicate_deck", args=[original.pk]))

    copied = MediaFile.objects.exclude(pk=image.pk).get()
    assert copied.deck.title.endswith("(copy)") and stored(copied) == stored(image)
    assert Card.objects.get(deck=copied.deck).back == f"<img src='media:{copied.name}' alt='x'>"


def test_the_preview_of_a_first_upload_shows_its_images_to_its_owner_only(client, author):
    """Nothing is saved before Apply, yet the preview shows the pictures the file carries, from
    staged copies cleaned as saving will store them; nobody else can load them, and applying
    drops them."""
    import re

    from quiz.content.pending import apply_pending, preview_pending

    upload = SimpleUploadedFile("shapes.xml", moodle_file(moodle_question("Good", "square.png", image_bytes())))
    client.force_login(author)
    response = client.post(reverse("import_content"), {"files": [upload]})
    assert not MediaFile.objects.exists()
    page = client.get(response.url).content.decode()

    sources = re.findall(r'<img src="(/media/[0-9a-f]{24}\.png)" alt="A shape"', page)
    assert len(sources) == 1, page
    image = client.get(sources[0])
    assert image.status_code == 200 and image["Content-Type"] == "image/png"
    assert Image.open(io.BytesIO(image.content)).size == Image.open(io.BytesIO(image_bytes())).size
    assert "private" in image["Cache-Control"]
    assert "square.png" not in sources[0]

    stranger = make_user("stranger")
    client.force_login(stranger)
    assert client.get(sources[0]).status_code == 404
    client.logout()
    assert client.get(sources[0]).status_code == 404

    from quiz.models import PendingImport

    pending = PendingImport.objects.get()
    apply_pending(pending, previewed=preview_pending(pending).fingerprint)
    client.force_login(author)
    assert client.get(sources[0]).status_code == 404  # the saved copy has a name of its own
    question = Question.objects.get()
    assert f"media:{MediaFile.objects.get().name}" in question.stem
    assert "square.png" not in question.stem
