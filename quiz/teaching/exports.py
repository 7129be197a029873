"""The instructor's CSV downloads, as rows (the header first): the gradebook, and every
response given in a class's assignments. `quiz.lib.csv_export` streams and neutralises them."""

from quiz.models import AttemptSlot


def gradebook_rows(book):
    header = ["learner"] + [f"{c.assignment.title} (score %)" for c in book.columns] + [
        f"{c.assignment.title} (status)" for c in book.columns
    ]
    yield header
    for learner, cells in book.rows:
        yield [learner.username] + ["" if c.score is None else c.score for c in cells] + [c.status for c in cells]


RESPONSE_COLUMNS = ["assignment", "learner", "attempt", "question", "choice chosen", "correct", "seconds spent", "submitted at"]


def response_rows(classroom):
    """One row per answer given in the class's assignments, read in chunks."""
    # The class's assignment ids, not a join through the class: the planner then reads only
    # those assignments' attempts instead of estimating the whole table.
    assignment_ids = list(classroom.assignments.values_list("pk", flat=True))
    slots = (
        AttemptSlot.objects.filter(attempt__assignment__in=assignment_ids, answered_at__isnull=False)
        .select_related("attempt__user", "attempt__assignment")
        .order_by("attempt__assignment__due_at", "attempt__user__username", "attempt__started_at", "position")
    )
    yield RESPONSE_COLUMNS
    for slot in slots.iterator(chunk_size=1000):
        yield [
            slot.attempt.assignment.title,
            slot.attempt.user.username,
            slot.attempt_id,
            slot.stem,
            slot.shown_choices[slot.chosen_index - 1]["text"] if slot.chosen_index else "",
            "yes" if slot.is_correct else "no",
            "" if slot.seconds_spent is None else slot.seconds_spent,
            slot.answered_at.isoformat(),
        ]
