"""Pages travel gzipped: a signed-in home with a few weeks of study behind it stays well under
40 KB on the wire, and the CSV downloads still stream (compressed chunk by chunk). A page that
reaches the browser in the connection's first packets either way (under 8 KB) goes out as it is."""

import csv
import gzip
import io

from django.http import HttpResponse
from django.urls import reverse

from quiz.middleware import COMPRESSED_FROM_BYTES, GZipMiddleware
from tests.factories import make_deck, make_question_set, start_attempt
from tests.helpers import logged_in, question_url
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


def test_a_question_page_goes_out_as_it_is_even_to_a_client_that_asks_for_gzip(learner, learner_client):
    attempt = start_attempt(learner, make_question_set(questions=2))

    response = learner_client.get(question_url(attempt, 1), **GZIP)

    assert response.status_code == 200
    assert not response.has_header("Content-Encoding")
    assert b'name="choice"' in response.content
    assert len(response.content) < COMPRESSED_FROM_BYTES
    # The same page is sent whatever the client accepts: nothing for a cache to tell apart.
    assert "Accept-Encoding" not in response.get("Vary", "")


def test_a_page_of_8_kb_or_more_is_compressed(learner, learner_client):
    question_set = make_question_set(questions=2)
    question_set.questions.update(stem="Which protocol routes between autonomous systems? " * (COMPRESSED_FROM_BYTES // 50))
    attempt = start_attempt(learner, question_set)

    response = learner_client.get(question_url(attempt, 1), **GZIP)

    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert len(gzip.decompress(response.content)) >= COMPRESSED_FROM_BYTES > len(response.content)


def test_the_floor_is_8_kb_exactly(rf):
    middleware = GZipMiddleware(lambda request: None)
    request = rf.get("/", HTTP_ACCEPT_ENCODING="gzip")

    below = middleware.process_response(request, HttpResponse(b"x" * (COMPRESSED_FROM_BYTES - 1)))
    at = middleware.process_response(request, HttpResponse(b"x" * COMPRESSED_FROM_BYTES))

    assert not below.has_header("Content-Encoding") and len(below.content) == COMPRESSED_FROM_BYTES - 1
    assert at["Content-Encoding"] == "gzip" and gzip.decompress(at.content) == b"x" * COMPRESSED_FROM_BYTES
