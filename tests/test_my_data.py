""""Download my data": the archive, file by file, compared row by row with the database; only the
learner's own rows; hidden answers stay hidden; the content reads back; queries do not grow."""

import io
import json
import zipfile
from datetime import datetime, timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from quiz.accounts import export
from quiz.content import import_documents
from quiz.content.export import export_entries
from quiz.models import (
    AssignmentOverride,
    Attempt,
    AttemptSlot,
    Deck,
    MemoryState,
    MockExam,
    Question,
    QuestionSet,
    ReminderSent,
    ReviewLog,
    ScheduleFit,
    StudyDay,
)
from tests.class_factories import make_assignment, make_classroom, make_instructor, take
from tests.factories import make_deck, make_kind_question, make_question_set, make_user, start_attempt
from tests.helpers import AUTH, answer_all, answer_at, logged_in, rate_item

URL = reverse("download_my_data")
FILES = [
    "README.txt", "account.json", "attempts.json", "reviews.json", "memory.json", "classes.json",
    "schedule_fits.json", "study_days.json", "reminders_sent.json", "lms.json", "content.json",
]


def unzip(response):
    """{file name: bytes} of a streamed archive, the files in the archive's order."""
    assert response.streaming
    with zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))) as archive:
        assert archive.testzip() is None
        return {name: archive.read(name) for name in archive.namelist()}


def download(client):
    files = unzip(client.get(URL))
    return {name: data.decode() if name.endswith(".txt") else json.loads(data) for name, data in files.items()}


def history_of(user, *, now=None):
    """One learner's history of every kind, made through the app's own code paths."""
    now = now or timezone.now()
    quiz = make_question_set(questions=3)
    answer_all(start_attempt(user, quiz), right=2)
    deck = make_deck(cards=2)
    for number, card in enumerate(deck.cards.order_by("position")):
        rate_item(user, card, 3, at=now - timedelta(days=3 - number))
        rate_item(user, card, 1 + number, at=now - timedelta(days=1))
    rate_item(user, deck.cards.first(), 2, at=now - timedelta(hours=1), kind=MemoryState.Kind.MYTH, answer="myth")
    teacher = make_instructor(f"teacher_of_{user.username}")
    classroom = make_classroom(teacher, name=f"Class of {user.username}", learners=[user])
    assignment = make_assignment(classroom, due_at=now + timedelta(days=2), opens_at=now - timedelta(days=1))
    AssignmentOverride.objects.create(
        assignment=assignment, learner=user, due_at=now + timedelta(days=5), time_limit=timedelta(minutes=25)
    )
    take(assignment, user, [0, 1, 2])
    ScheduleFit.objects.create(
        user=user, fitted_at=now, review_count=500, outcome="adopted", parameters=[0.4] * 21,
        metrics={"personal": {"log_loss": 0.31}, "default": {"log_loss": 0.35}, "tested_on": 80},
    )
    StudyDay.objects.create(user=user, day=now.date() - timedelta(days=1), time_zone="UTC", reviews=4, correct=3)
    ReminderSent.objects.create(user=user, kind="digest", key=now.date().isoformat(), status="sent", sent_at=now)
    own = make_question_set(f"{user.username}'s own set", questions=2, owner=user)
    make_kind_question(own, 3, Question.Kind.SELECT_ALL, rights={0, 2}, weights=[Decimal("0.5"), Decimal("-1"),
                                                                                 Decimal("0.5"), None, None],
                       partial_credit=True)
    make_deck(f"{user.username}'s own deck", cards=2, owner=user)
    return quiz


@pytest.fixture
def alice_history(learner, other_learner):
    history_of(other_learner)  # Bob's rows first, so Alice's ids are not simply the first ones
    return history_of(learner)


def as_in_file(value):
    """A database value as the archive writes it (moments in UTC, decimals as numbers)."""
    if isinstance(value, datetime):
        assert value.utcoffset() == timedelta(0)
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, timedelta):
        return value.total_seconds()
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def db_rows(queryset, *fields):
    return [{name: as_in_file(value) for name, value in row.items()} for row in queryset.order_by("pk").values(*fields)]


def picked(rows, *fields):
    return [{name: row[name] for name in fields} for row in rows]


