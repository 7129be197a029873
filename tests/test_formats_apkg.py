"""Anki packages (.apkg, .colpkg): packages written by genanki and by Anki's own `anki` package, in
the legacy and the current collection formats, read as decks (keys, cloze cards, topics, images),
updated in place on re-import, their review history imported with consent, and bad packages
refused with a message, never an error page."""

import io
import re
import sqlite3
import zipfile
from datetime import UTC, datetime, timedelta

import genanki
import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from PIL import Image

from quiz.content import ContentError, apkg_format, apkg_history, parse_document
from quiz.content.apkg_format import parse_apkg, review_history
from quiz.content.apkg_history import (
    history_counts,
    import_history_step,
    import_review_history,
    reviews_in,
    start_history_imports,
)
from quiz.content.importing import import_parsed
from quiz.models import Card, Deck, HistoryImport, MemoryState, PendingImport, ReviewLog
from quiz.study import scheduling
from quiz.study.bulk import replay
from tests.factories import make_user

DAY = timedelta(days=1)


def png(colour="red"):
    out = io.BytesIO()
    Image.new("RGB", (4, 4), colour).save(out, "PNG")
    return out.getvalue()


# --- Packages written by genanki -------------------------------------------------------------------

VOCABULARY = genanki.Model(
    1607392319, "Vocabulary",
    fields=[{"name": "Word"}, {"name": "Meaning"}, {"name": "Example"}],
    templates=[{"name": "Card 1", "qfmt": "{{Word}}", "afmt": "{{FrontSide}}<hr id=answer>{{Meaning}}<br>{{Example}}"}],
)


def genanki_package(tmp_path, *, ssh_back="22", name="deck.apkg", extra_notes=()):
    deck = genanki.Deck(2059400110, "Networking")
    notes = [
        genanki.Note(genanki.BASIC_MODEL, ["Which port does <b>SSH</b> use?", ssh_back], tags=["ports", "ssh"],
                     guid="ssh-guid"),
        genanki.Note(genanki.BASIC_AND_REVERSED_CARD_MODEL, ["TCP", 'Transport <img src="tcp diagram.png">'],
                     guid="tcp-guid"),
        genanki.Note(genanki.CLOZE_MODEL, ["{{c1::443}} is the port of {{c2::HTTPS::a protocol}}", "Well known"],
                     tags=["ports", "leech"], guid="cloze-guid"),
        genanki.Note(genanki.BASIC_TYPE_IN_THE_ANSWER_MODEL, ["DNS port?", "53"], guid="typed-guid"),
        *extra_notes,
    ]
    for note in notes:
        deck.add_note(note)
    images = tmp_path / "tcp diagram.png"
    images.write_bytes(png())
    package = genanki.Package(deck, media_files=[str(images)])
    path = tmp_path / name
    package.write_to_file(str(path))
    return path.read_bytes()


def parsed(data, name="deck.apkg"):
    warnings = []
    documents, history = parse_apkg(name, data, warnings=warnings)
    return documents, history, warnings


def test_it_reads_basic_reversed_typed_and_cloze_notes_written_by_genanki(tmp_path):
    [deck], history, warnings = parsed(genanki_package(tmp_path))

    assert (deck.title, deck.kind, deck.file_name, deck.keys_are_identities) == ("Networking", "deck", None, True)
    cards = {card.key: card for card in deck.items}
    assert list(cards) == ["ssh-guid:0", "tcp-guid:0", "tcp-guid:1", "cloze-guid:0", "cloze-guid:1", "typed-guid:0"]
    ssh = cards["ssh-guid:0"]
    assert (ssh.front, ssh.back, ssh.markup, ssh.cloze, ssh.topics) == (
        "Which port does <b>SSH</b> use?", "22", "html", None, ["ports", "ssh"]
    )
    # The reversed card is the note swapped; the image is the deck's, referred to as media:.
    assert cards["tcp-guid:0"].back == cards["tcp-guid:1"].front == 'Transport <img src="media:tcp%20diagram.png">'
    assert cards["tcp-guid:1"].back == "TCP"
    # One card per cloze number, each with the whole text and the Extra; Anki's own tags are not topics.
    first, second = cards["cloze-guid:0"], cards["cloze-guid:1"]
    assert (first.cloze, second.cloze) == (1, 2)
    assert first.front == second.front == "{{c1::443}} is the port of {{c2::HTTPS::a protocol}}"
    assert (first.back, first.topics) == ("Well known", ["ports"])
    assert (cards["typed-guid:0"].front, cards["typed-guid:0"].back) == ("DNS port?", "53")
    assert [card.line for card in deck.items] == [1, 2, 3, 4, 5, 6]
    [image] = deck.media
    assert (image.file_name, image.data, image.line) == ("tcp diagram.png", png(), 2)
    assert history == {}  # genanki writes no reviews
    assert not [warning for warning in warnings if "note" in warning]


