"""Who may open what: scoped fetches that answer 404 for anything the user may not see, and
the instructor role check (403 for learners)."""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, Subquery
from django.shortcuts import get_object_or_404

from quiz.models import Assignment, Attempt, AttemptSlot, Card, Classroom, Deck, Question, QuestionPool, QuestionSet, User


def own_attempt_or_404(request, attempt_id, *, scored=False):
    """The signed-in learner's own attempt: nobody else's attempts exist for them. `scored`
    also reads what its score leaves out (questions excluded by the instructor)."""
    attempts = Attempt.objects.for_user(request.user).select_related("question_set", "user")
    return get_object_or_404(attempts.with_exclusions() if scored else attempts, pk=attempt_id)


def own_slot_or_404(request, attempt_id, position):
    """One question of the learner's own attempt, with the attempt, its set and the question,
    in one query; 404 for anyone else's attempt or a position outside it."""
    slots = AttemptSlot.objects.select_related("attempt__question_set", "question")
    slot = get_object_or_404(slots, attempt__user=request.user, attempt_id=attempt_id, position=position)
    slot.attempt.user = request.user  # the same row: answering needs no read of its own
    return slot


def own_attempt_with_next_or_404(request, attempt_id):
    """The learner's own attempt, with `next_open_position` (None when every question is
    answered); 404 for anyone else's."""
    first_open = AttemptSlot.objects.filter(attempt=OuterRef("pk"), answered_at__isnull=True).order_by("position")
    attempts = Attempt.objects.for_user(request.user).select_related("question_set")
    attempts = attempts.annotate(next_open_position=Subquery(first_open.values("position")[:1]))
    return get_object_or_404(attempts, pk=attempt_id)


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
