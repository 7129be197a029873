"""Classes and the question-pool builder: instructor role, join codes, removing learners,
building pools from the bank, creating assignments and overrides."""

import re
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from quiz.models import (
    Assignment,
    AssignmentOverride,
    Classroom,
    Enrollment,
    QuestionPool,
    Topic,
    User,
)
from tests.class_factories import (
    make_assignment,
    make_classroom,
    make_instructor,
    make_pool,
)
from tests.factories import make_question_set, make_user

# --- The instructor role ---------------------------------------------------------------------------

def test_grant_instructor_gives_and_takes_the_role(db):
    make_user("dana")

    call_command("grant_instructor", "dana", stdout=open("/dev/null", "w"))
    assert User.objects.get(username="dana").is_instructor

    call_command("grant_instructor", "dana", "--revoke", stdout=open("/dev/null", "w"))
    assert not User.objects.get(username="dana").is_instructor


def test_grant_instructor_refuses_an_unknown_user(db):
    with pytest.raises(CommandError, match="No user named 'ghost'"):
        call_command("grant_instructor", "ghost")


def test_the_teach_link_shows_only_for_instructors(teacher_client, learner_client):
    assert reverse("teach_home") in teacher_client.get(reverse("my_classes")).content.decode()
    assert reverse("teach_home") not in learner_client.get(reverse("my_classes")).content.decode()


# --- Classes and joining ------------------------------------------------------------------------------

def test_an_instructor_creates_a_class_with_a_join_code(teacher_client, teacher):
    response = teacher_client.post(reverse("create_classroom"), {"name": "GPU ops"})

    classroom = Classroom.objects.get(owner=teacher)
    assert response.url == classroom.get_absolute_url()
    assert re.fullmatch(r"[A-Z2-9]{8}", classroom.join_code)
    html = teacher_client.get(response.url).content.decode()
    assert classroom.join_code in html
    assert reverse("join_class_with_code", args=[classroom.join_code]) in html


def test_a_class_needs_a_name(teacher_client, teacher):
    response = teacher_client.post(reverse("create_classroom"), {"name": ""}, follow=True)

    assert response.status_code == 200
    assert "This field is required." in response.content.decode()
    assert not Classroom.objects.exists()


def test_a_learner_joins_with_the_code_typed_loosely(learner_client, learner, teacher):
    classroom = make_classroom(teacher)
    typed = " " + classroom.join_code[:4].lower() + "-" + classroom.join_code[4:] + " "

    response = learner_client.post(reverse("join_class"), {"code": typed}, follow=True)

    assert Enrollment.objects.filter(classroom=classroom, learner=learner).exists()
    assert f"You joined {classroom.name}" in response.content.decode()


def test_the_join_link_fills_in_the_code(learner_client, teacher):
    classroom = make_classroom(teacher)

    html = learner_client.get(reverse("join_class_with_code", args=[classroom.join_code])).content.decode()

    assert f'value="{classroom.join_code}"' in html


def test_a_wrong_code_is_refused_with_a_message(learner_client, learner):
    response = learner_client.post(reverse("join_class"), {"code": "NOPE2345"})

    assert response.status_code == 400
    assert "No class has that code" in response.content.decode()
    assert not Enrollment.objects.exists()


def test_joining_twice_enrolls_once(learner_client, learner, teacher):
    classroom = make_classroom(teacher)
    for _ in range(2):
        learner_client.post(reverse("join_class"), {"code": classroom.join_code})

    assert Enrollment.objects.filter(learner=learner).count() == 1


def test_a_learner_can_be_in_several_classes(learner, teacher):
    for name in ("A", "B"):
        make_classroom(teacher, name=name, learners=[learner])

    assert Classroom.objects.joined_by(learner).count() == 2


def test_a_new_code_replaces_the_old_one(teacher_client, teacher, learner_client):
    classroom = make_classroom(teacher)
    old = classroom.join_code

    teacher_client.post(reverse("new_join_code", args=[classroom.pk]))

    classroom.refresh_from_db()
    assert classroom.join_code != old
    assert learner_client.post(reverse("join_class"), {"code": old}).status_code == 400


def test_removing_a_learner_takes_away_the_classes_assignments(teacher_client, teacher, learner, learner_client):
    classroom = make_classroom(teacher, learners=[learner])
    assignment = make_assignment(classroom)

    teacher_client.post(reverse("remove_learner", args=[classroom.pk, learner.pk]))

    assert not Enrollment.objects.exists()
    assert learner_client.get(reverse("learner_assignment", args=[assignment.pk])).status_code == 404


def test_removing_someone_not_in_the_class_is_a_404(teacher_client, teacher, other_learner):
    classroom = make_classroom(teacher)

    assert teacher_client.post(reverse("remove_learner", args=[classroom.pk, other_learner.pk])).status_code == 404