def test_other_note_types_and_sounds_are_imported_with_a_warning(tmp_path):
    extra = [
        genanki.Note(VOCABULARY, ["chien", "dog", "Le chien dort."], guid="vocab-guid"),
        genanki.Note(genanki.BASIC_MODEL, ["Say it [sound:hello.mp3]", "hello"], guid="sound-guid"),
    ]
    [deck], _, warnings = parsed(genanki_package(tmp_path, extra_notes=extra))

    cards = {card.key: card for card in deck.items}
    assert (cards["vocab-guid:0"].front, cards["vocab-guid:0"].back) == ("chien", "dog")
    assert cards["sound-guid:0"].front == "Say it "
    vocabulary = next(note for note in warnings if "'Vocabulary'" in note)
    assert re.match(r"deck\.apkg: note \d+: note type 'Vocabulary' is not a Basic or Cloze type", vocabulary)
    assert any(re.match(r"deck\.apkg: note \d+: sounds \(\[sound:\.\.\.\]\) were removed", note) for note in warnings)


def test_a_package_is_recognised_by_its_content_whatever_its_name(tmp_path):
    data = genanki_package(tmp_path)

    documents, _ = parse_document(data, "Networking deck.zip")
    named, _ = parse_document(data, "anything", "apkg")

    assert [card.key for card in documents[0].items] == [card.key for card in named[0].items]


# --- Packages written by Anki itself --------------------------------------------------------------

@pytest.fixture(scope="module")
def anki_packages(tmp_path_factory):
    """{"apkg": bytes, "legacy apkg": ..., "colpkg": ..., "legacy colpkg": ...} of one collection,
    and the guids of its notes: a Basic, a reversed and a cloze note in Networking::Ports, a Basic
    and an Image Occlusion one in Default; every card answered, and an older history of the Basic card."""
    from anki.collection import Collection, ExportAnkiPackageOptions

    folder = tmp_path_factory.mktemp("anki")
    path = str(folder / "collection.anki2")
    collection = Collection(path)
    models = collection.models
    ports = collection.decks.id("Networking::Ports")
    collection.media.write_data("ssh.png", png("blue"))
    notes = {}
    for name, notetype, fields, deck in [
        ("basic", "Basic", ["Which port does SSH use?", '22 <img src="ssh.png">'], ports),
        ("reversed", "Basic (and reversed card)", ["chien", "dog"], ports),
        ("cloze", "Cloze", ["{{c1::Paris}} is the capital of {{c2::France::a country}}", "Europe"], ports),
        ("default", "Basic", ["Loose card", "in Default"], 1),
        ("occlusion", "Image Occlusion",
         ["{{c1::image-occlusion:rect:left=.1:top=.1:width=.3:height=.2:oi=1}}", '<img src="ssh.png">'], 1),
    ]:
        note = collection.new_note(models.by_name(notetype))
        for index, value in enumerate(fields):
            note.fields[index] = value
        note.tags = ["networking"]
        collection.add_note(note, deck)
        notes[name] = note
    basic_card = notes["basic"].cards()[0].id
    now_ms = int(timezone.now().timestamp() * 1000)
    older = [  # (days ago, ease, type, factor): learn, review, lapse, relearn, then entries without a rating
        (30, 3, 0, 0), (26, 3, 1, 2500), (12, 1, 1, 2500), (11.9, 3, 2, 2300),
        (11, 0, 4, 0),  # manual: Set Due Date
        (10, 3, 3, 0),  # cramming in a filtered deck that did not reschedule
        (9, 3, 3, 2300),  # a filtered deck that did reschedule
    ]
    for days, ease, kind, factor in older:
        collection.db.execute(
            "insert into revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) values (?, ?, 0, ?, 1, 1, ?, ?, ?)",
            now_ms - int(days * 86_400_000), basic_card, ease, factor, 8000, kind,
        )
    for deck in (ports, 1):
        collection.decks.select(deck)
        while (card := collection.sched.getCard()) is not None and card.reps == 0:
            card.start_timer()
            collection.sched.answerCard(card, 3)
    packages = {}
    for name, legacy in (("apkg", False), ("legacy apkg", True)):
        out = str(folder / f"{name}.apkg")
        options = ExportAnkiPackageOptions(with_scheduling=True, with_media=True, with_deck_configs=False, legacy=legacy)
        collection.export_anki_package(out_path=out, options=options, limit=None)
        packages[name] = open(out, "rb").read()
    for name, legacy in (("colpkg", False), ("legacy colpkg", True)):
        out = str(folder / f"{name}.colpkg")
        collection.export_collection_package(out, include_media=True, legacy=legacy)
        packages[name] = open(out, "rb").read()
        collection = Collection(path)
    collection.close()
    return packages, {name: note.guid for name, note in notes.items()}


