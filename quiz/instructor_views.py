"""Instructor pages: classes and their learners, the quiz-set builder, assignments with rules
and overrides, the gradebook with CSV exports, attempt review and item analysis.

Every view is behind `instructor_required` (403 for learners) and fetches through a scoped
helper that 404s on another instructor's objects.
"""

from functools import wraps
from itertools import chain

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db import transaction
from django.db.models import Count, Max
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods, require_POST

from . import assignments, teaching
from .csv_export import csv_download
from .forms import (
    AssignmentForm,
    BankFilterForm,
    ClassroomForm,
    OverrideForm,
    QuestionPoolForm,
    id_from_form,
)
from .models import (
    Assignment,
    AssignmentOverride,
    Attempt,
    AttemptSlot,
    Classroom,
    Enrollment,
    Question,
    QuestionPool,
    PoolQuestion,
    User,
    new_join_code,
)


def instructor_required(view):
    @login_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_instructor:
            raise PermissionDenied("Only instructors can open this page.")
        return view(request, *args, **kwargs)

    return wrapper


def _get_classroom(request, classroom_id):
    return get_object_or_404(Classroom.objects.owned_by(request.user), pk=classroom_id)


def _get_assignment(request, assignment_id):
    assignments = Assignment.objects.owned_by(request.user).select_related("classroom", "pool")
    return get_object_or_404(assignments, pk=assignment_id)


def _get_pool(request, pool_id):
    return get_object_or_404(QuestionPool.objects.filter(owner=request.user), pk=pool_id)


def _get_learner(classroom, learner_id):
    return get_object_or_404(User.objects.filter(enrollments__classroom=classroom), pk=learner_id)


def _back(request, default):
    """Where a form posted from a filtered page returns to (same site only)."""
    target = request.POST.get("next", "")
    return target if url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()}) else default


# --- Classes -------------------------------------------------------------------------------------

@instructor_required
def teach_home(request):
    classrooms = Classroom.objects.owned_by(request.user).annotate(learner_count=Count("enrollments"))
    question_pools = request.user.question_pools.annotate(question_count=Count("entries"))
    context = {"classrooms": classrooms, "question_pools": question_pools, "form": ClassroomForm()}
    return render(request, "instructor/home.html", context)


@require_POST
@instructor_required
def create_classroom(request):
    form = ClassroomForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(form.errors["name"]))
        return redirect("teach_home")
    classroom = form.save(commit=False)
    classroom.owner = request.user
    classroom.save()
    return redirect(classroom)


@instructor_required
def classroom(request, classroom_id):
    classroom = _get_classroom(request, classroom_id)
    enrollments = classroom.enrollments.select_related("learner").order_by("learner__username")
    page = Paginator(enrollments, settings.QUIZ_PAGE_SIZE * 5).get_page(request.GET.get("page"))
    join_url = request.build_absolute_uri(reverse("join_class_with_code", args=[classroom.join_code]))
    context = {
        "classroom": classroom,
        "page": page,
        "assignments": classroom.assignments.select_related("pool"),
        "join_url": join_url,
    }
    return render(request, "instructor/classroom.html", context)


@require_POST
@instructor_required
def new_code(request, classroom_id):
    classroom = _get_classroom(request, classroom_id)
    classroom.join_code = new_join_code()
    classroom.save(update_fields=["join_code"])
    messages.success(request, "New join code made; the old one no longer works.")
    return redirect(classroom)


@require_POST
@instructor_required
def remove_learner(request, classroom_id, learner_id):
    classroom = _get_classroom(request, classroom_id)
    learner = _get_learner(classroom, learner_id)
    with transaction.atomic():
        Enrollment.objects.filter(classroom=classroom, learner=learner).delete()
        # Work in progress is submitted as it stands: a removed learner answers no more.
        for attempt in Attempt.objects.filter(assignment__classroom=classroom, user=learner, finished_at=None):
            attempt.finish()
    messages.success(
        request,
        f"{learner.username} was removed from {classroom.name}; their attempts are kept. "
        "To keep them from joining again, make a new join code.",
    )
    return redirect(classroom)


