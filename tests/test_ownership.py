"""Who sees which content: the shared library, private sets and decks, sharing with one's
classes or with everyone; and imports that belong to whoever imported them."""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError

from quiz.content.importing import import_documents
from quiz.models import Deck, QuestionSet, SourceDocument, Visibility
from tests.class_factories import make_classroom, make_instructor
from tests.factories import make_deck, make_question_set, make_user
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
