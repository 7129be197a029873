"""Instructors managing what they made: edit, copy, archive or delete assignments, delete question
pools no assignment uses, rename, archive and restore classes, remove learners, and see an assignment as a
learner does and a pool's answer key.

A question found broken after learners answered it is excluded from the assignment's
scoring (it counts for no one; undo includes it again). Every destructive action is a GET that shows a confirmation page (no JavaScript needed) and
a POST that acts; nothing that learners attempted is deleted with their history.
"""

import random

from django.contrib import messages
from django.db.models import prefetch_related_objects
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from quiz.forms import AssignmentForm, ClassroomForm, CopyAssignmentForm
from quiz.lib.content_version import content_changed
from quiz.models import AttemptSlot
from quiz.teaching import rules
from quiz.teaching.standing import standing_of

from .access import (
    instructor_required,
    learner_in_class_or_404,
    own_assignment_or_404,
    own_classroom_or_404,
    own_pool_or_404,
)


def _confirm(request, *, title, explanation, button, back):
    context = {"title": title, "explanation": explanation, "button": button, "back": back}
    return render(request, "instructor/confirm.html", context)


@require_http_methods(["GET", "POST"])
@instructor_required
def remove_learner(request, classroom_id, learner_id):
    classroom = own_classroom_or_404(request, classroom_id)
    learner = learner_in_class_or_404(classroom, learner_id)
    if request.method == "GET":
        return _confirm(
            request,
            title=f"Remove {learner.username} from {classroom.name}?",
            explanation="Their attempts are kept; one in progress is submitted as it stands. They leave the gradebook, "
            "the responses CSV and item analysis, and come back with their history if they rejoin.",
            button="Remove",
            back=classroom.get_absolute_url(),
        )
    classroom.remove_learner(learner)
    messages.success(
        request,
        f"{learner.username} was removed from {classroom.name}; their attempts are kept. "
        "To keep them from joining again, make a new join code.",
    )
    return redirect(classroom)


@require_POST
@instructor_required
def rename_classroom(request, classroom_id):
    classroom = own_classroom_or_404(request, classroom_id)
    form = ClassroomForm(request.POST, instance=classroom)
    if form.is_valid():
        form.save()
        content_changed()
        messages.success(request, f"Renamed to {classroom.name}.")
    else:
        messages.error(request, " ".join(form.errors["name"]))
    return redirect(classroom)


@require_http_methods(["GET", "POST"])
@instructor_required
def archive_classroom(request, classroom_id):
    """End a course: the class leaves the lists and takes no new learners; nothing is deleted."""
    classroom = own_classroom_or_404(request, classroom_id)
    if request.method == "GET":
        return _confirm(
            request, title=f"Archive {classroom.name}?",
            explanation="It leaves your list of classes and its learners' lists, with its assignments, and nobody "
            "can join it. Its learners, attempts and gradebook are kept, and you can restore it from Teach.",
            button="Archive", back=classroom.get_absolute_url(),
        )
    classroom.archive()
    messages.success(request, f"{classroom.name} was archived; everything in it is kept.")
    return redirect("teach_home")


@require_POST
@instructor_required
def restore_classroom(request, classroom_id):
    classroom = own_classroom_or_404(request, classroom_id)
    classroom.restore()
    messages.success(request, f"{classroom.name} is back in your list and its learners'.")
    return redirect(classroom)


