"""'Download my data': everything the app keeps about one learner, as one zip of JSON files
written while it downloads.

Each table is read as plain values in chunks, ordered by id, and written a row a line as the
rows come: the first bytes leave at once, and memory stays flat however long the history (the
review log of a heavy learner is a million rows). A fixed number of queries per file, never one
per row. The learner's own sets and decks are written in the app's JSON export format, which the
import page reads back.

The download must not be a way round an assignment's hidden answers: while an attempt's answers
are hidden from its learner (`Attempt.answers_visible`), its file says nothing of what they were
worth (no score, no right choice), as its pages say nothing.
"""

import json
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import zipstream
from django.db import connection, transaction
from django.db.models import F, TextField
from django.db.models.functions import Cast
from lti_tool.models import LtiUser

from quiz.accounts.devices import devices_of
from quiz.content.export import export_entries
from quiz.models import (
    AssignmentOverride,
    Attempt,
    AttemptSlot,
    Deck,
    Enrollment,
    GradeSend,
    MemoryState,
    QuestionSet,
    ReminderSent,
    ReviewLog,
    ScheduleFit,
    StudyDay,
)
from quiz.models.kinds import TYPED, QuestionKind

# Rows per read from the database and per chunk of the stream: a few hundred kilobytes of JSON.
ROWS_PER_CHUNK = 2000
# Deflate's level 1: JSON rows shrink almost as much as at the default level 6 for a third of
# the CPU, and the archive is written while the learner waits for it.
COMPRESS_LEVEL = 1