# --- The response ---------------------------------------------------------------------------

def test_it_streams_a_zip_named_for_the_learner_and_their_day(learner, learner_client):
    response = learner_client.get(URL)

    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "application/zip"
    today = timezone.now().astimezone(learner.zone).date().isoformat()
    assert response["Content-Disposition"] == f'attachment; filename="certify-data-alice-{today}.zip"'
    assert list(unzip(response)) == FILES


def test_it_sends_a_visitor_to_sign_in(client):
    response = client.get(URL)

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("method", ["post", "head"])
def test_it_refuses_anything_but_get(learner_client, method):
    assert getattr(learner_client, method)(URL).status_code == 405


def test_an_empty_history_is_empty_arrays(learner_client):
    files = download(learner_client)

    for name in ("attempts.json", "reviews.json", "memory.json", "schedule_fits.json", "study_days.json",
                 "reminders_sent.json"):
        assert files[name] == [], name
    assert files["classes.json"] == {"classes": [], "assignment_overrides": []}
    assert files["lms.json"] == {"identities": [], "grades_sent": []}
    assert files["content.json"] == {"question_sets": [], "decks": []}


# --- Row by row -----------------------------------------------------------------------------

def test_every_attempt_and_answer_is_the_database_s(learner, learner_client, alice_history):
    open_attempt = start_attempt(learner, make_question_set(questions=2))
    answer_at(open_attempt, 1, True, timezone.now())

    attempts = download(learner_client)["attempts.json"]

    expected = db_rows(
        Attempt.objects.filter(user=learner), "id", "question_set_id", "started_at", "finished_at", "question_count",
        "correct_count", "score", "feedback", "assignment_id",
    )
    assert picked(attempts, *expected[0]) == expected
    assert len(expected) == 3
    assignment = learner.enrollments.get().classroom.assignments.get()
    assert [(attempt["title"], attempt["assignment_title"], attempt["classroom_id"]) for attempt in attempts] == [
        (alice_history.title, None, None),
        (assignment.title, assignment.title, assignment.classroom_id),
        (open_attempt.question_set.title, None, None),
    ]
    for attempt in attempts:
        slots = db_rows(
            AttemptSlot.objects.filter(attempt_id=attempt["id"]), "id", "position", "question_id", "stem", "kind",
            "shown_choices", "chosen_index", "chosen_numbers", "credit", "is_correct", "answered_at", "seconds_spent",
            "scheduled_at", "chosen_choice_id",
        )
        rows = sorted(attempt["slots"], key=lambda slot: slot["id"])
        assert [slot["position"] for slot in attempt["slots"]] == sorted(slot["position"] for slot in slots)
        # The open attempt's unanswered question is the one row that differs: no key yet (below).
        answered = [slot for slot in slots if slot["answered_at"]]
        assert picked([row for row in rows if row["answered_at"]], *slots[0]) == answered
    assert [slot["answered_at"] is not None for slot in attempts[0]["slots"]] == [True, True, True]
    assert [slot["is_correct"] for slot in attempts[0]["slots"]] == [True, True, False]


def test_every_review_is_the_database_s(learner, learner_client, alice_history):
    reviews = download(learner_client)["reviews.json"]

    expected = db_rows(ReviewLog.objects.filter(user=learner), *export.REVIEW_FIELDS)
    assert reviews == expected
    assert len(expected) == 3 + 4 + 1 + 3  # quiz answers, flashcard ratings, a drill statement, the assignment's
    assert {review["source"] for review in reviews} == {"quiz", "study", "drill"}


def test_every_memory_state_is_the_database_s(learner, learner_client, alice_history):
    memory = download(learner_client)["memory.json"]

    expected = db_rows(
        MemoryState.objects.filter(user=learner), "id", "kind", "question_id", "card_id", "phase", "step", "stability",
        "difficulty", "due", "last_review", "reps", "lapses", "last_rating",
    )
    assert picked(memory, *expected[0]) == expected
    assert len(expected) == 3 + 2 + 1 + 3
    question = next(row for row in memory if row["kind"] == "question")
    assert question["question_key"] == Question.objects.get(pk=question["question_id"]).key
    assert question["question_set_title"] == alice_history.title
    card = next(row for row in memory if row["kind"] == "card")
    assert (card["card_key"], card["deck_title"], card["question_key"]) == ("c1", Deck.objects.get(cards=card["card_id"]).title, None)