@pytest.mark.parametrize("kind", ["apkg", "legacy apkg", "colpkg", "legacy colpkg"])
def test_packages_anki_writes_in_every_format_read_the_same(anki_packages, kind):
    packages, guids = anki_packages
    names = {"apkg": "collection.anki21b", "legacy apkg": "collection.anki21", "colpkg": "collection.anki21b",
             "legacy colpkg": "collection.anki21"}
    assert names[kind] in zipfile.ZipFile(io.BytesIO(packages[kind])).namelist()

    documents, history, warnings = parsed(packages[kind], f"mine.{kind.split()[-1]}")

    default, ports = documents
    assert (default.title, ports.title) == ("Default", "Networking::Ports")  # a subdeck is a deck of its own
    basic, reversed_, cloze = guids["basic"], guids["reversed"], guids["cloze"]
    assert [card.key for card in ports.items] == [
        f"{basic}:0", f"{reversed_}:0", f"{reversed_}:1", f"{cloze}:0", f"{cloze}:1"
    ]
    cards = {card.key: card for card in ports.items}
    assert cards[f"{basic}:0"].back == '22 <img src="media:ssh.png">'
    assert [m.file_name for m in ports.media] == ["ssh.png"] and not default.media
    assert (cards[f"{reversed_}:1"].front, cards[f"{reversed_}:1"].back) == ("dog", "chien")
    assert (cards[f"{cloze}:1"].cloze, cards[f"{cloze}:1"].back) == (2, "Europe")
    assert all(card.topics == ["networking"] for card in ports.items)
    assert [card.key for card in default.items] == [f"{guids['default']}:0"]
    [occlusion] = [warning for warning in warnings if "note" in warning]
    assert re.fullmatch(r"mine\.\w+: note \d+: Image Occlusion notes \(note type 'Image Occlusion'\) were skipped: "
                        r"their cards cannot be studied here", occlusion)

    # Each card answered once now; the Basic card also has its older history, without the
    # entries that carry no rating (a manual change, cramming that did not reschedule).
    assert set(history) == {card.key for document in documents for card in document.items}
    older = history[f"{basic}:0"]
    assert [(rating, duration) for _, rating, duration in older[:5]] == [(3, 8000), (3, 8000), (1, 8000), (3, 8000),
                                                                         (3, 8000)]
    assert len(older) == 6 and older == sorted(older)
    assert all(moment.tzinfo is UTC for moment, _, _ in older)
    assert timezone.now() - older[0][0] == pytest.approx(30 * DAY, abs=timedelta(minutes=5))
    assert all(len(reviews) == 1 and reviews[0][1] == 3 for key, reviews in history.items() if key != f"{basic}:0")


# --- Saving, re-importing, the review history -----------------------------------------------------------

def save(data, owner, name="deck.apkg", now=None):
    documents, history, warnings = parsed(data, name)
    import_parsed(documents, owner=owner, now=now)
    return documents, history