# What each file holds, field by field: README.txt is written from these, and the tests check
# that every row has exactly these keys.
ACCOUNT_FIELDS = {
    "id": "your account's number in the app",
    "username": "the name you sign in with",
    "first_name": "", "last_name": "",
    "email": "your email address (empty if none)",
    "email_verified_at": "when you confirmed it by its link (null: not confirmed)",
    "email_changed_at": "when it last changed",
    "date_joined": "when the account was made",
    "last_login": "when you last signed in",
    "is_instructor": "whether you may run classes",
}
SETTINGS_FIELDS = {
    "time_zone": "your time zone (IANA name): where your days begin and end",
    "new_cards_per_day": "new flashcards a study session introduces per day",
    "exam_date": "your exam day (a date), or null",
    "target_retention": "the share of your bank you want to recall on exam day (0 to 1)",
    "desired_retention": "the recall at which the scheduler makes an item due (0 to 1)",
    "fsrs_parameters": "your personal scheduler parameters once a fit was adopted (null: the defaults)",
    "remind_reviews": "whether a daily email tells you of reviews due",
    "remind_assignments": "whether emails tell you of assignments opening and due",
    "reminder_hour": "the hour of your day the daily email comes at",
}
DEVICE_FIELDS = {
    "device": "the browser and system, from what the browser said",
    "address": "the network address it last came from",
    "signed_in_at": "when it signed in",
    "last_seen": "when it was last seen (to within a few minutes)",
    "this_device": "whether it is the one that downloaded this archive",
}
ATTEMPT_FIELDS = {
    "id": "the attempt's number",
    "title": "what it was: the quiz's own title (a retake of mistakes, a mock exam), the set's, or the assignment's",
    "question_set_id": "the set it was taken on (null: a quiz built for you)",
    "purpose": "what a quiz built for you was for (\"mistakes\", \"mock-exam\", ...)",
    "assignment_id": "the class assignment it was for, or null",
    "assignment_title": "that assignment's title",
    "classroom_id": "that assignment's class (see classes.json)",
    "feedback": "\"immediate\": answers marked as given; \"deferred\": once the attempt is finished",
    "started_at": "", "finished_at": "null while it is open",
    "deadline": "the time limit's end, for a timed attempt",
    "due_at": "the assignment's due date for you",
    "is_late": "finished after that due date",
    "reveal_at": "answers hidden until then (an assignment's choice)",
    "answers_visible": "whether you may see what your answers were worth yet; while false, the score, "
                       "each answer's credit and which choices were right are left out (null), as they are "
                       "for the questions still to answer in an open attempt",
    "question_count": "questions in the attempt",
    "correct_count": "answers with full credit",
    "score": "points: the sum of every answer's credit",
    "mock_exam": "for a mock exam: its minutes, pass_percent, predictions ({question id: predicted recall "
                 "when it began}), topic_counts and classroom_id; else null",
    "slots": "each question as it was shown to you, and your answer (fields below)",
}
SLOT_FIELDS = {
    "id": "", "position": "its place in the attempt (1, 2, ...)",
    "question_id": "the question (it may have been edited since; this is what you saw)",
    "kind": ", ".join(QuestionKind.values),
    "stem": "the question's text as shown",
    "shown_choices": "the choices in the order shown: id, text and, once answers are visible, whether right "
                     "(correct), their weight, tolerance or match",
    "shown_options": "a matching question's options in the order shown",
    "partial_credit": "", "case_sensitive": "",
    "chosen_index": "your pick, numbered as shown from 1 (one-pick questions)",
    "chosen_numbers": "your picks, numbered as shown (several picks; matching: the option for each item)",
    "typed_answer": "what you typed (short answer, number)",
    "chosen_choice_id": "the choice your answer was (or matched); null while answers are hidden",
    "credit": "the share of the question's point earned, 0 to 1",
    "is_correct": "full credit",
    "answered_at": "null: not answered", "seconds_spent": "",
    "scheduled_at": "when the answer entered your review queue",
    "flagged": "you flagged it for review",
}
REVIEW_FIELDS = {
    "id": "", "memory_id": "the item reviewed: an id in memory.json",
    "source": "; ".join(f"{value}: {label}" for value, label in ReviewLog.Source.choices),
    "rating": "; ".join(f"{value}: {label}" for value, label in ReviewLog.Rating.choices)
              + " (a quiz answer: 1 if wrong, 3 if right)",
    "reviewed_at": "when you answered", "released_at": "when an answer held back was rated",
    "duration_ms": "time taken", "was_new": "the first time you saw the item",
    "retrievability": "predicted recall just before (0 to 1)",
    "due_after": "when the item became due again",
    "chosen_choice_id": "the choice picked, for a question", "answer": "myth or fact, for the drill",
    "state_before": "the memory state this rating replaced",
    "shown": "for a question: what you saw and picked",
}
MEMORY_FIELDS = {
    "id": "", "kind": "; ".join(f"{value}: {label}" for value, label in MemoryState.Kind.choices),
    "question_id": "", "question_key": "", "question_set_title": "",
    "card_id": "", "card_key": "", "deck_title": "",
    "phase": "; ".join(f"{value}: {label}" for value, label in MemoryState.Phase.choices),
    "step": "the learning step", "stability": "days until recall falls to 90%", "difficulty": "1 to 10",
    "due": "when the item is next due", "last_review": "", "reps": "reviews so far", "lapses": "times forgotten",
    "last_rating": "as a review's rating",
}
CLASS_FIELDS = {
    "classroom_id": "", "name": "", "instructor": "the instructor's username",
    "joined_at": "", "archived_at": "when the instructor archived the class, or null",
}
OVERRIDE_FIELDS = {
    "id": "", "assignment_id": "", "assignment_title": "", "classroom_id": "",
    "opens_at": "", "due_at": "", "time_limit": "seconds", "max_attempts": "",
}
FIT_FIELDS = {
    "id": "", "fitted_at": "", "review_count": "reviews it was fitted on",
    "outcome": "; ".join(f"{value}: {label}" for value, label in ScheduleFit.Outcome.choices),
    "parameters": "the fitted parameters", "metrics": "how well each set of parameters predicted your later reviews",
}
DAY_FIELDS = {
    "id": "", "day": "the date, in time_zone", "time_zone": "", "reviews": "", "correct": "reviews not rated Again",
    "new_cards": "",
}
REMINDER_FIELDS = {
    "id": "", "kind": "; ".join(f"{value}: {label}" for value, label in ReminderSent.Kind.choices),
    "key": "what it was about: your local date (digest) or the assignment's id",
    "status": "; ".join(f"{value}: {label}" for value, label in ReminderSent.Status.choices), "tries": "", "claimed_at": "when it was due to go", "sent_at": "",
}


