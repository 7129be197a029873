"""Instructor pages: classes and their learners, the question-pool builder, assignments with
rules and overrides, the gradebook with CSV exports, attempt review and item analysis.

Every view is behind `instructor_required` (403 for learners) and fetches through a scoped
helper that 404s on another instructor's objects. The rules live in the models and in
`quiz.teaching`; these views only read the request and pick the response.
"""

from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from quiz.forms import AssignmentForm, BankFilterForm, ClassroomForm, OverrideForm, QuestionPoolForm, id_from_form
from quiz.lib.content_version import content_changed
from quiz.lib.csv_export import csv_download
from quiz.lib.http import render_page, safe_next
from quiz.lti.grades import sent_grades
from quiz.models import Attempt, Classroom, Question, new_join_code
from quiz.progress import calibration
from quiz.study.catch_up import close_expired_attempts
from quiz.teaching import exports, rules
from quiz.teaching.gradebook import build_gradebook
from quiz.teaching.item_analysis import MIN_LEARNERS_TO_FLAG, analyse_items, recall_by_learner, sorted_items

from .access import (
    instructor_required,
    learner_in_class_or_404,
    own_assignment_or_404,
    own_classroom_or_404,
    own_pool_or_404,
)

# --- Classes -------------------------------------------------------------------------------------

@require_safe
@instructor_required
def teach_home(request):
    # One query for both lists: archived classes are listed apart, to be restored.
    classrooms = list(Classroom.objects.owned_by(request.user).annotate(learner_count=Count("enrollments")))
    question_pools = request.user.question_pools.annotate(question_count=Count("entries"))
    context = {
        "classrooms": [classroom for classroom in classrooms if not classroom.archived_at],
        "archived_classrooms": [classroom for classroom in classrooms if classroom.archived_at],
        "question_pools": question_pools,
        "form": ClassroomForm(),
    }
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


@require_safe
@instructor_required
def classroom(request, classroom_id):
    classroom = own_classroom_or_404(request, classroom_id)
    enrollments = classroom.enrollments.select_related("learner").order_by("learner__username")
    page = Paginator(enrollments, settings.QUIZ_PAGE_SIZE * 5).get_page(request.GET.get("page"))
    join_url = request.build_absolute_uri(reverse("join_class_with_code", args=[classroom.join_code]))
    context = {
        "classroom": classroom,
        "page": page,
        "assignments": classroom.assignments.select_related("pool"),  # archived ones listed apart, in the page
        "rename_form": ClassroomForm(instance=classroom),
        "join_url": join_url,
    }
    return render(request, "instructor/classroom.html", context)


@require_safe
@instructor_required
def class_calibration(request, classroom_id):
    """Is the memory model honest for this class? A report over the class's whole history of
    its assigned questions, so a page of its own, computed at most once an hour per class."""
    classroom = own_classroom_or_404(request, classroom_id)
    bins, computed_at = calibration.class_calibration(classroom, timezone.now())
    context = {
        "classroom": classroom, "calibration": calibration.calibration_chart(bins), "computed_at": computed_at,
        "whose": "this class's",
    }
    return render(request, "instructor/class_calibration.html", context)


@require_POST
@instructor_required
def new_code(request, classroom_id):
    classroom = own_classroom_or_404(request, classroom_id)
    classroom.join_code = new_join_code()
    classroom.save(update_fields=["join_code"])
    messages.success(request, "New join code made; the old one no longer works.")
    return redirect(classroom)


# --- Question-pool builder -------------------------------------------------------------------------

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
    """The builder: the pool's questions in order beside the filtered question bank."""
    pool = own_pool_or_404(request, pool_id)
    form = QuestionPoolForm(request.POST or None, instance=pool)
    if request.method == "POST":
        if form.is_valid():
            form.save()
            content_changed()
            messages.success(request, "Saved.")
            return redirect(pool)
    # Always bound: an empty query is "no filter", so the whole bank shows on first load.
    bank_filter = BankFilterForm(request.GET, user=request.user)
    chosen = pool.entries.values("question")
    bank = bank_filter.filter(Question.objects.visible_to(request.user).current().exclude(pk__in=chosen).select_related("question_set"))
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
    return render_page(request, "instructor/pool.html", "builder", context, status=400 if form.errors else 200)


@require_POST
@instructor_required
def pool_add(request, pool_id):
    pool = own_pool_or_404(request, pool_id)
    pool.add_questions(pk for pk in map(id_from_form, request.POST.getlist("question")) if pk is not None)
    return redirect(safe_next(request, request.POST.get("next", ""), pool.get_absolute_url()))


@require_POST
@instructor_required
def pool_entry(request, pool_id, entry_id):
    """Move an entry up or down, or remove it."""
    pool = own_pool_or_404(request, pool_id)
    entry = get_object_or_404(pool.entries, pk=entry_id)
    pool.move_entry(entry, request.POST.get("action"))
    return redirect(safe_next(request, request.POST.get("next", ""), pool.get_absolute_url()))


# --- Assignments ---------------------------------------------------------------------------------