def test_classes_joined_and_overrides_are_the_database_s(learner, learner_client, alice_history):
    classes = download(learner_client)["classes.json"]

    enrollment = learner.enrollments.select_related("classroom__owner").get()
    assert classes["classes"] == [{
        "classroom_id": enrollment.classroom_id, "joined_at": as_in_file(enrollment.joined_at),
        "name": "Class of alice", "instructor": "teacher_of_alice", "archived_at": None,
    }]
    override = AssignmentOverride.objects.select_related("assignment").get(learner=learner)
    assert classes["assignment_overrides"] == [{
        "id": override.pk, "assignment_id": override.assignment_id, "opens_at": None,
        "due_at": as_in_file(override.due_at), "time_limit": 1500.0, "max_attempts": None,
        "assignment_title": override.assignment.title, "classroom_id": enrollment.classroom_id,
    }]


def test_fits_days_and_reminders_are_the_database_s(learner, learner_client, alice_history):
    files = download(learner_client)

    for name, model, fields in [
        ("schedule_fits.json", ScheduleFit, export.FIT_FIELDS),
        ("study_days.json", StudyDay, export.DAY_FIELDS),
        ("reminders_sent.json", ReminderSent, export.REMINDER_FIELDS),
    ]:
        expected = db_rows(model.objects.filter(user=learner), *fields)
        assert files[name] == expected, name
        assert len(expected) == 1, name


def test_the_account_holds_settings_and_devices_but_no_password_or_session_key(learner, other_learner):
    learner.time_zone, learner.exam_date, learner.desired_retention = "Europe/Paris", datetime(2027, 6, 1).date(), 0.85
    learner.email, learner.remind_reviews = "alice@example.com", True
    learner.save()
    laptop, phone = logged_in(learner), logged_in(learner)
    logged_in(other_learner)

    response = phone.get(URL)
    files = unzip(response)
    account = json.loads(files["account.json"])

    assert account["account"]["username"] == "alice"
    assert account["account"]["email"] == "alice@example.com"
    assert account["account"]["date_joined"] == as_in_file(learner.date_joined)
    assert account["settings"] == {
        "time_zone": "Europe/Paris", "new_cards_per_day": 20, "exam_date": "2027-06-01", "target_retention": 0.9,
        "desired_retention": 0.85, "fsrs_parameters": None, "remind_reviews": True, "remind_assignments": False,
        "reminder_hour": 18,
    }
    assert [device["this_device"] for device in account["devices"]] == [True, False]
    assert {device["address"] for device in account["devices"]} == {"127.0.0.1"}
    everything = b"".join(files.values())
    assert learner.password.encode() not in everything and b"password" not in files["account.json"]
    for client in (laptop, phone):
        assert client.session.session_key.encode() not in everything


def test_readme_names_every_field_of_every_row(learner_client, alice_history):
    files = download(learner_client)
    account, attempt = files["account.json"], files["attempts.json"][0]

    assert set(account) == {"exported_at", "account", "settings", "devices"}
    assert list(account["account"]) == list(export.ACCOUNT_FIELDS)
    assert list(account["settings"]) == list(export.SETTINGS_FIELDS)
    assert list(attempt) == list(export.ATTEMPT_FIELDS)
    assert list(attempt["slots"][0]) == list(export.SLOT_FIELDS)
    for name, fields in [
        ("reviews.json", export.REVIEW_FIELDS), ("memory.json", export.MEMORY_FIELDS),
        ("schedule_fits.json", export.FIT_FIELDS), ("study_days.json", export.DAY_FIELDS),
        ("reminders_sent.json", export.REMINDER_FIELDS),
    ]:
        assert {key for row in files[name] for key in row} == set(fields), name
    assert set(files["classes.json"]["classes"][0]) == set(export.CLASS_FIELDS)
    assert set(files["classes.json"]["assignment_overrides"][0]) == set(export.OVERRIDE_FIELDS)
    readme = files["README.txt"]
    for field in [*export.REVIEW_FIELDS, *export.SLOT_FIELDS, *export.MEMORY_FIELDS, *export.DEVICE_FIELDS]:
        assert f"  {field}" in readme
    for name in FILES[1:]:
        assert f"\n{name}\n" in readme


