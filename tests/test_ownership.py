"""Who sees which content: the shared library, private sets and decks, sharing with one's
classes or with everyone; and imports that belong to whoever imported them."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError
from django.urls import reverse
from django.utils import timezone

from quiz.content.importing import import_documents
from quiz.models import Assignment, AssignmentOverride, Attempt, Deck, Question, QuestionSet, SourceDocument, Visibility
from quiz.progress.mastery import memory_summary
from quiz.study import scheduling
from quiz.study.queue import Scope, next_entry
from tests.class_factories import make_assignment, make_classroom, make_instructor, make_pool
from tests.factories import make_deck, make_question_set, make_topic, make_user
from tests.importing import QUIZ


@pytest.fixture
def people(db):
    teacher = make_instructor("teacher")
    other_teacher = make_instructor("other_teacher")
    student = make_user("student")
    stranger = make_user("stranger")  # in another instructor's class
    make_classroom(teacher, learners=[student])
    make_classroom(other_teacher, name="Elsewhere", learners=[stranger])
    return {"teacher": teacher, "other_teacher": other_teacher, "student": student, "stranger": stranger}


def visible_titles(model, user):
    return set(model.objects.visible_to(user).values_list("title", flat=True))


@pytest.mark.parametrize("model, make", [(QuestionSet, make_question_set), (Deck, make_deck)])
def test_each_actor_sees_the_library_their_own_and_what_is_shared_with_them(people, model, make):
    teacher, student = people["teacher"], people["student"]
    make("Library")
    make("Teacher private", owner=teacher)
    make("Teacher to classes", owner=teacher, visibility=Visibility.CLASSES)
    make("Teacher to everyone", owner=teacher, visibility=Visibility.EVERYONE)
    make("Student private", owner=student)

    assert visible_titles(model, teacher) == {"Library", "Teacher private", "Teacher to classes", "Teacher to everyone"}
    assert visible_titles(model, student) == {"Library", "Teacher to classes", "Teacher to everyone", "Student private"}
    # A learner of another instructor's class, and an instructor, see neither private content nor
    # what the teacher shares with their own classes.
    assert visible_titles(model, people["stranger"]) == {"Library", "Teacher to everyone"}
    assert visible_titles(model, people["other_teacher"]) == {"Library", "Teacher to everyone"}
    assert visible_titles(model, AnonymousUser()) == {"Library"}


def test_the_library_is_always_shared_and_owned_content_starts_private(people):
    library = make_question_set("Library", visibility=Visibility.PRIVATE)
    mine = make_question_set("Mine", owner=people["student"])

    assert library.visibility == Visibility.EVERYONE
    assert mine.visibility == Visibility.PRIVATE
    with pytest.raises(IntegrityError):
        QuestionSet.objects.filter(pk=library.pk).update(visibility=Visibility.PRIVATE)


def test_two_people_import_the_same_file_name_into_content_of_their_own(people, tmp_path):
    copy = tmp_path / QUIZ.name
    copy.write_bytes(QUIZ.read_bytes())
    import_documents([copy], owner=people["student"])
    import_documents([copy], owner=people["teacher"])
    import_documents([copy])  # the library's
    again = import_documents([copy], owner=people["student"])

    assert SourceDocument.objects.filter(file_name=QUIZ.name).count() == 3
    assert sorted(QuestionSet.objects.values_list("owner__username", flat=True), key=str) == [None, "student", "teacher"]
    assert not again.outcomes[0].changed  # the student's second import changes their own set only
    assert list(QuestionSet.objects.visible_to(people["stranger"])) == [QuestionSet.objects.get(owner=None)]


# --- Every page shows only what its user may see ----------------------------------------------------

@pytest.fixture
def private_content(people):
    """The student's private deck and set, and the teacher's set shared with their classes."""
    topic = make_topic("Secret topic")
    deck = make_deck("Student deck", owner=people["student"])
    question_set = make_question_set("Student set", owner=people["student"])
    for item in (*deck.cards.all(), *question_set.questions.all()):
        item.topics.add(topic)
    shared = make_question_set("Class set", owner=people["teacher"], visibility=Visibility.CLASSES)
    return {"deck": deck, "set": question_set, "shared": shared, "topic": topic}


def signed_in(client, user):
    client.force_login(user)
    return client


@pytest.mark.parametrize("name", ["deck", "study_deck", "drill"])
def test_another_learners_private_deck_answers_404(client, people, private_content, name):
    deck = private_content["deck"]
    assert signed_in(client, people["stranger"]).get(reverse(name, args=[deck.pk])).status_code == 404
    assert signed_in(client, people["student"]).get(reverse(name, args=[deck.pk])).status_code == 200


def test_another_learners_private_card_answers_404(client, people, private_content):
    card = private_content["deck"].cards.first()
    assert signed_in(client, people["stranger"]).get(reverse("card_info", args=[card.pk])).status_code == 404
    assert signed_in(client, people["student"]).get(reverse("card_info", args=[card.pk])).status_code == 200


def test_home_lists_only_what_each_learner_may_see(client, people, private_content):
    stranger_home = signed_in(client, people["stranger"]).get(reverse("home")).content.decode()
    student_home = signed_in(client, people["student"]).get(reverse("home")).content.decode()

    assert "Student deck" not in stranger_home and "Student set" not in stranger_home
    assert "Class set" not in stranger_home
    assert "Student deck" in student_home and "Student set" in student_home and "Class set" in student_home


def test_a_topic_quiz_draws_only_on_visible_questions(client, people, private_content):
    topic = private_content["topic"]  # tags only the student's private items
    response = signed_in(client, people["stranger"]).post(reverse("topic_quiz", args=[topic.pk]))

    assert response.status_code == 404  # its name is not even told
    assert not Attempt.objects.filter(user=people["stranger"]).exists()
    assert signed_in(client, people["student"]).post(reverse("topic_quiz", args=[topic.pk])).status_code == 302


def test_the_bank_and_a_pool_take_only_questions_their_instructor_may_see(client, people, private_content):
    pool = make_pool(people["other_teacher"], questions=[])
    page = signed_in(client, people["other_teacher"]).get(reverse("pool", args=[pool.pk])).content.decode()
    others = [*private_content["set"].questions.all(), *private_content["shared"].questions.all()]
    pool.add_questions([question.pk for question in others])

    assert "Student set" not in page and "Class set" not in page
    assert "Secret topic" not in page  # a topic of private items only is not offered as a filter
    assert not pool.entries.exists()
    make_pool(people["teacher"], questions=[]).add_questions([q.pk for q in private_content["shared"].questions.all()])
    assert people["teacher"].question_pools.get(title="Week 1 quiz").entries.count() == 3


def test_the_history_filter_lists_only_visible_sets(client, people, private_content):
    page = signed_in(client, people["stranger"]).get(reverse("attempt_list")).content.decode()
    assert "Student set" not in page and "Class set" not in page


# --- Answers held back by an assignment are not given away by practice ----------------------------

@pytest.fixture
def held_assignment(people):
    """The teacher's own set, shared with the class, in an assignment that shows answers after
    its due date (tomorrow); and a library set in the same pool."""
    own = make_question_set("Teacher set", owner=people["teacher"], visibility=Visibility.CLASSES)
    library = make_question_set("Library set")
    pool = make_pool(people["teacher"], questions=[*own.questions.all(), library.questions.first()])
    classroom = people["teacher"].classrooms.get()
    now = timezone.now()
    assignment = make_assignment(
        classroom, pool, opens_at=now - timedelta(days=1), due_at=now + timedelta(days=1),
        feedback_timing=Assignment.FeedbackTiming.AFTER_DUE,
    )
    return {"own": own, "library": library, "assignment": assignment}


def test_the_instructors_own_questions_are_held_back_from_their_learners_until_the_due_date(people, held_assignment):
    own = held_assignment["own"]
    now = timezone.now()
    held = set(Question.objects.held_back_from(people["student"], now))

    assert held == set(own.questions.all())  # not the library question, which anyone can practise
    assert not Question.objects.held_back_from(people["stranger"], now).exists()  # not in the class
    assert not Question.objects.held_back_from(people["student"], now + timedelta(days=2)).exists()  # after the due date
    AssignmentOverride.objects.create(
        assignment=held_assignment["assignment"], learner=people["student"], due_at=now + timedelta(days=3)
    )
    assert set(Question.objects.held_back_from(people["student"], now + timedelta(days=2))) == held  # an extension


def test_held_questions_cannot_be_practised_from_the_home_a_topic_or_the_review_queue(client, people, held_assignment):
    own = held_assignment["own"]
    topic = make_topic("Routing")
    for question in own.questions.all():
        question.topics.add(topic)
        scheduling.rate(user=people["student"], kind="question", item=question, rating=1, source="review",
                        now=timezone.now() - timedelta(days=30))  # due again long before the assignment's due date
    client.force_login(people["student"])

    home = client.get(reverse("home")).content.decode()
    client.post(reverse("topic_quiz", args=[topic.pk]))

    assert 'data-testid="practice-held"' in home
    assert not Attempt.objects.filter(user=people["student"]).exists()
    scope = Scope(kinds=("question",), include_new=False)
    assert next_entry(user=people["student"], scope=scope, now=timezone.now()) is None
    after_due = next_entry(user=people["student"], scope=scope, now=timezone.now() + timedelta(days=2))
    assert after_due is not None and after_due.item.question_set == own


def test_the_homes_figures_leave_the_held_questions_out_until_the_due_date(client, people, held_assignment):
    # The home reads the held questions once, as a list, for its lists and every figure.
    student, own = people["student"], held_assignment["own"]
    for question in own.questions.all():
        scheduling.rate(user=student, kind="question", item=question, rating=1, source="review",
                        now=timezone.now() - timedelta(days=30))
    assert set(Question.objects.held_back_ids(student, timezone.now())) == set(own.questions.values_list("pk", flat=True))
    client.force_login(student)

    context = client.get(reverse("home")).context

    assert (context["due_count"], context["summary"].sets, context["summary"].topics) == (0, [], [])
    later = memory_summary(user=student, now=timezone.now() + timedelta(days=2))
    assert later.due_now == own.questions.count() and [m.key for m in later.sets] == [own.pk]


def test_the_assignment_page_says_which_questions_stay_open_to_practice(client, people, held_assignment):
    client.force_login(people["teacher"])
    page = client.get(reverse("assignment", args=[held_assignment["assignment"].pk])).content.decode()

    assert "1 question of this pool" in page and "is not yours" in page


def test_held_questions_leave_the_dashboard_figures_and_an_instructor_learners_downloads(client, people, held_assignment):
    from quiz.progress.mastery import memory_summary

    own = held_assignment["own"]
    for question in own.questions.all():
        scheduling.rate(user=people["student"], kind="question", item=question, rating=1, source="review",
                        now=timezone.now() - timedelta(days=30))
    summary = memory_summary(user=people["student"], now=timezone.now())
    assert (summary.due_now, summary.mistakes, summary.sets) == (0, 0, [])

    colleague = people["other_teacher"]
    people["teacher"].classrooms.get().join(colleague)  # an instructor learning in a colleague's class
    client.force_login(colleague)
    own.visibility = Visibility.EVERYONE
    own.save()
    assert client.get(reverse("download_set", args=[own.pk, "gift"])).status_code == 404
    assert client.get(reverse("download_set", args=[held_assignment["library"].pk, "gift"])).status_code == 200


def test_a_practice_quiz_cannot_start_on_a_private_or_held_set_nor_answer_a_held_question(client, people, held_assignment, private_content):
    from tests.factories import start_attempt
    from tests.helpers import question_url

    stranger = signed_in(client, people["stranger"])
    assert stranger.post(reverse("start_attempt", args=[private_content["set"].pk])).status_code == 404

    student = people["student"]
    own = held_assignment["own"]
    begun_before = start_attempt(student, own)  # a practice attempt opened before the assignment
    client.force_login(student)
    refused = client.post(reverse("start_attempt", args=[own.pk]))
    slot = begun_before.slots.order_by("position").first()
    answer = client.post(question_url(begun_before, slot.position), {"choice": "1"})

    assert refused.status_code == 302 and refused.url == reverse("home")
    assert Attempt.objects.filter(user=student).count() == 1
    assert answer.status_code == 403
    slot.refresh_from_db()
    assert slot.answered_at is None  # nothing recorded, no feedback shown


def test_an_archived_class_shares_nothing_and_holds_nothing_back(people, held_assignment):
    classroom = people["teacher"].classrooms.get()
    now = timezone.now()
    assert Question.objects.held_back_from(people["student"], now).exists()
    assert QuestionSet.objects.visible_to(people["student"]).filter(pk=held_assignment["own"].pk).exists()

    classroom.archive()

    assert not Question.objects.held_back_from(people["student"], now).exists()
    assert not QuestionSet.objects.visible_to(people["student"]).filter(pk=held_assignment["own"].pk).exists()
    classroom.restore()
    assert Question.objects.held_back_from(people["student"], now).exists()