# --- Quiz-set builder ----------------------------------------------------------------------------

@require_http_methods(["GET", "POST"])
@instructor_required
def new_pool(request):
    form = QuestionPoolForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        pool = form.save(commit=False)
        pool.owner = request.user
        pool.save()
        return redirect(pool)
    return render(request, "instructor/pool_new.html", {"form": form}, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
@instructor_required
def pool(request, pool_id):
    """The builder: the set's questions in order beside the filtered question bank."""
    pool = _get_pool(request, pool_id)
    form = QuestionPoolForm(request.POST or None, instance=pool)
    if request.method == "POST":
        if form.is_valid():
            form.save()
            messages.success(request, "Saved.")
            return redirect(pool)
    bank_filter = BankFilterForm(request.GET or None)
    chosen = pool.entries.values("question")
    bank = bank_filter.filter(Question.objects.exclude(pk__in=chosen).select_related("question_set"))
    bank_page = Paginator(bank.order_by("question_set__title", "position"), settings.QUIZ_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    context = {
        "pool": pool,
        "form": form,
        "bank_filter": bank_filter,
        "bank_page": bank_page,
        "entries": pool.entries.select_related("question__question_set"),
        "here": request.get_full_path(),
    }
    template = "instructor/pool.html" + ("#builder" if request.htmx else "")
    return render(request, template, context, status=400 if form.errors else 200)


@require_POST
@instructor_required
def pool_add(request, pool_id):
    pool = _get_pool(request, pool_id)
    ids = [pk for pk in map(id_from_form, request.POST.getlist("question")) if pk is not None]
    questions = Question.objects.filter(pk__in=ids).exclude(pool_entries__pool=pool).order_by("pk")
    with transaction.atomic():
        last = pool.entries.aggregate(last=Max("position"))["last"] or 0
        PoolQuestion.objects.bulk_create(
            PoolQuestion(pool=pool, question=question, position=last + offset)
            for offset, question in enumerate(questions, start=1)
        )
    return redirect(_back(request, pool.get_absolute_url()))


@require_POST
@instructor_required
def pool_entry(request, pool_id, entry_id):
    """Move an entry up or down, or remove it."""
    pool = _get_pool(request, pool_id)
    entry = get_object_or_404(pool.entries, pk=entry_id)
    action = request.POST.get("action")
    with transaction.atomic():
        entries = list(pool.entries.order_by("position"))
        index = entries.index(entry)
        if action == "remove":
            entry.delete()
            entries.pop(index)
        elif action in ("up", "down"):
            other = index + (-1 if action == "up" else 1)
            if 0 <= other < len(entries):
                entries[index], entries[other] = entries[other], entries[index]
        for position, item in enumerate(entries, start=1):  # one renumbering, gaps closed
            item.position = position
        PoolQuestion.objects.bulk_update(entries, ["position"])
    return redirect(_back(request, pool.get_absolute_url()))


# --- Assignments ---------------------------------------------------------------------------------

@require_http_methods(["GET", "POST"])
@instructor_required
def new_assignment(request, classroom_id):
    classroom = _get_classroom(request, classroom_id)
    form = AssignmentForm(request.POST or None, owner=request.user)
    if request.method == "POST" and form.is_valid():
        assignment = form.save(commit=False)
        assignment.classroom = classroom
        assignment.save()
        messages.success(request, f"Assigned “{assignment.title}” to {classroom.name}.")
        return redirect("assignment", assignment_id=assignment.pk)
    context = {"classroom": classroom, "form": form}
    return render(request, "instructor/assignment_new.html", context, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
@instructor_required
def assignment(request, assignment_id):
    """An assignment's rules and its per-learner overrides (POST adds or changes one)."""
    assignment = _get_assignment(request, assignment_id)
    form = OverrideForm(request.POST or None, assignment=assignment)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        AssignmentOverride.objects.update_or_create(
            assignment=assignment,
            learner=data["learner"],
            defaults={name: data[name] for name in ("opens_at", "due_at", "time_limit", "max_attempts")},
        )
        assignments.apply_rules_to_open_attempts(assignment=assignment, learner=data["learner"])
        messages.success(request, f"Rules for {data['learner'].username} saved.")
        return redirect("assignment", assignment_id=assignment.pk)
    overrides = assignment.overrides.select_related("learner").order_by("learner__username")
    context = {"assignment": assignment, "form": form, "overrides": overrides}
    return render(request, "instructor/assignment.html", context, status=400 if form.errors else 200)


@require_POST
@instructor_required
def delete_override(request, assignment_id, override_id):
    assignment = _get_assignment(request, assignment_id)
    override = get_object_or_404(assignment.overrides.select_related("learner"), pk=override_id)
    override.delete()
    assignments.apply_rules_to_open_attempts(assignment=assignment, learner=override.learner)
    return redirect("assignment", assignment_id=assignment.pk)


# --- Gradebook, review, analysis -----------------------------------------------------------------

@instructor_required
def gradebook(request, classroom_id):
    classroom = _get_classroom(request, classroom_id)
    sort = request.GET.get("sort", "name")
    book = teaching.gradebook(classroom=classroom, now=timezone.now(), sort=sort)
    return render(request, "instructor/gradebook.html", {"classroom": classroom, "book": book, "sort": sort})


@instructor_required
def gradebook_csv(request, classroom_id):
    classroom = _get_classroom(request, classroom_id)
    book = teaching.gradebook(classroom=classroom, now=timezone.now())
    header = ["learner"] + [f"{c.assignment.title} (score %)" for c in book.columns] + [
        f"{c.assignment.title} (status)" for c in book.columns
    ]
    rows = [
        [learner.username] + ["" if c.score is None else c.score for c in cells] + [c.status for c in cells]
        for learner, cells in book.rows
    ]
    return csv_download(f"gradebook-{classroom.pk}.csv", [header, *rows])


@instructor_required
def responses_csv(request, classroom_id):
    """Every answer given in the class's assignments, one row each, streamed."""
    classroom = _get_classroom(request, classroom_id)
    slots = (
        AttemptSlot.objects.filter(attempt__assignment__classroom=classroom, answered_at__isnull=False)
        .select_related("attempt__user", "attempt__assignment")
        .order_by("attempt__assignment__due_at", "attempt__user__username", "attempt__started_at", "position")
    )
    header = ["assignment", "learner", "attempt", "question", "choice chosen", "correct", "seconds spent", "submitted at"]
    rows = (
        [
            slot.attempt.assignment.title,
            slot.attempt.user.username,
            slot.attempt_id,
            slot.stem,
            slot.shown_choices[slot.chosen_index - 1]["text"] if slot.chosen_index else "",
            "yes" if slot.is_correct else "no",
            "" if slot.seconds_spent is None else slot.seconds_spent,
            slot.answered_at.isoformat(),
        ]
        for slot in slots.iterator(chunk_size=1000)
    )
    return csv_download(f"responses-{classroom.pk}.csv", chain([header], rows))


@instructor_required
def learner_attempts(request, assignment_id, learner_id):
    assignment = _get_assignment(request, assignment_id)
    learner = _get_learner(assignment.classroom, learner_id)
    attempts = Attempt.objects.filter(assignment=assignment, user=learner).order_by("started_at")
    context = {"assignment": assignment, "learner": learner, "attempts": attempts}
    return render(request, "instructor/learner_attempts.html", context)


@instructor_required
def attempt_review(request, attempt_id):
    """A learner's attempt as they saw it, with every answer, for the instructor of the class."""
    attempt = get_object_or_404(
        Attempt.objects.filter(assignment__classroom__owner=request.user).select_related("user", "assignment"),
        pk=attempt_id,
    )
    slots = attempt.slots.select_related("question")
    return render(request, "instructor/attempt_review.html", {"attempt": attempt, "slots": slots})


@instructor_required
def item_analysis(request, assignment_id):
    assignment = _get_assignment(request, assignment_id)
    items = teaching.item_analysis(assignment=assignment)
    recall = teaching.recall_by_learner(assignment=assignment, now=timezone.now())
    context = {"assignment": assignment, "items": items, "recall": recall}
    return render(request, "instructor/item_analysis.html", context)
