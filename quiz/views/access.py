"""Who may open what: scoped fetches that answer 404 for anything the user may not see, and
the instructor role check (403 for learners)."""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import FilteredRelation, OuterRef, Q
from django.shortcuts import get_object_or_404

from quiz.models import Assignment, Attempt, AttemptSlot, Classroom, QuestionPool, User, count_of


def own_attempt_or_404(request, attempt_id):
    """The signed-in learner's own attempt: nobody else's attempts exist for them."""
    return get_object_or_404(
        Attempt.objects.for_user(request.user).select_related("question_set", "user"), pk=attempt_id
    )


def own_slot_or_404(request, attempt_id, position, *, answering=False):
    """One question of the learner's own attempt, with the attempt, in one query; 404 for
    anyone else's attempt or a position outside it.

    `answering` (a POST) also reads how many questions are left open and the learner's memory
    of this question (`slot.memory`, None when new), so recording and rating the answer need
    no read of their own."""
    slots = AttemptSlot.objects.select_related("attempt__question_set", "attempt__user", "question")
    if answering:
        open_slots = AttemptSlot.objects.filter(attempt=OuterRef("attempt"), answered_at__isnull=True)
        memory = FilteredRelation("question__memories", condition=Q(question__memories__user=request.user))
        slots = slots.annotate(unanswered_in_attempt=count_of(open_slots), memory=memory).select_related("memory")
    slot = get_object_or_404(slots, attempt_id=attempt_id, attempt__user=request.user, position=position)
    if answering:
        slot.memory = getattr(slot, "memory", None)  # the outer join sets nothing when there is no row
    return slot


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
