"""Images in an S3-compatible object store (django-storages), against moto's S3 server on
127.0.0.1: stored as private objects, shown through short-lived signed URLs, deleted with their
set or deck."""

import time
import urllib.error
import urllib.request
from urllib.parse import parse_qs, urlsplit

import boto3
import pytest
from django.core.files.storage import default_storage, storages
from django.urls import reverse
from storages.backends.s3 import S3Storage

from quiz.content.media import save_image
from quiz.models import MediaFile
from tests.factories import make_deck, make_question_set, make_user
from tests.helpers import logged_in
from tests.images import image_bytes

pytestmark = pytest.mark.django_db

BUCKET = "study-images"
CREDENTIALS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing", "region_name": "us-east-1"}


@pytest.fixture(scope="module")
def s3_endpoint():
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    boto3.client("s3", endpoint_url=endpoint, **CREDENTIALS).create_bucket(Bucket=BUCKET)
    yield endpoint
    server.stop()


@pytest.fixture
def s3(settings, s3_endpoint):
    """The default storage switched to the bucket, as settings.py configures it; a boto3 client of it."""
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {
                "bucket_name": BUCKET, "endpoint_url": s3_endpoint, "region_name": "us-east-1",
                "access_key": "testing", "secret_key": "testing", "querystring_auth": True, "querystring_expire": 60,
                "default_acl": "private", "file_overwrite": False,
                "object_parameters": {"ContentDisposition": "inline", "CacheControl": "private, max-age=60"},
            },
        },
    }
    return boto3.client("s3", endpoint_url=s3_endpoint, **CREDENTIALS)


def fetch(url):
    """(status, body, headers) of a plain GET, as a browser without credentials makes it."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read(), response.headers
    except urllib.error.HTTPError as error:
        return error.code, error.read(), error.headers


def test_the_default_storage_switches_to_the_bucket(s3):
    assert isinstance(storages["default"], S3Storage)
    assert isinstance(default_storage, S3Storage)  # the lazy default, set up anew after the change
    assert isinstance(MediaFile._meta.get_field("file").storage, S3Storage)


def test_an_image_is_a_private_object_of_the_bucket(s3, s3_endpoint):
    media = save_image(make_question_set(owner=make_user()), image_bytes(), "A red square")

    head = s3.head_object(Bucket=BUCKET, Key=f"content/{media.name}")
    assert head["ContentType"] == "image/png" and head["ContentLength"] == media.size
    grants = s3.get_object_acl(Bucket=BUCKET, Key=f"content/{media.name}")["Grants"]
    assert all(grant["Grantee"].get("URI") is None for grant in grants)  # no AllUsers, no AuthenticatedUsers
    # Its plain URL is refused: only a signed one opens it.
    assert fetch(f"{s3_endpoint}/{BUCKET}/content/{media.name}")[0] == 403


def test_the_view_redirects_whoever_may_see_it_to_a_url_signed_for_a_minute(s3, s3_endpoint):
    owner = make_user("alice")
    media = save_image(make_question_set(owner=owner), image_bytes("JPEG"), "A photo")

    response = logged_in(owner).get(reverse("media_file", args=[media.name]))

    assert response.status_code == 302 and "no-store" in response["Cache-Control"]
    url = response["Location"]
    assert url.startswith(f"{s3_endpoint}/{BUCKET}/content/{media.name}?")
    query = parse_qs(urlsplit(url).query)
    if "X-Amz-Expires" in query:  # SigV4
        assert query["X-Amz-Expires"] == ["60"]
    else:  # SigV2: an absolute time
        assert 0 < int(query["Expires"][0]) - time.time() <= 60
    status, body, headers = fetch(url)
    assert status == 200 and headers["Content-Type"] == "image/jpeg"
    assert body == s3.get_object(Bucket=BUCKET, Key=f"content/{media.name}")["Body"].read()


def test_whoever_may_not_see_it_gets_no_url(s3, client):
    media = save_image(make_question_set(owner=make_user("alice")), image_bytes(), "x")
    url = reverse("media_file", args=[media.name])

    assert logged_in(make_user("mallory")).get(url).status_code == 404
    assert client.get(url).status_code == 404


def test_deleting_the_deck_deletes_the_object(s3, django_capture_on_commit_callbacks):
    deck = make_deck(owner=make_user())
    media = save_image(deck, image_bytes("GIF"), "x")

    with django_capture_on_commit_callbacks(execute=True):
        deck.delete()

    listed = s3.list_objects_v2(Bucket=BUCKET, Prefix=f"content/{media.name}")
    assert listed.get("KeyCount", 0) == 0


def test_files_no_image_names_are_pruned_from_the_bucket(s3):
    from datetime import timedelta

    from django.core.files.base import ContentFile
    from django.utils import timezone

    from quiz.content.media import prune_files

    kept = save_image(make_deck(owner=make_user()), image_bytes(), "x")
    orphan = default_storage.save("content/0123456789abcdef01234567.png", ContentFile(image_bytes("GIF")))

    pruned = prune_files(now=timezone.now() + timedelta(minutes=1), min_age=timedelta(0))

    assert orphan in pruned and kept.file.name not in pruned
    assert not default_storage.exists(orphan) and default_storage.exists(kept.file.name)
