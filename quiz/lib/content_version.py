"""The version of what every learner's dashboard shows apart from their own study: content and
its sharing, classes and who is in them, pools and assignments. The services that change those
call `content_changed()`; a kept dashboard (quiz.progress.dashboard_cache) is found under the
version it was built at, so after a change no visit asks for it again."""

import logging
import uuid

from django.core.cache import caches
from django.db import DatabaseError, transaction

logger = logging.getLogger(__name__)

CONTENT_VERSION_KEY = "dashboard:content-version"


def page_cache():
    """The cache that keeps dashboards and the version beside them (read in one round trip)."""
    return caches["pages"]


def content_changed():
    """A new version once the caller's transaction commits (at once outside one)."""
    transaction.on_commit(new_content_version)


def new_content_version():
    """Never an error for the change that asked for it, which has committed: if the cache cannot
    take the new version it is logged, and kept dashboards expire on their own."""
    try:
        page_cache().set(CONTENT_VERSION_KEY, uuid.uuid4().hex, timeout=None)
    except DatabaseError:
        logger.exception("content changed, but the page cache could not take a new version")


def current_content_version(found):
    """The version among `found` (a get_many that asked for CONTENT_VERSION_KEY), or a first one
    when the cache has none (never set, or evicted): the one another process set meanwhile, if so."""
    if version := found.get(CONTENT_VERSION_KEY):
        return version
    page_cache().add(CONTENT_VERSION_KEY, uuid.uuid4().hex, timeout=None)
    return page_cache().get(CONTENT_VERSION_KEY)
