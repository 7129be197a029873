"""The learner's account: signing up and their study settings."""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from quiz.forms import SignUpForm, StudySettingsForm


@require_http_methods(["GET", "POST"])
def signup(request):
    if request.user.is_authenticated:
        return redirect("home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}! Pick a question set to start.")
        return redirect("home")
    return render(request, "registration/signup.html", {"form": form})


@require_http_methods(["GET", "POST"])
@login_required
def study_settings(request):
    form = StudySettingsForm(request.POST or None, instance=request.user)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Settings saved.")
        return redirect("study_settings")
    return render(request, "quiz/settings.html", {"form": form}, status=400 if form.errors else 200)