@require_http_methods(["GET", "POST"])
@instructor_required
def edit_assignment(request, assignment_id):
    """Change an assignment's pool, dates and rules; attempts already made keep what they were
    shown, and lateness follows the new due date at once."""
    assignment = own_assignment_or_404(request, assignment_id)
    form = AssignmentForm(request.POST or None, instance=assignment, owner=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        content_changed()
        rules.apply_rules_to_everyone(assignment)
        messages.success(request, f"Saved “{assignment.title}”.")
        return redirect("assignment", assignment_id=assignment.pk)
    context = {"assignment": assignment, "form": form}
    return render(request, "instructor/assignment_edit.html", context, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
@instructor_required
def copy_assignment(request, assignment_id):
    """A new assignment with the same pool and rules, to this class or another: the form opens
    filled in, with dates as a new assignment's. Overrides and exclusions stay with the original."""
    source = own_assignment_or_404(request, assignment_id)
    initial = CopyAssignmentForm.initial_from(source, timezone.now())
    form = CopyAssignmentForm(request.POST or None, owner=request.user, initial=initial)
    if request.method == "POST" and form.is_valid():
        copy = form.save()
        content_changed()
        messages.success(request, f"Assigned a copy of “{source.title}” to {copy.classroom.name}.")
        return redirect("assignment", assignment_id=copy.pk)
    context = {"source": source, "form": form}
    return render(request, "instructor/assignment_copy.html", context, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
@instructor_required
def delete_assignment(request, assignment_id):
    assignment = own_assignment_or_404(request, assignment_id)
    attempted = assignment.attempts.exists()
    if request.method == "GET":
        explanation = (
            "Learners have attempted it, so it will be archived, not deleted: it leaves their lists and the gradebook, "
            "and every attempt is kept (you can restore it from the class page)."
            if attempted
            else "Nobody has attempted it: it will be deleted for good."
        )
        return _confirm(
            request, title=f"Remove “{assignment.title}”?", explanation=explanation,
            button="Archive" if attempted else "Delete", back=assignment.get_absolute_url(),
        )
    outcome = assignment.delete_or_archive()
    messages.success(request, f"“{assignment.title}” was {outcome}.")
    return redirect(assignment.classroom)


@require_POST
@instructor_required
def restore_assignment(request, assignment_id):
    assignment = own_assignment_or_404(request, assignment_id)
    assignment.restore()
    messages.success(request, f"“{assignment.title}” is back in learners' lists and the gradebook.")
    return redirect("assignment", assignment_id=assignment.pk)


@require_http_methods(["GET", "POST"])
@instructor_required
def exclude_question(request, assignment_id, question_id):
    """Take a broken question out of the assignment's scoring, for everyone (undo: include it)."""
    assignment = own_assignment_or_404(request, assignment_id)
    question = get_object_or_404(assignment.questions(), pk=question_id)
    if request.method == "GET":
        return _confirm(
            request, title=f"Exclude “{question.stem[:80]}” from “{assignment.title}”?",
            explanation="It will count for no one: every score becomes out of the other questions, in the gradebook, "
            "both CSVs and item analysis, and new attempts leave it out. Learners' answers are kept and their results "
            "show it as excluded by you. You can include it again.",
            button="Exclude", back=reverse("item_analysis", args=[assignment.pk]),
        )
    assignment.exclude_question(question, by=request.user)
    messages.success(request, "Excluded: it no longer counts in any score.")
    return redirect("item_analysis", assignment_id=assignment.pk)


@require_POST
@instructor_required
def include_question(request, assignment_id, question_id):
    assignment = own_assignment_or_404(request, assignment_id)
    question = get_object_or_404(assignment.questions(), pk=question_id)
    assignment.include_question(question)
    messages.success(request, "Included again: it counts in every score that has it.")
    return redirect("item_analysis", assignment_id=assignment.pk)


@require_http_methods(["GET", "POST"])
@instructor_required
def delete_pool(request, pool_id):
    pool = own_pool_or_404(request, pool_id)
    users = [f"“{a.title}” in {a.classroom.name}" for a in pool.assignments.select_related("classroom")]
    if users:
        # Assignments protect their pool (and its attempts protect them): say which, so the
        # instructor knows what to remove first.
        messages.error(request, f"“{pool.title}” cannot be deleted: it is assigned as {', '.join(users)}.")
        return redirect(pool)
    if request.method == "GET":
        return _confirm(
            request, title=f"Delete the question pool “{pool.title}”?",
            explanation="No assignment uses it. Its questions stay in the bank; only this pool goes.",
            button="Delete", back=pool.get_absolute_url(),
        )
    pool.delete()
    content_changed()
    messages.success(request, f"Deleted the question pool “{pool.title}”.")
    return redirect("teach_home")


@require_safe
@instructor_required
def preview_assignment(request, assignment_id):
    """The assignment as a learner of the class sees it before starting, and the questions an
    attempt would get (one sample draw, in the order it would show them). Nothing is recorded."""
    assignment = own_assignment_or_404(request, assignment_id)
    now = timezone.now()
    learner_rules = assignment.rules_for()
    standing = standing_of(attempts=[], rules=learner_rules, grading=assignment.grading, now=now)
    seen = rules.LearnerAssignment(assignment, learner_rules, [], standing)
    questions, order_rng = rules.draw_for_attempt(assignment, random)
    prefetch_related_objects(questions, "choices")
    # The choices as the learner would get them (shuffled or not), never saved.
    shown = [AttemptSlot.shown_to_learner(None, n, question, order_rng) for n, question in enumerate(questions, 1)]
    context = {"seen": seen, "attempts": [], "preview_questions": shown, "now": now, "preview": True}
    return render(request, "quiz/learner_assignment.html", context)


@require_safe
@instructor_required
def pool_answer_key(request, pool_id):
    pool = own_pool_or_404(request, pool_id)
    entries = pool.entries.select_related("question__question_set").prefetch_related("question__choices")
    return render(request, "instructor/pool_answer_key.html", {"pool": pool, "entries": entries})
