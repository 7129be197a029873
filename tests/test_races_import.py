"""Applying a browser import at the same instant from several requests saves it once
(PostgreSQL only, like tests/test_races.py)."""

import pytest

from quiz.content.pending import apply_pending, stage_import
from quiz.models import PendingImport, Question, QuestionSet, SourceDocument
from tests.factories import make_user
from tests.test_import_page import GIFT
from tests.test_races import race

pytestmark = pytest.mark.django_db(transaction=True)


def test_concurrent_applies_of_one_import_save_it_once():
    owner = make_user("ann")
    pending = stage_import(owner=owner, files=[("networking", GIFT.encode())])

    results, errors = race(lambda _: apply_pending(PendingImport.objects.get(pk=pending.pk)))

    assert errors == []
    assert sum(report is not None for report in results) == 1
    assert (SourceDocument.objects.count(), QuestionSet.objects.count(), Question.objects.count()) == (1, 1, 5)
