"""The mock exam: its page (the rules, the exam in progress, past exams with predicted and
actual score) and starting one. Taking it is an ordinary timed attempt with feedback at the end."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from quiz.forms import ExamBlueprintForm, MockExamForm
from quiz.lib.http import render_page
from quiz.lib.pages import PeekPage
from quiz.models import Attempt, Classroom, ExamBlueprint, MockExam, Topic
from quiz.study import mock_exam
from quiz.study.catch_up import catch_up_learner

from .access import instructor_required, own_classroom_or_404


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def mock_exam_page(request):
    """The page, or (HTMX, as the learner types) only the note saying what their numbers give."""
    now = timezone.now()
    # A mock exam whose time ran out is submitted first, so it is neither "in progress" nor
    # resumed by the next Start (and its answers go to the review queue).
    catch_up_learner(request.user, now=now)
    blueprints = ExamBlueprint.objects.filter(classroom__in=Classroom.objects.joined_by(request.user).active())
    if request.method == "POST" and request.POST.get("classroom"):  # the exam an instructor set for my class
        blueprint = blueprints.filter(classroom=_number(request.POST["classroom"])).first()
        if blueprint is None:
            messages.error(request, "That class has no mock exam (or you are not in it).")
            return redirect("mock_exam")
        return _start(request, mock_exam.Choices.of(blueprint), weights=blueprint.weights, classroom_id=blueprint.classroom_id)
    in_progress = mock_exam.open_mock_exam(request.user)
    bank = [] if in_progress else mock_exam.bank_for(request.user, now)
    asked = _asked(request)
    form = MockExamForm(request.POST or None, initial=vars(asked or mock_exam.Choices.defaults()))
    if form.is_valid() and (in_progress or _seen_or_unchanged(request, asked, mock_exam.fitted(bank, asked))):
        return _start(request, asked)
    context = {
        "form": form,
        "in_progress": in_progress,
        "bank_size": len(bank),
        "plan": mock_exam.fitted(bank, asked) if asked else None,
        "asked": asked,
        "check_plan": form.is_bound,  # posted, but not started: numbers to check first
    }
    if not request.htmx:
        context.update(_the_rest_of_the_page(request, blueprints, bank, in_progress))
    return render_page(request, "quiz/mock_exam.html", "mock-plan", context, status=400 if form.errors else 200)


def _the_rest_of_the_page(request, blueprints, bank, in_progress):
    """The class exams, each with what the bank gives for it, and a page of past exams."""
    class_exams = [] if in_progress else blueprints.select_related("classroom")
    past = Attempt.objects.for_user(request.user).finished().filter(purpose=MockExam.PURPOSE)
    return {
        "class_exams": [(b, mock_exam.fitted(bank, mock_exam.Choices.of(b), b.weights)) for b in class_exams],
        "past": PeekPage(past.select_related("mock_exam"), request.GET.get("exams")),
    }


def _asked(request):
    """The numbers the learner is weighing: the form's (sent by HTMX as they type, or posted),
    else the defaults; None while they make no sense (the note then states only the rule). A
    valid post gives the same Choices as the bound form's cleaned data."""
    data = {**vars(mock_exam.Choices.defaults()), **(request.POST or request.GET).dict()}
    form = MockExamForm(data)
    return mock_exam.Choices(**form.cleaned_data) if form.is_valid() else None


def _seen_or_unchanged(request, asked, plan):
    """Whether the exam may start as `plan`: the bank gives what was asked, or the page already
    showed these very numbers. Otherwise (JavaScript off and the numbers changed, or the bank
    changed meanwhile) the page shows them first: no clock starts on numbers nobody saw. An
    empty bank goes on to `_start`, which says so."""
    return plan == asked or not plan.questions or request.POST.get("plan") == plan.key


def _start(request, choices, **blueprint):
    attempt, created = mock_exam.start_mock_exam(user=request.user, choices=choices, now=timezone.now(), **blueprint)
    if attempt is None:
        messages.info(request, "There is no question you can practise yet: a mock exam needs a question set.")
        return redirect("mock_exam")
    if not created:
        messages.info(request, "You have a mock exam in progress: here it is, as it was drawn.")
    return redirect(attempt)


def _number(text):
    return int(text) if text.isascii() and text.isdigit() and len(text) < 12 else 0


@require_http_methods(["GET", "HEAD", "POST"])
@instructor_required
def class_mock_exam(request, classroom_id):
    """The mock exam an instructor sets for a class: rules and a weight per topic."""
    classroom = own_classroom_or_404(request, classroom_id)
    blueprint = ExamBlueprint.objects.filter(classroom=classroom).first()
    topics = Topic.objects.visible_to(request.user).order_by("name")
    initial = vars(mock_exam.Choices.defaults())
    if blueprint:
        initial = {"questions": blueprint.questions, "minutes": blueprint.minutes, "pass_percent": blueprint.pass_percent}
        initial.update({f"topic_{topic}": weight for topic, weight in blueprint.weights.items()})
    form = ExamBlueprintForm(request.POST or None, initial=initial, topics=topics)
    if request.method == "POST" and form.is_valid():
        rules = {name: form.cleaned_data[name] for name in ("questions", "minutes", "pass_percent")}
        ExamBlueprint.objects.update_or_create(classroom=classroom, defaults={**rules, "topic_weights": form.topic_weights()})
        messages.success(request, "Mock exam saved: your learners find it on their mock exam page.")
        return redirect(classroom)
    context = {"classroom": classroom, "form": form, "blueprint": blueprint}
    return render(request, "instructor/mock_exam.html", context, status=400 if form.errors else 200)
