"""Who may open what: scoped fetches that answer 404 for anything the user may not see, and
the instructor role check (403 for learners)."""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef
from django.shortcuts import get_object_or_404

from quiz.models import (
    Assignment,
    Attempt,
    AttemptSlot,
    Card,
    Classroom,
    Deck,
    Question,
    QuestionPool,
    QuestionSet,
    User,
    count_of,
)


def own_attempt_or_404(request, attempt_id):
    """The signed-in learner's own attempt: nobody else's attempts exist for them."""
    return get_object_or_404(
        Attempt.objects.for_user(request.user).select_related("question_set", "user"), pk=attempt_id
    )


def own_slot_or_404(request, attempt_id, position):
    """One question of the learner's own attempt, with the attempt, in one query; 404 for
    anyone else's attempt or a position outside it."""
    open_slots = AttemptSlot.objects.filter(attempt=OuterRef("attempt"), answered_at__isnull=True)
    slots = AttemptSlot.objects.select_related("attempt__question_set", "attempt__user", "question").annotate(
        unanswered_in_attempt=count_of(open_slots)  # so answering knows, without a query, if this is the last
    )
    return get_object_or_404(slots, attempt_id=attempt_id, attempt__user=request.user, position=position)


# The editor's fetches: only the user's own content, never the library (the admin edits it)
# nor what others share; a retired item is not editable.

def own_set_or_404(request, set_id):
    return get_object_or_404(QuestionSet.objects.owned_by(request.user), pk=set_id)


def own_deck_or_404(request, deck_id):
    return get_object_or_404(Deck.objects.owned_by(request.user), pk=deck_id)


def own_question_or_404(request, question_id):
    questions = Question.objects.current().filter(question_set__in=QuestionSet.objects.owned_by(request.user))
    return get_object_or_404(questions.select_related("question_set"), pk=question_id)


def own_card_or_404(request, card_id):
    cards = Card.objects.current().filter(deck__in=Deck.objects.owned_by(request.user))
    return get_object_or_404(cards.select_related("deck"), pk=card_id)


def instructor_required(view):
    @login_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_instructor:
            raise PermissionDenied("Only instructors can open this page.")
        return view(request, *args, **kwargs)

    return wrapper


def own_classroom_or_404(request, classroom_id):
    return get_object_or_404(Classroom.objects.owned_by(request.user), pk=classroom_id)


def own_assignment_or_404(request, assignment_id):
    assignments = Assignment.objects.owned_by(request.user).select_related("classroom", "pool")
    return get_object_or_404(assignments, pk=assignment_id)


def own_pool_or_404(request, pool_id):
    return get_object_or_404(QuestionPool.objects.filter(owner=request.user), pk=pool_id)


def learner_in_class_or_404(classroom, learner_id):
    return get_object_or_404(User.objects.filter(enrollments__classroom=classroom), pk=learner_id)