def archive(user, *, now, current_session_key=None):
    """The learner's archive, as chunks of bytes. Nothing is read until they are asked for;
    `current_session_key` marks the device asking, and is never written."""
    stream = zipstream.ZipStream(compress_type=zipstream.ZIP_DEFLATED, compress_level=COMPRESS_LEVEL)
    stream.add(_readme(user, now), "README.txt")
    files = {
        "account.json": _lazy(_account, user, now, current_session_key),
        "attempts.json": _json_array(_attempts(user, now)),
        "reviews.json": _json_array(_reviews(user), line=_review_line),
        "memory.json": _json_array(_read(MemoryState.objects.filter(user=user), MEMORY_FIELDS, MEMORY_JOINS)),
        "classes.json": _json_object(classes=_classes(user), assignment_overrides=_overrides(user)),
        "schedule_fits.json": _json_array(_read(ScheduleFit.objects.filter(user=user), FIT_FIELDS)),
        "study_days.json": _json_array(_read(StudyDay.objects.filter(user=user), DAY_FIELDS)),
        "reminders_sent.json": _json_array(_read(ReminderSent.objects.filter(user=user), REMINDER_FIELDS)),
        "lms.json": _json_object(
            identities=_read(LtiUser.objects.filter(auth_user=user), LMS_FIELDS, LMS_JOINS),
            grades_sent=_read(GradeSend.objects.filter(learner=user), GRADE_FIELDS, GRADE_JOINS),
        ),
        "content.json": _json_object(
            question_sets=export_entries(QuestionSet.objects.owned_by(user).order_by("title", "pk")),
            decks=export_entries(Deck.objects.owned_by(user).order_by("title", "pk")),
        ),
    }
    for name, chunks in files.items():
        stream.add(chunks, name)
    return _streamed_reads(stream)


def _streamed_reads(chunks):
    """`chunks`, read on PostgreSQL in one transaction: outside one, Django declares its
    server-side cursors WITH HOLD, and PostgreSQL then works out every row of a cursor before
    the first (10 s for a million reviews, spilled to a temporary file). Not on SQLite, which
    streams anyway and where a transaction would hold the write lock (transaction_mode
    IMMEDIATE) for the whole download. No savepoint inside another transaction (a test's)."""
    if connection.vendor != "postgresql":
        yield from chunks
        return
    with transaction.atomic(savepoint=False):
        yield from chunks


def file_name(user, now):
    """The archive's name, dated in the learner's own day."""
    return f"certify-data-{user.username}-{now.astimezone(user.zone).date().isoformat()}.zip"


# --- Reading ---------------------------------------------------------------------------------

def _read(queryset, fields, joins=None):
    """The rows of `queryset` as dicts of `fields`, in id order, in chunks; `joins` names the
    fields read from a related row ({field: lookup})."""
    joins = joins or {}
    rows = queryset.order_by("pk").values(
        *(name for name in fields if name not in joins), **{name: F(lookup) for name, lookup in joins.items()}
    ).iterator(chunk_size=ROWS_PER_CHUNK)
    if not joins:
        return rows
    # The joined fields come last from the database: put back the order README.txt lists.
    return ({name: row[name] for name in fields} for row in rows)


LMS_FIELDS = {
    "id": "", "platform": "the LMS (Moodle, Canvas...) you launched the app from, as registered here",
    "user_id": "your id at that LMS", "name": "your name as the LMS sent it", "email": "your email as the LMS sent it",
    "linked_at": "when your account here was first linked to it",
}
LMS_JOINS = {"platform": "registration__name", "user_id": "sub", "linked_at": "datetime_created"}
GRADE_FIELDS = {
    "id": "", "assignment_id": "", "assignment_title": "", "score": "your counted score (0-100) as sent to the LMS",
    "status": "your standing on the assignment", "changed_at": "when the score changed",
    "sent_at": "when the LMS last took it (null: not yet)",
}
GRADE_JOINS = {"assignment_title": "assignment__title"}
MEMORY_JOINS = {
    "question_key": "question__key", "question_set_title": "question__question_set__title",
    "card_key": "card__key", "deck_title": "card__deck__title",
}


# The review log's JSON columns are read as the JSON text they are stored as, and written as it
# is: decoding each and encoding it again cost a quarter of the time of a long download.
REVIEW_JSON = {"state_before": "state_before_text", "shown": "shown_text"}


def _reviews(user):
    """The review log, its JSON columns as text under the names `_review_line` writes them by."""
    columns = [name for name in REVIEW_FIELDS if name not in REVIEW_JSON]
    texts = {text: Cast(name, TextField()) for name, text in REVIEW_JSON.items()}
    rows = ReviewLog.objects.filter(user=user).order_by("pk").values(*columns, **texts)
    return rows.iterator(chunk_size=ROWS_PER_CHUNK)