# --- Only the learner's own -----------------------------------------------------------------

def test_another_learner_s_rows_never_appear(learner, other_learner, learner_client, alice_history):
    files = download(learner_client)

    theirs = {
        "attempts.json": set(Attempt.objects.filter(user=other_learner).values_list("pk", flat=True)),
        "reviews.json": set(ReviewLog.objects.filter(user=other_learner).values_list("pk", flat=True)),
        "memory.json": set(MemoryState.objects.filter(user=other_learner).values_list("pk", flat=True)),
        "schedule_fits.json": set(ScheduleFit.objects.filter(user=other_learner).values_list("pk", flat=True)),
        "study_days.json": set(StudyDay.objects.filter(user=other_learner).values_list("pk", flat=True)),
        "reminders_sent.json": set(ReminderSent.objects.filter(user=other_learner).values_list("pk", flat=True)),
    }
    for name, ids in theirs.items():
        assert ids, name
        assert not ids & {row["id"] for row in files[name]}, name
    their_slots = set(AttemptSlot.objects.filter(attempt__user=other_learner).values_list("pk", flat=True))
    assert not their_slots & {slot["id"] for attempt in files["attempts.json"] for slot in attempt["slots"]}
    everything = json.dumps(files)
    assert "bob" not in everything  # his classes, his instructor, his own set and deck


def test_a_mock_exam_carries_its_rules_and_predictions(learner, learner_client):
    attempt = answer_all(start_attempt(learner, make_question_set(questions=2)))
    first = attempt.slots.order_by("position").first().question_id
    MockExam.objects.create(attempt=attempt, minutes=45, pass_percent=70, predictions={str(first): 0.8},
                            topic_counts={"": 2})

    (row,) = download(learner_client)["attempts.json"]

    assert row["mock_exam"] == {"minutes": 45, "pass_percent": 70, "predictions": {str(first): 0.8},
                                "topic_counts": {"": 2}, "classroom_id": None}


# --- Hidden answers stay hidden --------------------------------------------------------------

def test_an_attempt_whose_answers_are_held_back_says_nothing_of_them(learner, learner_client):
    held = answer_all(start_attempt(learner, make_question_set(questions=2), feedback=Attempt.Feedback.DEFERRED), right=1)
    Attempt.objects.filter(pk=held.pk).update(reveal_at=timezone.now() + timedelta(days=1))

    (attempt,) = download(learner_client)["attempts.json"]

    held_slots = dict(held.slots.values_list("pk", "shown_choices"))
    assert all("correct" in choice for choices in held_slots.values() for choice in choices)  # the key is stored
    assert attempt["answers_visible"] is False
    assert attempt["reveal_at"] is not None
    assert (attempt["score"], attempt["correct_count"]) == (None, None)
    for slot in attempt["slots"]:
        assert slot["chosen_index"] is not None
        assert (slot["credit"], slot["is_correct"], slot["chosen_choice_id"]) == (None, None, None)
        assert [choice["id"] for choice in slot["shown_choices"]] == [choice["id"] for choice in held_slots[slot["id"]]]
        assert all(set(choice) <= export.SHOWN_BEFORE_ANSWERING for choice in slot["shown_choices"])
        assert not any("correct" in choice for choice in slot["shown_choices"])


def test_an_open_attempt_shows_the_key_of_answered_questions_only(learner, learner_client):
    quiz = make_question_set(questions=1)
    make_kind_question(quiz, 2, Question.Kind.SHORT_ANSWER, rights={0}, texts=["Paris"])
    attempt = start_attempt(learner, quiz)
    answer_at(attempt, attempt.slots.get(question__key="q1"), False, timezone.now())

    (row,) = download(learner_client)["attempts.json"]

    answered, typed = sorted(row["slots"], key=lambda slot: slot["answered_at"] is None)
    assert answered["is_correct"] is False
    assert sum(choice["correct"] for choice in answered["shown_choices"]) == 1
    assert typed["answered_at"] is None
    assert typed["shown_choices"] == []  # a typed question's choices are its accepted answers
    assert "Paris" not in json.dumps(row)


