"""Applying a browser import at the same instant from several requests saves it once
(PostgreSQL only, like tests/test_races.py)."""

import pytest

from quiz.content.pending import apply_pending, preview_pending, stage_import
from quiz.models import PendingImport, Question, QuestionSet, SourceDocument
from tests.factories import make_user
from tests.test_import_page import GIFT
from tests.test_races import race

pytestmark = pytest.mark.django_db(transaction=True)


def test_concurrent_applies_of_one_import_save_it_once():
    owner = make_user("ann")
    pending = stage_import(owner=owner, files=[("networking", GIFT.encode())])

    previewed = preview_pending(pending).fingerprint
    results, errors = race(lambda _: apply_pending(PendingImport.objects.get(pk=pending.pk), previewed=previewed))

    assert errors == []
    assert sum(report is not None for report in results) == 1
    assert (SourceDocument.objects.count(), QuestionSet.objects.count(), Question.objects.count()) == (1, 1, 10)


def test_concurrent_applies_of_several_imports_of_one_new_set_make_one_set():
    from quiz.content import export_json
    from quiz.content.documents import ContentError
    from tests.factories import make_question_set

    owner = make_user("ann")
    make_question_set("Exported", questions=3)  # made here, not imported: its export names no source document
    data = export_json().encode()
    QuestionSet.objects.all().delete()
    staged = [stage_import(owner=owner, files=[(f"copy {n}.json", data)]) for n in range(4)]
    previewed = [preview_pending(pending).fingerprint for pending in staged]

    results, errors = race(lambda n: apply_pending(staged[n], previewed=previewed[n]), threads=4)

    assert sum(report is not None for report in results) == 1
    assert len(errors) == 3 and all(isinstance(error, ContentError) for error in errors)
    assert QuestionSet.objects.filter(owner=owner).count() == 1