def test_reimporting_an_updated_package_updates_each_card_in_place_and_keeps_its_history(tmp_path, learner):
    save(genanki_package(tmp_path, name="v1.apkg"), learner)
    deck = Deck.objects.get(owner=learner)
    rows = dict(Card.objects.filter(deck=deck).values_list("key", "pk"))
    ssh = Card.objects.get(deck=deck, key="ssh-guid:0")
    scheduling.rate(user=learner, kind=MemoryState.Kind.CARD, item=ssh, rating=3, source=ReviewLog.Source.STUDY)

    save(genanki_package(tmp_path, ssh_back="22 (TCP)", name="v2.apkg"), learner)

    assert Deck.objects.get(owner=learner).pk == deck.pk
    assert dict(Card.objects.filter(deck=deck).values_list("key", "pk")) == rows
    ssh.refresh_from_db()
    assert (ssh.back, ssh.markup) == ("22 (TCP)", "html")
    assert ReviewLog.objects.filter(memory__card=ssh, user=learner).count() == 1


def test_the_import_command_reads_a_package(tmp_path, db):
    path = tmp_path / "networking.apkg"
    path.write_bytes(genanki_package(tmp_path))
    out = io.StringIO()

    call_command("import_questions", str(path), "--format", "apkg", stdout=out)

    deck = Deck.objects.get(owner=None)
    assert (deck.title, deck.cards.count()) == ("Networking", 6)
    assert 'deck "Networking": 6 cards (6 new, 0 updated)' in out.getvalue()


def import_package_reviews(user, files, documents):
    """The whole history of `files`' packages, written step by step as the progress page does."""
    jobs = start_history_imports(user, files, documents)
    for job in jobs:
        while (step := import_history_step(job.pk)) is not None and step.finished_at is None:
            pass
    return history_counts(HistoryImport.objects.filter(pk__in=[job.pk for job in jobs]))


def expected_memory(user, card, logs):
    memory = MemoryState(user=user, kind=MemoryState.Kind.CARD, card=card, due=timezone.now())
    fresh = [ReviewLog(user=user, rating=log.rating, reviewed_at=log.reviewed_at, source=log.source) for log in logs]
    replay(memory, fresh, scheduling.scheduler_for(user))
    return memory


def test_the_review_history_becomes_the_learners_log_and_schedule(anki_packages, learner, other_learner):
    packages, guids = anki_packages
    documents, history = save(packages["apkg"], learner)
    save(packages["apkg"], other_learner)
    # The learner has already studied one card here: the imported reviews come before it.
    ports = Deck.objects.get(owner=learner, title="Networking::Ports")
    basic = Card.objects.get(deck=ports, key=f"{guids['basic']}:0")
    scheduling.rate(user=learner, kind=MemoryState.Kind.CARD, item=basic, rating=4, source=ReviewLog.Source.STUDY)

    counts = import_package_reviews(learner, [("deck.apkg", packages["apkg"])], documents)

    total = sum(len(reviews) for reviews in history.values())
    assert (counts.cards, counts.added, counts.already, counts.later) == (len(history), total, 0, 0)
    imported = ReviewLog.objects.filter(user=learner, source=ReviewLog.Source.IMPORT)
    assert imported.count() == total
    assert not ReviewLog.objects.filter(user=other_learner).exists()
    now = timezone.now()
    for memory in MemoryState.objects.filter(user=learner):
        logs = list(ReviewLog.objects.filter(memory=memory).order_by("reviewed_at", "pk"))
        expected = expected_memory(learner, memory.card, logs)
        assert (memory.due, memory.reps, memory.lapses, memory.phase) == (
            expected.due, expected.reps, expected.lapses, expected.phase
        )
        assert (memory.stability, memory.difficulty) == pytest.approx((expected.stability, expected.difficulty))
        assert memory.due > now  # every card was answered a moment ago
    basic_logs = list(ReviewLog.objects.filter(memory__card=basic).order_by("reviewed_at"))
    assert [log.source for log in basic_logs] == [ReviewLog.Source.IMPORT] * 6 + [ReviewLog.Source.STUDY]
    assert basic_logs[0].was_new and not basic_logs[-1].was_new  # replayed from the first Anki review on
    assert MemoryState.objects.get(card=basic).lapses == 1

    again = import_package_reviews(learner, [("deck.apkg", packages["apkg"])], documents)

    assert (again.added, again.already) == (0, total)
    assert imported.count() == total