# --- The learner's content reads back --------------------------------------------------------

def test_the_content_file_imports_back_as_the_same_sets_and_decks(learner, learner_client, alice_history, tmp_path):
    content = download(learner_client)["content.json"]
    charlie = make_user("charlie")

    path = tmp_path / "content.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    import_documents([path], owner=charlie)

    read_back = {
        "question_sets": list(export_entries(QuestionSet.objects.owned_by(charlie).order_by("title", "pk"))),
        "decks": list(export_entries(Deck.objects.owned_by(charlie).order_by("title", "pk"))),
    }
    assert read_back == content
    assert [entry["title"] for entry in content["question_sets"]] == ["alice's own set"]
    assert [len(entry["questions"]) for entry in content["question_sets"]] == [3]
    assert content["question_sets"][0]["questions"][2]["choices"][0]["weight"] == 50
    assert [(entry["title"], len(entry["cards"])) for entry in content["decks"]] == [("alice's own deck", 2)]


# --- Queries --------------------------------------------------------------------------------

def add_reviews(user, count):
    """`count` more log rows of one memory of the learner's: the history the download reads."""
    memory = MemoryState.objects.filter(user=user).first()
    start = timezone.now() - timedelta(days=count)
    ReviewLog.objects.bulk_create(
        ReviewLog(user=user, memory=memory, source="study", rating=3, reviewed_at=start + timedelta(days=n),
                  due_after=start + timedelta(days=n + 1), state_before={"stability": n})
        for n in range(count)
    )


@pytest.mark.parametrize("reviews, attempts", [(3, 1), (2500, 4)])
def test_the_queries_do_not_grow_with_the_history(learner, learner_client, alice_history, reviews, attempts,
                                                   django_assert_num_queries):
    add_reviews(learner, reviews)
    for _ in range(attempts - 1):
        answer_all(start_attempt(learner, alice_history))

    with django_assert_num_queries(
        AUTH
        + 1  # catch-up: anything to close or release?
        + 1  # the devices: the learner's sessions
        + 2  # the attempts, and their slots, read side by side
        + 1  # the review log
        + 1  # the memory states
        + 2  # the classes joined, the overrides
        + 3  # the schedule fits, the study days, the reminders sent
        + 2  # the LMS identities, the scores sent to LMSs
        + 4  # the learner's sets, with their questions, choices and topics
        + 3  # the learner's decks, with their cards and topics
    ):
        files = download(learner_client)

    assert len(files["reviews.json"]) == reviews + 11 + 3 * (attempts - 1)  # each attempt rates three answers
    assert len(files["attempts.json"]) == attempts + 1  # and the assignment's


def test_the_lms_identities_and_the_scores_sent_are_the_learners(learner, learner_client, other_learner):
    from django.utils import timezone
    from lti_tool.models import LtiRegistration, LtiUser

    from quiz.models import GradeSend

    platform = LtiRegistration.objects.create(name="Moodle", issuer="https://lms.example", client_id="tool",
                                              auth_url="https://lms.example/a", token_url="https://lms.example/t",
                                              keyset_url="https://lms.example/k")
    mine = LtiUser.objects.create(registration=platform, sub="u-1", name="Alice A", email="a@lms.example",
                                  auth_user=learner)
    LtiUser.objects.create(registration=platform, sub="u-2", name="Bob", auth_user=other_learner)
    teacher = make_instructor("teacher")
    assignment = make_assignment(make_classroom(teacher, learners=[learner, other_learner]))
    now = timezone.now()
    GradeSend.objects.create(assignment=assignment, learner=learner, score=80, status="submitted", changed_at=now)
    GradeSend.objects.create(assignment=assignment, learner=other_learner, score=10, status="submitted", changed_at=now)

    lms = download(learner_client)["lms.json"]

    assert [(row["platform"], row["user_id"], row["name"], row["email"]) for row in lms["identities"]] == [
        ("Moodle", "u-1", "Alice A", "a@lms.example")]
    assert lms["identities"][0]["id"] == mine.pk
    assert [(row["assignment_title"], row["score"], row["sent_at"]) for row in lms["grades_sent"]] == [
        (assignment.title, 80, None)]
