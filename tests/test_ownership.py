"""Who sees which content: the shared library, private sets and decks, sharing with one's
classes or with everyone; and imports that belong to whoever imported them."""


import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError
from django.urls import reverse

from quiz.content.importing import import_documents
from quiz.models import Attempt, Deck, QuestionSet, SourceDocument, Visibility
from tests.class_factories import make_classroom, make_instructor, make_pool
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


def test_a_practice_quiz_cannot_start_on_another_learners_private_set(client, people, private_content):
    stranger = signed_in(client, people["stranger"])
    assert stranger.post(reverse("start_attempt", args=[private_content["set"].pk])).status_code == 404
    assert not Attempt.objects.filter(user=people["stranger"]).exists()
