"""The mock exam: its page (the rules, the exam in progress, past exams with predicted and
actual score) and starting one. Taking it is an ordinary timed attempt with feedback at the end."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from quiz.forms import ExamBlueprintForm, MockExamForm
from quiz.lib.pages import PeekPage
from quiz.models import Attempt, Classroom, ExamBlueprint, MockExam, Topic
from quiz.study import mock_exam
from quiz.study.catch_up import catch_up_learner

from .access import instructor_required, own_classroom_or_404


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def mock_exam_page(request):
    # A mock exam whose time ran out is submitted first, so it is neither "in progress" nor
    # resumed by the next Start (and its answers go to the review queue).
    catch_up_learner(request.user, now=timezone.now())
    defaults = mock_exam.Choices.defaults()
    form = MockExamForm(request.POST or None, initial=vars(defaults))
    blueprints = ExamBlueprint.objects.filter(classroom__in=Classroom.objects.joined_by(request.user).active())
    if request.method == "POST":
        if request.POST.get("classroom"):  # the mock exam an instructor set for one of my classes
            blueprint = blueprints.filter(classroom=_number(request.POST["classroom"])).first()
            if blueprint is None:
                messages.error(request, "That class has no mock exam (or you are not in it).")
                return redirect("mock_exam")
            choices = mock_exam.Choices(blueprint.questions, blueprint.minutes, blueprint.pass_percent)
            return _start(request, choices, weights=blueprint.weights, classroom_id=blueprint.classroom_id)
        if form.is_valid():
            return _start(request, mock_exam.Choices(**form.cleaned_data))
    past = Attempt.objects.for_user(request.user).finished().filter(purpose=MockExam.PURPOSE).select_related("mock_exam")
    context = {
        "form": form,
        "blueprints": blueprints.select_related("classroom"),
        "in_progress": mock_exam.open_mock_exam(request.user),
        "past": PeekPage(past, request.GET.get("exams")),
    }
    return render(request, "quiz/mock_exam.html", context, status=400 if form.errors else 200)


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
