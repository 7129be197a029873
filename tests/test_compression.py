"""Pages travel gzipped (Django's GZipMiddleware): a signed-in home with a few weeks of study
behind it stays well under 40 KB on the wire, and the CSV downloads still stream (compressed
chunk by chunk)."""

import csv
import gzip
import io

from django.urls import reverse

from tests.factories import make_deck, make_question_set
from tests.helpers import logged_in
from tests.page_tour import build_world

GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}


def test_the_signed_in_home_travels_gzipped_under_40_kb(db):
    world = build_world()
    # A library as shared content grows: more sets and decks than the home lists on one page.
    for number in range(30):
        make_question_set(f"Practice exam {number}: routing, switching and wireless LANs", questions=1)
        make_deck(f"Deck {number}: acronyms every network engineer meets", cards=1)

    response = logged_in(world["learner"]).get(reverse("home"), **GZIP)

    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in response["Vary"]
    html = gzip.decompress(response.content).decode()
    assert "<h1" in html and "lena" in html
    assert len(response.content) < 40_000, f"{len(response.content)} bytes gzipped ({len(html)} as HTML)"


def test_a_client_that_does_not_ask_for_gzip_gets_plain_html(learner_client):
    response = learner_client.get(reverse("home"))

    assert response.status_code == 200
    assert not response.has_header("Content-Encoding")
    assert b"<h1" in response.content


def test_the_history_download_still_streams_gzipped(db):
    world = build_world()

    response = logged_in(world["learner"]).get(reverse("download_history"), **GZIP)

    assert response.status_code == 200
    assert response.streaming, "compressed chunk by chunk, never built whole in memory"
    assert response["Content-Encoding"] == "gzip"
    rows = list(csv.reader(io.StringIO(gzip.decompress(b"".join(response.streaming_content)).decode())))
    assert len(rows) > 10  # a header, the answers and the reviews
