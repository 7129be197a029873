"""Classes and assignments as a learner meets them: join with a code, see an assignment
and its rules, start (or resume) an attempt within them."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from quiz.forms import JoinClassForm
from quiz.study.catch_up import catch_up_learner
from quiz.teaching import rules


@require_http_methods(["GET", "POST"])
@login_required
def join_class(request, code=""):
    form = JoinClassForm(request.POST or None, initial={"code": code})
    if request.method == "POST" and form.is_valid():
        classroom = form.cleaned_data["code"]
        if classroom.join(request.user):
            messages.success(request, f"You joined {classroom.name}.")
        else:
            messages.info(request, f"You are already in {classroom.name}.")
        return redirect("my_classes")
    return render(request, "quiz/join_class.html", {"form": form}, status=400 if form.errors else 200)


@require_safe
@login_required
def my_classes(request):
    catch_up_learner(request.user)
    seen = rules.learner_assignments(user=request.user)
    classrooms = (
        request.user.enrollments.filter(classroom__archived_at__isnull=True)
        .select_related("classroom__owner")
        .order_by("classroom__name", "classroom_id")
    )
    return render(request, "quiz/my_classes.html", {"assignments": seen, "enrollments": classrooms})


def _seen_or_404(request, assignment_id):
    """The assignment as this learner sees it, or 404 if it is not in one of their classes."""
    seen = rules.get_learner_assignment(user=request.user, assignment_id=assignment_id)
    if seen is None:
        raise Http404("No such assignment in your classes.")
    return seen


@require_safe
@login_required
def learner_assignment(request, assignment_id):
    now = timezone.now()
    catch_up_learner(request.user, now=now)  # after the due date, answers are released
    seen = _seen_or_404(request, assignment_id)
    context = {"seen": seen, "attempts": seen.attempts, "counted": seen.standing.score, "now": now}
    context["scores_visible"] = all(attempt.answers_visible(now) for attempt in seen.attempts)
    return render(request, "quiz/learner_assignment.html", context)


@require_POST
@login_required
def start_assignment(request, assignment_id):
    catch_up_learner(request.user)  # an attempt whose time ran out no longer counts as open
    seen = _seen_or_404(request, assignment_id)
    try:
        attempt = rules.start_attempt(user=request.user, seen=seen)
    except rules.RuleViolation as refusal:
        messages.error(request, str(refusal))
        return redirect("learner_assignment", assignment_id=assignment_id)
    return redirect(attempt)