def test_only_the_decks_own_cards_and_past_reviews_are_imported(anki_packages, learner):
    packages, guids = anki_packages
    _, history = save(packages["colpkg"], learner)
    default = Deck.objects.get(owner=learner, title="Default")
    key = f"{guids['default']}:0"
    future = {key: [(timezone.now() + DAY, 3, None)], "no-such-card:0": [(timezone.now() - DAY, 3, None)]}

    assert vars(import_review_history(learner, default, future)) == {"cards": 1, "added": 0, "already": 0, "later": 1}
    counts = import_review_history(learner, default, history)

    assert (counts.cards, counts.added) == (1, 1)
    assert ReviewLog.objects.filter(user=learner).count() == 1


def test_the_preview_can_say_how_many_reviews_a_package_holds(anki_packages, tmp_path):
    packages, _ = anki_packages
    files = [("mine.apkg", packages["apkg"]), ("notes.txt", b"Front\n\nBack\n"), ("new.apkg", genanki_package(tmp_path))]

    assert reviews_in(files) == {"mine.apkg": 11}  # the Basic card's 6, and one for each other card


# --- Bad packages -----------------------------------------------------------------------------------------

def zipped(members):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def refusal(data, name="bad.apkg", format=None):
    with pytest.raises(ContentError) as refused:
        parse_document(data, name, format)
    return str(refused.value)