@require_http_methods(["GET", "POST"])
@instructor_required
def new_assignment(request, classroom_id):
    classroom = own_classroom_or_404(request, classroom_id)
    if classroom.archived_at:  # its learners would never see it
        messages.error(request, f"{classroom.name} is archived: restore it before assigning anything to it.")
        return redirect(classroom)
    initial = AssignmentForm.default_dates(timezone.now())
    form = AssignmentForm(request.POST or None, owner=request.user, initial=initial)
    if request.method == "POST" and form.is_valid():
        assignment = form.save(commit=False)
        assignment.classroom = classroom
        assignment.save()
        content_changed()
        messages.success(request, f"Assigned “{assignment.title}” to {classroom.name}.")
        return redirect("assignment", assignment_id=assignment.pk)
    context = {"classroom": classroom, "form": form}
    return render(request, "instructor/assignment_new.html", context, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
@instructor_required
def assignment(request, assignment_id):
    """An assignment's rules and its per-learner overrides (POST adds or changes one)."""
    assignment = own_assignment_or_404(request, assignment_id)
    form = OverrideForm(request.POST or None, assignment=assignment)
    if request.method == "POST" and form.is_valid():
        learner = form.cleaned_data["learner"]
        rules.save_override(assignment=assignment, learner=learner, rules=form.cleaned_data)
        messages.success(request, f"Rules for {learner.username} saved.")
        return redirect("assignment", assignment_id=assignment.pk)
    overrides = assignment.overrides.select_related("learner").order_by("learner__username")
    context = {"assignment": assignment, "form": form, "overrides": overrides, **sent_grades(assignment)}
    return render(request, "instructor/assignment.html", context, status=400 if form.errors else 200)


@require_POST
@instructor_required
def delete_override(request, assignment_id, override_id):
    assignment = own_assignment_or_404(request, assignment_id)
    override = get_object_or_404(assignment.overrides.select_related("learner", "assignment"), pk=override_id)
    rules.delete_override(override)
    return redirect("assignment", assignment_id=assignment.pk)


@require_safe
@instructor_required
def gradebook(request, classroom_id):
    classroom = own_classroom_or_404(request, classroom_id)
    sort = request.GET.get("sort", "name")
    book = _caught_up_gradebook(classroom, sort)
    return render(request, "instructor/gradebook.html", {"classroom": classroom, "book": book, "sort": sort})


def _caught_up_gradebook(classroom, sort="name"):
    now = timezone.now()
    close_expired_attempts(Attempt.objects.filter(assignment__classroom=classroom), now=now)
    return build_gradebook(classroom=classroom, now=now, sort=sort)


@require_safe
@instructor_required
def gradebook_csv(request, classroom_id):
    classroom = own_classroom_or_404(request, classroom_id)
    return csv_download(f"gradebook-{classroom.pk}.csv", exports.gradebook_rows(_caught_up_gradebook(classroom)))


@require_safe
@instructor_required
def responses_csv(request, classroom_id):
    """Every answer given in the class's assignments, one row each, streamed."""
    classroom = own_classroom_or_404(request, classroom_id)
    close_expired_attempts(Attempt.objects.filter(assignment__classroom=classroom))
    return csv_download(f"responses-{classroom.pk}.csv", exports.response_rows(classroom))


@require_safe
@instructor_required
def learner_attempts(request, assignment_id, learner_id):
    assignment = own_assignment_or_404(request, assignment_id)
    learner = learner_in_class_or_404(assignment.classroom, learner_id)
    attempts = Attempt.objects.filter(assignment=assignment, user=learner).order_by("started_at", "pk").with_exclusions()
    close_expired_attempts(attempts)
    context = {"assignment": assignment, "learner": learner, "attempts": attempts}
    return render(request, "instructor/learner_attempts.html", context)


@require_safe
@instructor_required
def attempt_review(request, attempt_id):
    """A learner's attempt as they saw it, with every answer, for the instructor of the class."""
    attempts = Attempt.objects.filter(assignment__classroom__owner=request.user)
    close_expired_attempts(attempts.filter(pk=attempt_id))  # a learner's time ran out: show it submitted
    attempt = get_object_or_404(attempts.select_related("user", "assignment").with_exclusions(), pk=attempt_id)
    slots = attempt.slots.select_related("question").with_exclusion_flag()
    return render(request, "instructor/attempt_review.html", {"attempt": attempt, "slots": slots})


@require_safe
@instructor_required
def item_analysis(request, assignment_id):
    assignment = own_assignment_or_404(request, assignment_id)
    now = timezone.now()
    close_expired_attempts(Attempt.objects.filter(assignment=assignment), now=now)
    items = analyse_items(assignment=assignment)
    sort = request.GET.get("sort", "position")
    recall = recall_by_learner(assignment=assignment, now=now)
    context = {
        "assignment": assignment,
        "items": items,
        "summary": sorted_items(items, sort),
        "sort": sort,
        "recall": recall,
        "min_learners_to_flag": MIN_LEARNERS_TO_FLAG,
        "sort_columns": [
            ("position", "Question"), ("answered", "Answered"), ("facility", "Facility"),
            ("point_biserial", "Point-biserial"), ("discrimination", "Discrimination"),
        ],
    }
    return render(request, "instructor/item_analysis.html", context)