def _review_line(row):
    state, shown = row.pop("state_before_text"), row.pop("shown_text")
    return f'{_ENCODER.encode(row)[:-1]},"state_before":{state or "null"},"shown":{shown or "null"}}}'


def _account(user, now, current_session_key):
    return {
        "exported_at": now,
        "account": {name: getattr(user, name) for name in ACCOUNT_FIELDS},
        "settings": {name: getattr(user, name) for name in SETTINGS_FIELDS},
        "devices": [
            {"device": device.browser, "address": device.address, "signed_in_at": device.signed_in_at,
             "last_seen": device.last_seen, "this_device": device.current}
            for device in devices_of(user, current_session_key)
        ],
    }


ATTEMPT_JOINS = {
    "set_title": "question_set__title", "assignment_title": "assignment__title",
    "classroom_id": "assignment__classroom_id",
}
MOCK_EXAM_JOINS = {
    "mock_minutes": "mock_exam__minutes", "mock_pass_percent": "mock_exam__pass_percent",
    "mock_predictions": "mock_exam__predictions", "mock_topic_counts": "mock_exam__topic_counts",
    "mock_classroom_id": "mock_exam__classroom_id",
}
# The fields of an attempt read from its row: the others are worked out (`_attempt_row`).
ATTEMPT_COLUMNS = [name for name in ATTEMPT_FIELDS if name not in ("answers_visible", "mock_exam", "slots")]


def _attempts(user, now):
    """Each attempt with its slots: two reads side by side, both in attempt order, merged as they
    come (one attempt's slots held at a time)."""
    attempts = _read(
        Attempt.objects.filter(user=user), [*ATTEMPT_COLUMNS, *ATTEMPT_JOINS, *MOCK_EXAM_JOINS],
        {**ATTEMPT_JOINS, **MOCK_EXAM_JOINS},
    )
    slots = (
        AttemptSlot.objects.filter(attempt__user=user).order_by("attempt_id", "position")
        .values("attempt_id", *SLOT_FIELDS).iterator(chunk_size=ROWS_PER_CHUNK)
    )
    pending = next(slots, None)
    for attempt in attempts:
        own = []
        # The slots of an attempt not read (one begun between the two reads) are passed over.
        while pending is not None and pending["attempt_id"] <= attempt["id"]:
            if pending["attempt_id"] == attempt["id"]:
                own.append(pending)
            pending = next(slots, None)
        yield _attempt_row(attempt, own, now)


def _attempt_row(attempt, slots, now):
    visible = Attempt.visible(attempt["feedback"], attempt["finished_at"], attempt["reveal_at"], now)
    finished = attempt["finished_at"] is not None
    mock = {name.removeprefix("mock_"): attempt[name] for name in MOCK_EXAM_JOINS}
    worked_out = {
        "title": attempt["title"] or attempt["set_title"] or attempt["assignment_title"] or "Quiz",
        "answers_visible": visible,
        "mock_exam": mock if mock["minutes"] is not None else None,
        # A question's key shows once its answer's feedback would: not for the questions still
        # to answer in an open attempt, whose pages show no key either.
        "slots": [_slot_row(slot, visible and (finished or slot["answered_at"] is not None)) for slot in slots],
    }
    if not visible:
        worked_out.update(correct_count=None, score=None)
    return {name: worked_out[name] if name in worked_out else attempt[name] for name in ATTEMPT_FIELDS}


def _slot_row(slot, key_shown):
    row = {name: slot[name] for name in SLOT_FIELDS}
    if not key_shown:
        # The snapshot holds the answer key (right, weight, match): only what the question page
        # shows of the choices; a typed question's choices are its accepted answers, so none.
        shown = [] if slot["kind"] in TYPED else slot["shown_choices"]
        row["shown_choices"] = [{k: v for k, v in choice.items() if k in SHOWN_BEFORE_ANSWERING} for choice in shown]
        row.update(credit=None, is_correct=None, chosen_choice_id=None)
    return row


# What of a choice's snapshot the question page shows before its answer's feedback: a list of
# what may be written rather than of what may not, so a key added to snapshots later stays out.
SHOWN_BEFORE_ANSWERING = {"id", "text", "markup"}


def _classes(user):
    enrollments = Enrollment.objects.filter(learner=user)
    joins = {"name": "classroom__name", "instructor": "classroom__owner__username", "archived_at": "classroom__archived_at"}
    return _read(enrollments, CLASS_FIELDS, joins)


