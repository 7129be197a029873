"""A signal that an assignment's counted scores may have changed (an attempt finished, a question
excluded or included again, a learner's own rules), sent once the change is committed. Who needs
to know listens: quiz.lti.grades sends the new scores to the course's LMS."""

from functools import partial

from django.db import transaction
from django.dispatch import Signal

# Sent with assignment_id and learner_id (None: any learner of the assignment).
scores_changed = Signal()


def announce_scores_changed(assignment_id, learner_id=None):
    """Send `scores_changed` after the current transaction commits (at once outside one)."""
    transaction.on_commit(partial(scores_changed.send, sender=None, assignment_id=assignment_id, learner_id=learner_id))
