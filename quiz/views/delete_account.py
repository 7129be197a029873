"""'Delete my account', and handing a class over to another instructor before it.

The page says what goes and what stays (quiz.accounts.deletion does it); the deletion asks for the
password (the username for an account without one), a few guesses an hour per account."""

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.db import IntegrityError
from django.db.models import ProtectedError, RestrictedError
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST
from django_ratelimit.decorators import ratelimit

from quiz.accounts import deletion
from quiz.models import Classroom

from .accounts import rate_limited

# Guesses at the password per account: enough for typos, too few to find it by trying.
CONFIRMATION_RATE = "5/h"

BLOCKED = "Hand over or archive your active classes first: their learners need an instructor."


@require_http_methods(["GET", "POST"])
@login_required
@ratelimit(key="user", rate=CONFIRMATION_RATE, method="POST", block=False)
def delete_account(request):
    if getattr(request, "limited", False):
        return rate_limited(request, "Confirming the deletion of your account")
    form = deletion.ConfirmDeletionForm(request.POST or None, user=request.user)
    if request.method == "GET":
        return _page(request, form)
    if deletion.classes_blocking(request.user).exists():
        form.add_error(None, BLOCKED)
        return _page(request, form, status=409)
    if not form.is_valid():
        return _page(request, form, status=400)
    try:
        deletion.delete_account(request.user)
    except deletion.DeletionBlocked:  # a class was restored in another tab meanwhile
        form.add_error(None, BLOCKED)
        return _page(request, form, status=409)
    except (IntegrityError, ProtectedError, RestrictedError):
        # Something of the account changed while it was being deleted (an answer in another tab, say):
        # nothing was deleted, and a second try sees the change.
        form.add_error(None, "Your account changed while it was being deleted, so nothing was deleted. Please try again.")
        return _page(request, form, status=409)
    logout(request)
    messages.success(request, "Your account and your data are deleted.")
    return redirect("home")


@require_POST
@login_required
def hand_over_class(request, classroom_id):
    """Give one of one's classes to another instructor; only its owner may (404 for anyone else).
    The username alone shows what would go to whom; the class goes with `confirm=1` beside it."""
    classroom = get_object_or_404(Classroom.objects.owned_by(request.user), pk=classroom_id)
    form = deletion.HandOverForm(request.POST, classroom=classroom)
    if not form.is_valid():
        return _page(request, deletion.ConfirmDeletionForm(user=request.user), handing_over=(classroom.pk, form), status=400)
    new_owner = form.cleaned_data["username"]
    if request.POST.get("confirm") != "1":
        context = {
            "classroom": classroom, "new_owner": new_owner,
            "learners": classroom.enrollments.count(), "assignments": classroom.assignments.count(),
        }
        return render(request, "quiz/hand_over_confirm.html", context)
    if deletion.hand_over(classroom, new_owner):
        messages.success(request, f"{classroom.name} is now {new_owner.get_username()}’s class.")
    return redirect("delete_account")


def _page(request, form, *, handing_over=None, status=200):
    """The confirmation page; `handing_over`: (class id, its hand-over form with errors) after a refused hand-over."""
    user = request.user
    blocking = list(deletion.classes_blocking(user))
    for classroom in blocking:
        refused = handing_over and handing_over[0] == classroom.pk
        classroom.hand_over_form = handing_over[1] if refused else deletion.HandOverForm(classroom=classroom)
    shared = deletion.shared_content_that_stays(user)
    context = {
        "form": form,
        "blocking": blocking,
        "shared_sets": list(shared["sets"]),
        "shared_decks": list(shared["decks"]),
        "keeps_class_history": deletion.keeps_class_history(user),
        "archived_classes": Classroom.objects.owned_by(user).exclude(archived_at=None).count(),
    }
    return render(request, "quiz/delete_account.html", context, status=status)