def _overrides(user):
    joins = {"assignment_title": "assignment__title", "classroom_id": "assignment__classroom_id"}
    return _read(AssignmentOverride.objects.filter(learner=user), OVERRIDE_FIELDS, joins)


# --- Writing ---------------------------------------------------------------------------------

def _plain(value):
    """What JSON has no type for: a moment as ISO 8601 in UTC, a date as ISO, a Decimal (a score,
    a credit: four places at most, which a float keeps) as a number, a duration in seconds."""
    if isinstance(value, datetime):
        # The database's moments come in UTC already; astimezone for any other.
        return (value if value.tzinfo is UTC else value.astimezone(UTC)).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, timedelta):
        return value.total_seconds()
    raise TypeError(f"{type(value).__name__} is not written to the archive")


_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_plain)


def _json_array(rows, *, line=_ENCODER.encode, end=b"\n"):
    """`rows` as a JSON array, a row a line (`line` writes one), in chunks of bytes."""
    yield b"["
    lines, separator = [], "\n"
    for row in rows:
        lines.append(separator + line(row))
        separator = ",\n"
        if len(lines) == ROWS_PER_CHUNK:
            yield "".join(lines).encode()
            lines.clear()
    yield ("".join(lines) + "\n]").encode() + end


def _json_object(**arrays):
    """A JSON object whose values are the arrays of `arrays` (iterables of rows), streamed."""
    separator = b"{"
    for name, rows in arrays.items():
        yield separator + json.dumps(name).encode() + b":"
        yield from _json_array(rows, end=b"")
        separator = b",\n"
    yield b"}\n"


def _lazy(build, *args):
    """One JSON document built only when the archive reaches it."""
    yield json.dumps(build(*args), ensure_ascii=False, indent=2, default=_plain).encode() + b"\n"


def _readme(user, now):
    yield README_HEAD.format(username=user.username, now=_plain(now)).encode()
    for name, (about, sections) in README_FILES.items():
        lines = [f"\n{name}\n{'-' * len(name)}\n{about}\n"]
        for title, fields in sections:
            lines.append(f"\n{title}:\n" if title else "\n")
            lines.extend(f"  {field}{': ' + meaning if meaning else ''}\n" for field, meaning in fields.items())
        yield "".join(lines).encode()


README_HEAD = """Your data from Certify: {username}, {now}

Every file is JSON (UTF-8). Every time is ISO 8601 in UTC (2025-01-31T18:00:00+00:00); a date is
YYYY-MM-DD. Rows are in the order they were made (by id), and ids link the files: a review's
memory_id is an id in memory.json, an attempt's classroom_id one in classes.json.
"""

README_FILES = {
    "account.json": ("Your account, your settings, and the devices signed in to it.", [
        ("account", ACCOUNT_FIELDS), ("settings", SETTINGS_FIELDS), ("devices", DEVICE_FIELDS),
    ]),
    "attempts.json": ("Every quiz you started (a list), each with every question shown and your answer.", [
        ("each attempt", ATTEMPT_FIELDS), ("each of its slots", SLOT_FIELDS),
    ]),
    "reviews.json": ("The review log: every rating of a flashcard, a question or a drill statement.", [
        ("each review", REVIEW_FIELDS),
    ]),
    "memory.json": ("What the scheduler (FSRS) knows of each item you studied: its memory state.", [
        ("each item", MEMORY_FIELDS),
    ]),
    "classes.json": ("The classes you are in (\"classes\") and the rules an instructor changed for you alone "
                     "(\"assignment_overrides\").", [
        ("each class", CLASS_FIELDS), ("each override", OVERRIDE_FIELDS),
    ]),
    "schedule_fits.json": ("Each fit of the scheduler's parameters to your reviews.", [("each fit", FIT_FIELDS)]),
    "study_days.json": ("Your finished days of study, as the dashboard counts them.", [("each day", DAY_FIELDS)]),
    "reminders_sent.json": ("The reminder emails sent to you.", [("each email", REMINDER_FIELDS)]),
    "lms.json": ("Your identities at the LMSs (Moodle, Canvas...) you launched the app from (\"identities\") "
                 "and the scores sent to their gradebooks (\"grades_sent\").", [
        ("each identity", LMS_FIELDS), ("each score", GRADE_FIELDS),
    ]),
    "content.json": ("The question sets and decks you made, in the app's JSON format: the import page reads "
                     "this file back (docs/formats.md describes it).", []),
}
