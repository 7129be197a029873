"""Reminder switches in Settings, and the one-click unsubscribe link every reminder carries."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from quiz.accounts import reminders
from quiz.accounts.reminders import ReminderSettingsForm


def _back_to_reminders():
    return redirect(reverse("account_settings") + "#reminders")


@require_POST
@login_required
def reminder_settings(request):
    """Save the switches from the account page; a refused value saves nothing and says why."""
    form = ReminderSettingsForm(request.POST, instance=request.user)
    if not form.is_valid():
        messages.error(request, f"Reminders not saved. {_problems(form)}")
        return _back_to_reminders()
    user = form.save()
    saved = "Reminder settings saved."
    if (user.remind_reviews or user.remind_assignments) and not user.email_verified:
        saved += " They start once your email address is verified."
    messages.success(request, saved)
    return _back_to_reminders()


def _problems(form):
    """The form's errors in one line for a message, each after its field's label."""
    return "; ".join(
        f"{form.fields[name].label}: {' '.join(errors)}" if name in form.fields else " ".join(errors)
        for name, errors in form.errors.items()
    )


# A mail provider's one-click unsubscribe (RFC 8058) is a POST with no CSRF token and no
# session: the signed token in the URL is the authority, and it names one user and one list.
@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request, token):
    """GET asks (mail scanners follow links, and must not unsubscribe anyone); POST turns the
    list off for the token's user, whoever is signed in, and says so. Idempotent."""
    found = reminders.read_unsubscribe_token(token)
    if found is None:
        return render(request, "quiz/unsubscribe.html", {"invalid": True}, status=400)
    user_id, list_name = found
    context = {
        "what": reminders.LISTS[list_name][1],
        "someone_else": request.user.is_authenticated and request.user.pk != user_id,
    }
    if request.method == "POST":
        reminders.unsubscribe(user_id, list_name)
        return render(request, "quiz/unsubscribe.html", {**context, "done": True})
    return render(request, "quiz/unsubscribe.html", context)