# --- Quiz-set builder ---------------------------------------------------------------------------------

def test_building_a_pool_from_the_bank(teacher_client, teacher):
    bank = make_question_set(questions=4)
    first, second, third, _ = bank.questions.order_by("position")
    teacher_client.post(reverse("new_pool"), {"title": "Mix"})
    pool = QuestionPool.objects.get(owner=teacher)
    add = reverse("pool_add", args=[pool.pk])

    teacher_client.post(add, {"question": [third.pk, first.pk]})
    teacher_client.post(add, {"question": [second.pk, first.pk]})  # first is already in: not twice

    entries = list(pool.entries.order_by("position").values_list("question", flat=True))
    assert entries == [first.pk, third.pk, second.pk]


def test_moving_and_removing_entries(teacher_client, teacher):
    pool = make_pool(teacher)
    first, second, third = pool.entries.order_by("position")
    url = lambda entry: reverse("pool_entry", args=[pool.pk, entry.pk])  # noqa: E731

    teacher_client.post(url(third), {"action": "up"})
    teacher_client.post(url(first), {"action": "remove"})

    order = list(pool.entries.order_by("position").values_list("pk", "position"))
    assert order == [(third.pk, 1), (second.pk, 2)]


def test_the_bank_filters_by_set_topic_and_text(teacher_client, teacher):
    pool = make_pool(teacher, questions=[])
    wanted = make_question_set("Networking", questions=2)
    other = make_question_set("Storage", questions=2)
    topic = Topic.objects.create(name="RDMA")
    tagged = wanted.questions.get(position=2)
    tagged.topics.add(topic)
    tagged.stem = "What does GPUDirect RDMA bypass?"
    tagged.save()
    url = reverse("pool", args=[pool.pk])

    by_set = teacher_client.get(url, {"question_set": wanted.pk}).content.decode()
    by_topic = teacher_client.get(url, {"topic": topic.pk}).content.decode()
    by_text = teacher_client.get(url, {"q": "gpudirect"}).content.decode()

    assert "Storage" not in by_set.split('id="bank-heading"')[1].split("</form>", 1)[1]
    assert by_topic.count('name="question" value=') == 1 and tagged.stem in by_topic
    assert by_text.count('name="question" value=') == 1
    assert other.questions.first().stem not in by_text


def test_a_random_draw_count_is_saved(teacher_client, teacher):
    pool = make_pool(teacher)

    teacher_client.post(reverse("pool", args=[pool.pk]), {"title": pool.title, "draw_count": 2})

    pool.refresh_from_db()
    assert pool.draw_count == 2


# --- Assignments -----------------------------------------------------------------------------------------

def assignment_data(pool, **changes):
    return {
        "pool": pool.pk, "title": "", "opens_at": "2026-06-01T09:00", "due_at": "2026-06-08T17:00",
        "time_limit": "20", "max_attempts": "2", "grading": "best", "shuffle": "on",
        "feedback_timing": "after_attempt", **changes,
    }


def test_assigning_a_pool_with_rules(teacher_client, teacher):
    teacher.time_zone = "Europe/Paris"
    teacher.save()
    classroom = make_classroom(teacher)
    pool = make_pool(teacher)

    response = teacher_client.post(reverse("new_assignment", args=[classroom.pk]), assignment_data(pool))

    assignment = Assignment.objects.get()
    assert response.url == reverse("assignment", args=[assignment.pk])
    assert assignment.title == pool.title
    assert assignment.time_limit == timedelta(minutes=20)
    assert (assignment.max_attempts, assignment.grading, assignment.shuffle) == (2, "best", True)
    assert assignment.opens_at.isoformat() == "2026-06-01T07:00:00+00:00"  # 09:00 in Paris (summer time)


@pytest.mark.parametrize("changes, message", [
    ({"due_at": "2026-05-01T09:00"}, "must be after the opening date"),
    ({"opens_at": "yesterday"}, "Enter a valid date/time"),
    ({"time_limit": "0"}, "greater than or equal to 1"),
])
def test_an_assignment_with_bad_rules_is_refused(teacher_client, teacher, changes, message):
    classroom = make_classroom(teacher)
    pool = make_pool(teacher)

    response = teacher_client.post(reverse("new_assignment", args=[classroom.pk]), assignment_data(pool, **changes))

    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Assignment.objects.exists()


def test_another_instructors_pool_cannot_be_assigned(teacher_client, teacher):
    classroom = make_classroom(teacher)
    foreign = make_pool(make_instructor("other_teacher"))

    response = teacher_client.post(reverse("new_assignment", args=[classroom.pk]), assignment_data(foreign))

    assert response.status_code == 400
    assert not Assignment.objects.exists()


