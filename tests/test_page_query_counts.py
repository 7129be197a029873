"""The remaining pages run the same small number of queries before and after the data grows
(a learner's history and a class both get much bigger)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from quiz.models import Attempt, Enrollment, MemoryState, ReviewLog, User
from quiz.study import answers, scheduling
from tests.class_factories import make_assignment, make_classroom, make_pool
from tests.factories import make_deck, make_question_set, start_attempt
from tests.helpers import AUTH, count_queries, logged_in, wrong_number


@pytest.fixture
def world(learner, teacher):
    classroom = make_classroom(teacher, learners=[learner])
    question_set = make_question_set(questions=3)
    assignment = make_assignment(classroom, make_pool(teacher, question_set.questions.all()),
                                 opens_at=timezone.now() - timedelta(days=1), due_at=timezone.now() + timedelta(days=1))
    attempt = Attempt.objects.create_with_slots(user=learner, questions=question_set.questions.all(),
                                                feedback="immediate", rng=__import__("random"), assignment=assignment)
    slot = attempt.slots.get(position=1)
    answers.submit_answer(attempt=attempt, slot=slot, number=wrong_number(slot))
    review = ReviewLog.objects.get(user=learner)
    scheduling.rate(user=learner, kind=MemoryState.Kind.CARD, item=make_deck(cards=1).cards.get(), rating=3,
                    source="study")  # one studied card, so lists start non-empty
    return {"classroom": classroom, "assignment": assignment, "attempt": attempt, "review": review, "learner": learner}


def grow(world, teacher):
    """Many more learners in the class, and a long history for the learner."""
    learner, classroom = world["learner"], world["classroom"]
    others = User.objects.bulk_create(User(username=f"grown{n}") for n in range(200))
    Enrollment.objects.bulk_create(Enrollment(classroom=classroom, learner=u) for u in others)
    deck = make_deck(cards=30)
    for card in deck.cards.all():
        for day in range(20):
            scheduling.rate(user=learner, kind=MemoryState.Kind.CARD, item=card, rating=3, source="study",
                            now=timezone.now() - timedelta(days=40 - day))
    for _ in range(10):
        attempt = start_attempt(learner, make_question_set(questions=3))
        attempt.finish()


# Each page: who opens it, its URL arguments, and its exact query count after the session and
# user lookups (AUTH), with a comment naming each query.
PAGES = {
    "study_settings": ("learner", lambda w: [], 2),  # the latest schedule fit; calibration bins (the form's time zones come from Python)
    "join_class": ("learner", lambda w: [], 0),
    "review_answer": ("learner", lambda w: [w["review"].pk], 1),  # the log row, its item and what it showed
    "card_history": ("learner", lambda w: [], 2),  # paginator count; one page of cards with decks
    "attempt_results": ("learner", None, 3),  # attempt with set and user; slots with questions; their topics
    # assignment; learners to pick; overrides; its LMS gradebook column (none here: no scores listed)
    "assignment": ("teacher", lambda w: [w["assignment"].pk], 4),
    "new_assignment": ("teacher", lambda w: [w["classroom"].pk], 3),  # classroom; is there one pool only (chosen); pools to pick from
    # assignment; learner; any expired attempt to close; the attempts
    "learner_attempts": ("teacher", lambda w: [w["assignment"].pk, w["learner"].pk], 4),
    # expired, to close?; the attempt; its slots with questions
    "instructor_attempt_review": ("teacher", lambda w: [w["attempt"].pk], 3),
}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_query_count_does_not_grow(world, teacher, name):
    who, args, queries = PAGES[name]
    if name == "attempt_results":
        world["attempt"].finish()
        args = lambda w: [w["attempt"].pk]  # noqa: E731
    user = world["learner"] if who == "learner" else teacher
    url = reverse(name, args=args(world))

    before = count_queries(logged_in(user), url, ok=(200,))
    grow(world, teacher)
    after = count_queries(logged_in(user), url, ok=(200,))

    assert before == after == AUTH + queries
