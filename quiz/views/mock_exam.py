"""The mock exam: its page (the rules, the exam in progress, past exams with predicted and
actual score) and starting one. Taking it is an ordinary timed attempt with feedback at the end."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from quiz.forms import MockExamForm
from quiz.lib.pages import PeekPage
from quiz.models import Attempt, MockExam
from quiz.study import mock_exam


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def mock_exam_page(request):
    defaults = mock_exam.Choices.defaults()
    form = MockExamForm(request.POST or None, initial=vars(defaults))
    if request.method == "POST" and form.is_valid():
        attempt, created = mock_exam.start_mock_exam(
            user=request.user, choices=mock_exam.Choices(**form.cleaned_data), now=timezone.now()
        )
        if attempt is None:
            messages.info(request, "There is no question you can practise yet: a mock exam needs a question set.")
            return redirect("mock_exam")
        if not created:
            messages.info(request, "You have a mock exam in progress: here it is, as it was drawn.")
        return redirect(attempt)
    past = Attempt.objects.for_user(request.user).finished().filter(purpose=MockExam.PURPOSE).select_related("mock_exam")
    context = {
        "form": form,
        "in_progress": mock_exam.open_mock_exam(request.user),
        "past": PeekPage(past, request.GET.get("exams")),
    }
    return render(request, "quiz/mock_exam.html", context, status=400 if form.errors else 200)