def test_an_override_for_a_learner(teacher_client, teacher, learner):
    classroom = make_classroom(teacher, learners=[learner])
    assignment = make_assignment(classroom)

    teacher_client.post(reverse("assignment", args=[assignment.pk]), {"learner": learner.pk, "time_limit": "45"})

    override = AssignmentOverride.objects.get()
    assert (override.learner, override.time_limit, override.due_at) == (learner, timedelta(minutes=45), None)


def test_an_override_that_changes_nothing_is_refused(teacher_client, teacher, learner):
    classroom = make_classroom(teacher, learners=[learner])
    assignment = make_assignment(classroom)

    response = teacher_client.post(reverse("assignment", args=[assignment.pk]), {"learner": learner.pk})

    assert response.status_code == 400
    assert not AssignmentOverride.objects.exists()


def test_an_override_only_for_learners_of_the_class(teacher_client, teacher, other_learner):
    assignment = make_assignment(make_classroom(teacher))

    response = teacher_client.post(reverse("assignment", args=[assignment.pk]), {"learner": other_learner.pk, "max_attempts": 3})

    assert response.status_code == 400
    assert not AssignmentOverride.objects.exists()


def test_a_learner_sees_and_starts_their_assignment(learner_client, learner, teacher):
    classroom = make_classroom(teacher, learners=[learner])
    assignment = make_assignment(classroom, opens_at=classroom.created_at - timedelta(days=1),
                                 due_at=classroom.created_at + timedelta(days=30))

    page = learner_client.get(reverse("learner_assignment", args=[assignment.pk])).content.decode()
    response = learner_client.post(reverse("start_assignment", args=[assignment.pk]))

    assert "Not started" in page
    attempt = learner.attempts.get()
    assert response.url == reverse("attempt", args=[attempt.pk])
    assert attempt.assignment == assignment
    assert assignment.title in learner_client.get(reverse("my_classes")).content.decode()


def test_due_dates_are_shown_in_the_learners_time_zone(learner_client, learner, teacher):
    learner.time_zone = "Asia/Tokyo"
    learner.save()
    classroom = make_classroom(teacher, learners=[learner])
    assignment = make_assignment(classroom)  # due 2026-05-05 10:00 UTC

    html = learner_client.get(reverse("learner_assignment", args=[assignment.pk])).content.decode()

    assert "Tue 5 May 2026, 19:00" in html  # 19:00 in Tokyo


def test_paging_the_bank_keeps_its_filters(teacher_client, teacher):
    pool = make_pool(teacher, questions=[])
    wanted = make_question_set("Networking", questions=25)
    make_question_set("Storage", questions=25)

    html = teacher_client.get(reverse("pool", args=[pool.pk]), {"question_set": wanted.pk}).content.decode()

    assert f"?question_set={wanted.pk}&amp;page=2" in html


@pytest.mark.parametrize("value", ["²", "99999999999999999999999", "-1", "x"])
def test_adding_odd_question_ids_adds_nothing_and_is_not_an_error(teacher_client, teacher, value):
    pool = make_pool(teacher, questions=[])

    response = teacher_client.post(reverse("pool_add", args=[pool.pk]), {"question": value})

    assert response.status_code == 302
    assert not pool.entries.exists()


@pytest.mark.parametrize("changes, message", [
    ({"due_at": "9999-12-31T23:59"}, "between the years 1900 and 9998"),
    ({"opens_at": "0001-01-01T00:00"}, "between the years 1900 and 9998"),
    ({"max_attempts": "0"}, "greater than or equal to 1"),
])
def test_assignment_limits_are_refused_with_a_message(teacher_client, teacher, changes, message):
    teacher.time_zone = "America/New_York"
    teacher.save()
    classroom = make_classroom(teacher)

    response = teacher_client.post(
        reverse("new_assignment", args=[classroom.pk]), assignment_data(make_pool(teacher), **changes)
    )

    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Assignment.objects.exists()


def test_an_empty_pool_cannot_be_assigned(teacher_client, teacher):
    classroom = make_classroom(teacher)

    response = teacher_client.post(
        reverse("new_assignment", args=[classroom.pk]), assignment_data(make_pool(teacher, questions=[]))
    )

    assert response.status_code == 400
    assert "no questions yet" in response.content.decode()


def test_a_class_name_too_long_gets_its_own_message(teacher_client):
    response = teacher_client.post(reverse("create_classroom"), {"name": "x" * 300}, follow=True)

    assert "at most 200 characters" in response.content.decode()
    assert not Classroom.objects.exists()


def test_the_assignment_form_chooses_the_only_pool_and_none_of_several(teacher_client, teacher):
    classroom = make_classroom(teacher)
    only = make_pool(teacher)
    url = reverse("new_assignment", args=[classroom.pk])

    assert f'<option value="{only.pk}" selected>' in teacher_client.get(url).content.decode()
    make_pool(teacher)
    assert f'<option value="{only.pk}" selected>' not in teacher_client.get(url).content.decode()
