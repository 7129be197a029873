"""The instructor's CSV downloads, as rows (the header first): the gradebook, and every
response given in a class's assignments. `quiz.lib.csv_export` streams and neutralises them."""

from quiz.models import AttemptSlot
from quiz.models.kinds import verdict


def gradebook_rows(book):
    header = ["learner"] + [f"{c.assignment.title} (score %)" for c in book.columns] + [
        f"{c.assignment.title} (status)" for c in book.columns
    ]
    yield header
    for learner, cells in book.rows:
        yield [learner.username] + ["" if c.score is None else c.score for c in cells] + [c.status for c in cells]


RESPONSE_COLUMNS = [
    "assignment", "learner", "attempt", "question", "choice chosen", "correct", "seconds spent", "submitted at",
    "excluded",  # "yes": the instructor excluded the question afterwards, so it counts in no score
]


def response_rows(classroom):
    """One row per answer given in the class's assignments by its current learners (those
    removed are left out, as in the gradebook and item analysis), read in chunks."""
    # The class's assignment ids, not a join through the class: the planner then reads only
    # those assignments' attempts instead of estimating the whole table.
    assignment_ids = list(classroom.assignments.active().values_list("pk", flat=True))
    learners = classroom.enrollments.values("learner")
    slots = (
        AttemptSlot.objects.filter(
            attempt__assignment__in=assignment_ids, attempt__user__in=learners, answered_at__isnull=False
        )
        .with_exclusion_flag()
        .order_by("attempt__assignment__due_at", "attempt__user__username", "attempt__started_at", "position")
        .values_list(
            "attempt__assignment__title", "attempt__user__username", "attempt_id", "stem", "shown_choices",
            "chosen_index", "chosen_numbers", "shown_options", "typed_answer", "credit", "seconds_spent", "answered_at",
            "is_excluded",
        )
    )
    yield RESPONSE_COLUMNS
    # Plain values read in chunks, no model instance per row: a class's every answer streams.
    rows = slots.iterator(chunk_size=5000)
    for title, learner, attempt_id, stem, shown, chosen, several, options, typed, credit, seconds, at, excluded in rows:
        yield [
            title, learner, attempt_id, stem, _response(shown, chosen, several, options, typed), verdict(credit),
            "" if seconds is None else seconds, at.isoformat(), "yes" if excluded else "",
        ]


def _response(shown, chosen, several, options, typed):
    """What the learner answered, as text: the choice(s) picked, what they typed, or each pair."""
    if typed is not None:
        return typed
    if options is not None:  # matching: the option picked for each item
        return " | ".join(f"{item['text']} → {options[pick - 1]}" for item, pick in zip(shown, several or []))
    return " | ".join(shown[number - 1]["text"] for number in several or ([chosen] if chosen else []))
