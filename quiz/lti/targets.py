"""Where a resource link opens, from the custom parameters deep linking gave it (deep_linking.py),
checked at every launch: nothing the LMS sends opens what the learner may not see here."""

from datetime import datetime

from django.urls import reverse
from django.utils.http import urlencode

from ..lib.content_version import content_changed
from ..models import Assignment, Deck, QuestionSet


def target_url(custom, account, classroom, *, teaching):
    """The page the launch opens, or None: the class's own page then. `custom` is the launch's
    custom claim (a dict, or anything an LMS sends), `classroom` the course's class (or None)."""
    custom = custom if isinstance(custom, dict) else {}
    if (assignment_id := _id(custom.get("assignment"))) is not None:
        assignment = Assignment.objects.filter(pk=assignment_id, classroom=classroom).first() if classroom else None
        if assignment is None:
            return None
        return reverse("assignment" if teaching else "learner_assignment", args=[assignment.pk])
    if (set_id := _id(custom.get("set"))) is not None:
        question_set = QuestionSet.objects.visible_to(account).filter(pk=set_id).first()
        return f"{reverse('browse')}?{urlencode({'q': question_set.title})}" if question_set else None
    if (deck_id := _id(custom.get("deck"))) is not None:
        return reverse("deck", args=[deck_id]) if Deck.objects.visible_to(account).filter(pk=deck_id).exists() else None
    return None


def follow_lms_dates(classroom, custom):
    """Give the launched assignment the dates the LMS gives its activity, when it gives readable
    ones (opening before due); the LMS is where the instructor set them last."""
    opens, due = lms_dates(custom)
    if (opens is None and due is None) or (assignment := linked_assignment(classroom, custom)) is None:
        return
    opens, due = opens or assignment.opens_at, due or assignment.due_at
    if opens < due and (opens, due) != (assignment.opens_at, assignment.due_at):
        assignment.opens_at, assignment.due_at = opens, due
        assignment.save(update_fields=["opens_at", "due_at"])
        content_changed()


def linked_assignment(classroom, custom):
    """The assignment of `classroom` the link's custom parameters name, or None."""
    custom = custom if isinstance(custom, dict) else {}
    assignment_id = _id(custom.get("assignment"))
    return None if assignment_id is None else Assignment.objects.filter(pk=assignment_id, classroom=classroom).first()


def lms_dates(custom):
    """(opens, due) the LMS gives the activity (ISO 8601 through its substitution variables), each
    None when absent, unsubstituted or unreadable."""
    custom = custom if isinstance(custom, dict) else {}
    return _moment(custom.get("available")), _moment(custom.get("due"))


def _id(value):
    # isdigit() alone also says yes to "²" (which int() refuses): ASCII digits only.
    return int(value) if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 12 else None


def _moment(value):
    if not isinstance(value, str) or value.startswith("$"):
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    # An instant every database stores (year 1 at +01:00 is before year 1 in UTC: it overflows).
    return moment if moment.tzinfo and 1970 <= moment.year <= 9000 else None