def test_what_is_not_an_anki_package_is_refused_with_a_message(tmp_path):
    good = genanki_package(tmp_path)

    assert refusal(good[: len(good) // 2]).startswith("bad.apkg: the package is not a readable zip file")
    assert refusal(zipped({"notes.txt": b"hello"})) == (
        "bad.apkg: a zip file, but not an Anki package: it has no collection.anki2, collection.anki21 or "
        "collection.anki21b"
    )
    assert refusal(b"Front\n\nBack\n", format="apkg").startswith("bad.apkg: the package is not a readable zip file")
    assert refusal(zipped({"collection.anki2": b"not a database"})).startswith(
        "bad.apkg: Anki could not read this package"
    )


def test_a_zip_bomb_is_refused_before_anything_unpacks_it():
    bomb = zipped({"collection.anki2": b"\0" * 300_000_000})

    assert len(bomb) < 1_000_000
    assert refusal(bomb) == "bad.apkg: the package unpacks to more than 200 MB"


def test_a_member_larger_than_it_says_is_refused():
    honest = zipped({"collection.anki2": b"\0" * 10_000, "media": b"{}"})
    # The central directory says 100 bytes: reading it would stop short and fail its CRC.
    lying = honest.replace((10_000).to_bytes(4, "little"), (100).to_bytes(4, "little"))

    assert lying != honest
    assert refusal(lying).startswith("bad.apkg: the package is not a readable zip file")


def test_a_collection_that_unpacks_past_the_limit_stops_the_reader(anki_packages, monkeypatch):
    packages, _ = anki_packages
    data = packages["legacy colpkg"][:-1] + packages["legacy colpkg"][-1:]  # a new bytes object: not the cached read
    declared = sum(member.file_size for member in zipfile.ZipFile(io.BytesIO(data)).infolist())
    monkeypatch.setattr(apkg_format, "MAX_UNPACKED_BYTES", declared + 1)
    apkg_format.read_package.cache_clear()

    assert refusal(data) == f"bad.apkg: the package unpacks to more than {(declared + 1) // 1_000_000} MB"


def test_a_file_past_the_limit_ends_the_reader_even_when_the_watcher_does_not_look_in_time(anki_packages, monkeypatch):
    # On a busy machine the child's write crossed the limit between two looks of the watcher, and
    # Anki reported the failed write as an I/O error of its own instead of the limit.
    packages, _ = anki_packages
    data = packages["legacy colpkg"][:-1] + packages["legacy colpkg"][-1:]
    declared = sum(member.file_size for member in zipfile.ZipFile(io.BytesIO(data)).infolist())
    monkeypatch.setattr(apkg_format, "MAX_UNPACKED_BYTES", declared + 1)
    monkeypatch.setattr(apkg_format, "_finished", lambda child: child.wait() is not None or True)  # never looks
    apkg_format.read_package.cache_clear()

    assert refusal(data) == f"bad.apkg: the package unpacks to more than {(declared + 1) // 1_000_000} MB"


def test_a_note_with_a_tag_too_long_is_named(tmp_path):
    long_tag = genanki.Note(genanki.BASIC_MODEL, ["Front", "Back"], tags=["t" * 101], guid="long-tag")
    message = refusal(genanki_package(tmp_path, extra_notes=[long_tag]))

    assert re.fullmatch(r"bad\.apkg: note \d+: the tag 'tttt.*' is longer than 100 characters", message)


def test_odd_values_in_a_collection_are_read_or_left_out_never_an_error(tmp_path):
    [package] = [genanki_package(tmp_path)]
    members = {member.filename: zipfile.ZipFile(io.BytesIO(package)).read(member) for member in
               zipfile.ZipFile(io.BytesIO(package)).infolist()}
    collection = tmp_path / "collection.anki2"
    collection.write_bytes(members["collection.anki2"])
    with sqlite3.connect(collection) as db:
        card, note = db.execute("select id, nid from cards order by id limit 1").fetchone()
        db.executemany("insert into revlog values (?, ?, 0, ?, 1, 1, 2500, ?, 1)", [
            (1_700_000_000_000, card, 3, "not a number"),  # a duration that is text: no duration
            (1_700_000_000_001, card, 7, 100),  # no such button
            (9_999_999_999_999_999, card, 3, 100),  # a time no calendar has
        ])
        columns = "mod, usn, type, queue, due, ivl, factor, reps, lapses, left, odue, odid, flags, data"
        db.execute(f"insert into cards select id + 1000, nid, did, 9, {columns} from cards where id = ?", (card,))
    members["collection.anki2"] = collection.read_bytes()

    [deck], history, warnings = parsed(zipped(members))

    assert len(deck.items) == 6
    assert f"deck.apkg: note {note}: empty cards (an empty front, or a cloze number the text no longer has) were " \
           "skipped" in warnings  # the card of a template the note type does not have
    assert all(1 <= rating <= 4 and moment.year < 2100 for reviews in history.values() for moment, rating, _ in reviews)


def test_the_import_page_previews_a_package_and_refuses_a_broken_one(db, client, anki_packages):
    user = make_user("ann")
    client.force_login(user)
    packages, _ = anki_packages
    broken = io.BytesIO(packages["apkg"][:5000])
    broken.name = "broken.apkg"

    refused = client.post(reverse("import_content"), {"files": [broken]})

    assert refused.status_code == 422
    assert "broken.apkg: the package is not a readable zip file" in refused.content.decode()
    upload = io.BytesIO(packages["apkg"])
    upload.name = "mine.apkg"
    response = client.post(reverse("import_content"), {"files": [upload]})
    assert response.status_code == 302
    preview = client.get(response.url).content.decode()
    assert "Networking::Ports" in preview and "Which port does SSH use?" in preview
    assert PendingImport.objects.filter(owner=user).count() == 1 and not Deck.objects.exists()


def test_review_times_are_read_as_utc_instants():
    assert datetime.fromtimestamp(0, UTC) == datetime(1970, 1, 1, tzinfo=UTC)


def apply_preview(client, preview_url, **choices):
    page = client.get(preview_url).content.decode()
    fingerprint = re.search(r'name="previewed" value="([^"]*)"', page).group(1)
    return page, client.post(preview_url, {"previewed": fingerprint, **choices}, follow=True)


@pytest.mark.parametrize("consent", [True, False])
def test_the_preview_asks_before_bringing_the_anki_history_and_apply_honours_the_answer(db, anki_packages, consent):
    user = make_user("ann")
    client = Client()
    client.force_login(user)
    packages, _ = anki_packages
    upload = io.BytesIO(packages["apkg"])
    upload.name = "mine.apkg"
    preview_url = client.post(reverse("import_content"), {"files": [upload]}).url
    total = sum(len(reviews) for reviews in review_history("mine.apkg", packages["apkg"]).values())

    page, applied = apply_preview(client, preview_url, **({"with_reviews": "yes"} if consent else {}))

    assert f"Also import my {total} reviews from Anki" in page
    assert 'name="with_reviews"' in page and "checked" not in page.split('name="with_reviews"')[1][:40]
    assert Deck.objects.filter(owner=user).exists()
    if consent:
        assert ReviewLog.objects.filter(user=user, source=ReviewLog.Source.IMPORT).count() > 0
        assert f"Imported {ReviewLog.objects.filter(user=user).count()} review" in applied.content.decode()
    else:
        assert not ReviewLog.objects.filter(user=user).exists() and not MemoryState.objects.filter(user=user).exists()


def test_a_long_history_is_written_in_steps_with_its_progress_shown_and_ends_as_one_import_would(
        db, anki_packages, monkeypatch):
    """A history of years would hold the apply request for minutes: it is written a few thousand
    reviews at a time (here two), the apply writing the first step, the progress page the next
    ones (HTMX by itself, or a button), whole cards each time."""
    monkeypatch.setattr(apkg_history, "STEP_REVIEWS", 2)
    packages, guids = anki_packages
    ann, bob = make_user("ann"), make_user("bob")
    client = Client()
    client.force_login(ann)
    upload = io.BytesIO(packages["apkg"])
    upload.name = "mine.apkg"
    preview_url = client.post(reverse("import_content"), {"files": [upload]}).url

    _, applied = apply_preview(client, preview_url, with_reviews="yes")

    assert applied.redirect_chain[-1][0] == reverse("import_history")
    # One per deck: Networking::Ports (the Basic card's 6 reviews, one for each card of the reversed and
    # the cloze notes) and Default (one).
    ports, default = HistoryImport.objects.filter(owner=ann).order_by("total").reverse()
    assert [(ports.total, ports.cards), (default.total, default.cards)] == [(10, 5), (1, 1)]
    assert default.finished_at and not ports.finished_at
    logs = ReviewLog.objects.filter(user=ann, source=ReviewLog.Source.IMPORT)
    assert 0 < ports.done <= 6 and logs.count() == ports.done + 1
    page = applied.content.decode()
    assert f"{ports.done} of 10 reviews written" in page and 'hx-trigger="load' in page
    assert "Done: 1 review imported" in page
    assert 'data-testid="history-writing"' in client.get(reverse("import_content")).content.decode()
    assert bob.pk not in set(HistoryImport.objects.values_list("owner", flat=True))

    client.force_login(bob)  # another learner's steps never write ann's history
    assert "No Anki history is being imported" in client.post(reverse("import_history"), follow=True).content.decode()
    assert logs.count() == ports.done + 1
    client.force_login(ann)
    before = logs.count()
    assert client.post(reverse("import_history")).status_code == 302  # without JavaScript: a button
    assert logs.count() > before
    while 'hx-trigger="load' in (step := client.post(reverse("import_history"), headers={"HX-Request": "true"})
                                 ).content.decode():
        assert not step.content.decode().lstrip().startswith("<!DOCTYPE")  # the progress alone
    assert "Done: 10 reviews imported" in step.content.decode()
    assert logs.count() == 11
    assert 'data-testid="history-writing"' not in client.get(reverse("import_content")).content.decode()

    # The same memories as writing it all at once (bob, the same package).
    documents, _ = save(packages["apkg"], bob)
    import_review_history(bob, Deck.objects.get(owner=bob, title="Networking::Ports"),
                          review_history("mine.apkg", packages["apkg"]))

    def memories(user):
        return sorted((memory.card.key, memory.reps, memory.lapses, memory.due, round(memory.stability, 6))
                      for memory in MemoryState.objects.filter(user=user, card__deck__title="Networking::Ports"))

    assert memories(ann) == memories(bob) and memories(ann)


def test_the_catch_up_timer_finishes_a_history_its_learner_left(anki_packages, learner, monkeypatch):
    monkeypatch.setattr(apkg_history, "STEP_REVIEWS", 3)
    packages, _ = anki_packages
    documents, _ = save(packages["apkg"], learner)
    start_history_imports(learner, [("deck.apkg", packages["apkg"])], documents)
    out = io.StringIO()

    call_command("catch_up", stdout=out)

    assert "Finished writing 2 imported Anki review history(ies)." in out.getvalue()  # two decks
    assert not HistoryImport.objects.filter(finished_at=None).exists()
    assert ReviewLog.objects.filter(user=learner).count() == 11
    call_command("catch_up", stdout=(again := io.StringIO()))
    assert "Anki" not in again.getvalue() and ReviewLog.objects.filter(user=learner).count() == 11


# --- Packages larger than a text file --------------------------------------------------------------

def noise_png(seed):
    """A PNG that does not compress (about 4 MB), as a photo in a shared deck."""
    import random

    pixels = random.Random(seed).randbytes(1150 * 1150 * 3)
    out = io.BytesIO()
    Image.frombytes("RGB", (1150, 1150), pixels).save(out, "PNG")
    return out.getvalue()


def package_with_photos(tmp_path):
    deck = genanki.Deck(2059400111, "Photos")
    paths = []
    for seed in (1, 2):
        path = tmp_path / f"photo{seed}.png"
        path.write_bytes(noise_png(seed))
        paths.append(str(path))
        deck.add_note(genanki.Note(genanki.BASIC_MODEL, [f'Which rack? <img src="photo{seed}.png">', f"Rack {seed}"],
                                   guid=f"photo-{seed}"))
    package = tmp_path / "photos.apkg"
    genanki.Package(deck, media_files=paths).write_to_file(str(package))
    return package.read_bytes()


def test_a_package_with_photos_larger_than_a_text_file_may_be_imported(tmp_path, learner):
    from django.core.files.uploadedfile import SimpleUploadedFile

    data = package_with_photos(tmp_path)
    assert len(data) > 5_000_000  # more than any text format may be
    client = Client()
    client.force_login(learner)

    response = client.post(reverse("import_content"), {"files": [SimpleUploadedFile("photos.apkg", data)]})
    assert response.status_code == 302, response.content.decode()[:2000]
    page = client.get(response.url).content.decode()
    assert len(re.findall(r'<img src="/media/[0-9a-f]{24}\.png"', page)) == 2  # shown before Apply

    text = SimpleUploadedFile("big.txt", b"Q: " + b"x" * 5_000_001)
    refused = client.post(reverse("import_content"), {"files": [text]}).content.decode()
    assert "big.txt: file is larger than 5 MB, the most a file may be." in refused


def test_a_package_past_the_site_s_limit_is_refused_with_a_message(tmp_path, learner, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    settings.MAX_PACKAGE_BYTES = 6_000_000
    data = package_with_photos(tmp_path)
    client = Client()
    client.force_login(learner)

    response = client.post(reverse("import_content"), {"files": [SimpleUploadedFile("photos.apkg", data)]})

    assert response.status_code == 200
    assert "photos.apkg: file is larger than 6 MB, the most an Anki package may be." in response.content.decode()
    assert not PendingImport.objects.exists()
    with pytest.raises(ContentError, match="larger than 6 MB, the most an Anki package may be"):
        parse_document(data, "photos.apkg")


def test_a_text_file_that_begins_as_a_zip_is_text_with_the_text_limit_and_its_preview_works(learner):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client = Client()
    client.force_login(learner)
    small = SimpleUploadedFile("notes.txt", b"PK\x03\x04front\tback\n")
    response = client.post(reverse("import_content"), {"files": [small], "format": "anki"})
    if response.status_code == 302:  # read as Anki text: its preview never fails on the zip's bytes
        assert client.get(response.url).status_code == 200
    else:
        assert response.status_code == 422

    large = SimpleUploadedFile("notes.txt", b"PK\x03\x04" + b"front\tback\n" * 600_000)
    refused = client.post(reverse("import_content"), {"files": [large], "format": "anki"}).content.decode()
    assert "notes.txt: file is larger than 5 MB, the most a file may be." in refused
    with pytest.raises(ContentError, match="larger than 5 MB"):
        parse_document(b"PK\x03\x04" + b"front\tback\n" * 600_000, "notes.txt", "anki")


def test_the_apply_writes_one_steps_worth_however_many_decks_the_package_has(anki_packages, learner, monkeypatch):
    monkeypatch.setattr(apkg_history, "STEP_REVIEWS", 2)
    packages, _ = anki_packages
    client = Client()
    client.force_login(learner)
    upload = io.BytesIO(packages["apkg"])
    upload.name = "mine.apkg"

    apply_preview(client, client.post(reverse("import_content"), {"files": [upload]}).url, with_reviews="yes")

    written = ReviewLog.objects.filter(user=learner).count()
    jobs = HistoryImport.objects.filter(owner=learner)
    # The first card of a step is written whole (the Basic card has 6): at most one card past the budget.
    assert 0 < written <= 2 + 6 and written < 11 and sum(job.done for job in jobs) == written
