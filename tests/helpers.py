"""Small helpers shared by the test files: a signed-in client, and a page's query count."""

from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def count_queries(client, url, method="get", data=None, ok=(200, 302)):
    """How many queries one request runs; the response must have one of the `ok` statuses."""
    with CaptureQueriesContext(connection) as context:
        response = getattr(client, method)(url, data or {})
    assert response.status_code in ok, (url, response.status_code)
    return len(context.captured_queries)
