"""The learner's account: signing up (rate-limited per address), resetting a password by email
(rate-limited per address and per email typed; Django's views and tokens), and their study
settings. Failed logins are limited by django-axes (see settings)."""

import logging
from datetime import timedelta

from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView, PasswordChangeView, PasswordResetConfirmView, PasswordResetView
from django.db import IntegrityError, transaction
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django_ratelimit.decorators import ratelimit

from quiz.accounts import devices, emails
from quiz.forms import EmailForm, SignUpForm, StudySettingsForm, VerifiedEmailPasswordResetForm
from quiz.models import User
from quiz.progress.calibration import calibration, calibration_chart, learner_reviews
from quiz.security import address_over_failure_limit, client_address
from quiz.study import personal, workload

security_log = logging.getLogger("quiz.security")


def typed_email(group, request):
    # Letter case and spaces do not make another inbox.
    return request.POST.get("email", "").strip().lower()


@ratelimit(group="password-reset-per-address", key="ip", rate=lambda group, request: settings.RATELIMIT_PASSWORD_RESET,
           method="POST", block=False)
@ratelimit(group="password-reset-per-email", key=typed_email,
           rate=lambda group, request: settings.RATELIMIT_PASSWORD_RESET_PER_EMAIL, method="POST", block=False)
def password_reset(request, *args, **kwargs):
    """Django's password reset, limited per client address and per email typed: each request may
    send an email, and neither one machine nor many may flood an inbox. Whether an account has
    that email is never said: the same "sent" page follows either way (Django's view)."""
    if getattr(request, "limited", False):
        return rate_limited(request, "Asking for password reset emails from this network or for this email address")
    valid_for = timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT)
    return PasswordResetView.as_view(form_class=VerifiedEmailPasswordResetForm,
                                     extra_email_context={"valid_for": valid_for})(request, *args, **kwargs)


class PasswordResetConfirm(PasswordResetConfirmView):
    """Django's "set a new password" page (its tokens: single use, expiring after
    PASSWORD_RESET_TIMEOUT), which also lifts a lockout from failed logins: the locked-out page
    offers a new password as the way back in, and whoever followed the link owns the inbox."""

    def form_valid(self, form):
        response = super().form_valid(form)
        axes_reset(username=form.user.get_username())
        devices.sign_out_everywhere(form.user)  # whoever knew the old password is out too
        security_log.info("password reset", extra={"event": "password_reset", "username": form.user.get_username(),
                                                   "address": client_address(self.request)})
        return response


def rate_limited(request, what):
    """The page for a request over its rate limit (429 Too Many Requests)."""
    security_log.warning("rate limited", extra={"event": "rate_limited", "path": request.path, "what": what})
    return render(request, "registration/rate_limited.html", {"what": what}, status=429)


def log_in(request, *args, **kwargs):
    """Django's login, refused (429) to an address with too many failed logins lately; the
    account itself locks after a few (django-axes)."""
    if request.method == "POST" and address_over_failure_limit(request):
        return rate_limited(request, "Logging in from this network")
    return LoginView.as_view()(request, *args, **kwargs)


@require_http_methods(["GET", "POST"])
@ratelimit(key="ip", rate=lambda group, request: settings.RATELIMIT_SIGNUP, method="POST", block=False)
def signup(request):
    if request.user.is_authenticated:
        return redirect("home")
    if getattr(request, "limited", False):
        return rate_limited(request, "Creating accounts from this network")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            with transaction.atomic():
                user = form.save()
        except IntegrityError:
            # Someone took the name or the email between the form's check and the insert.
            form.add_error(None, "That username or email was taken a moment ago. Please choose another.")
            return render(request, "registration/signup.html", {"form": form})
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.username}! Your first step is the button under “What to do now”.")
        if user.email:
            _say_whether_the_link_went(request, emails.send_verification(user, request))
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
    context = {"form": form, "fit": request.user.schedule_fits.order_by("-fitted_at", "-pk").first(),
               "min_reviews": personal.MIN_REVIEWS,
               "calibration": calibration_chart(calibration(learner_reviews(request.user))), "whose": "your"}
    return render(request, "quiz/settings.html", context, status=400 if form.errors else 200)


@require_POST
@login_required
def optimise_schedule(request):
    """"Optimise my schedule": fit the learner's parameters now (about a second for ten thousand
    reviews) and say what came of it; Settings shows the comparison."""
    fit = personal.optimise(request.user)
    messages.success(request, fit.get_outcome_display())
    return redirect("study_settings")


@require_safe
@login_required
def workload_estimate(request):
    """What each desired retention would cost the learner, from the simulator: computed only
    when asked (a fraction of a second), never on every visit to Settings."""
    today = timezone.now().astimezone(request.user.zone).date()
    return render(request, "quiz/workload.html", {
        "workloads": workload.expected_workload(request.user),
        "suggestion": workload.suggestion(request.user, today),
        "current": request.user.desired_retention,
    })


@require_safe
@login_required
def exam_plan(request):
    """The daily reviews that reach the learner's target on exam day, from the simulator: a few
    dozen simulated runs (tenths of a second for a large bank), so only when asked."""
    today = timezone.now().astimezone(request.user.zone).date()
    template = "quiz/exam_plan.html#plan-summary" if request.htmx else "quiz/exam_plan.html"  # the dashboard's lazy load
    return render(request, template, {"plan": workload.exam_plan(request.user, today)})



# --- The account page: email, password, reminders, devices, one's data --------------------------

@require_safe
@login_required
def account_settings(request):
    return render(request, "quiz/account.html", account_context(request))


def account_context(request, **forms):
    from quiz.accounts.reminders import ReminderSettingsForm

    return {
        "email_form": forms.get("email_form") or EmailForm(instance=request.user),
        "reminder_form": ReminderSettingsForm(instance=request.user),
        "devices": devices.devices_of(request.user, request.session.session_key),
    }


@require_POST
@login_required
@ratelimit(key="user", rate=lambda group, request: settings.RATELIMIT_EMAIL_CHANGE, method="POST", block=False)
def change_email(request):
    """A new address (or none), after the current password: verified by its link before anything
    goes there; a verified old address is told and may take the account back."""
    if getattr(request, "limited", False):
        return rate_limited(request, "Changing your email address")
    form = EmailForm(request.POST, instance=User.objects.get(pk=request.user.pk))
    if not form.is_valid():
        return render(request, "quiz/account.html", account_context(request, email_form=form), status=400)
    try:
        with transaction.atomic():
            changed = emails.set_email(request.user, form.cleaned_data["email"], request=request)
    except IntegrityError:  # another account took the address between the check and the write
        form.add_error("email", "Another account already uses this email address.")
        return render(request, "quiz/account.html", account_context(request, email_form=form), status=400)
    if not changed:
        messages.info(request, "That is already your address.")
    elif not request.user.email:
        messages.success(request, "Your account has no email address now.")
    else:
        _say_whether_the_link_went(request, emails.send_verification(request.user, request))
    return redirect("account_settings")


def _say_whether_the_link_went(request, sent):
    if sent:
        messages.success(request, f"We sent a link to {request.user.email}: open it to confirm the address is yours.")
    else:
        messages.error(request, f"The link to {request.user.email} could not be sent just now. "
                                "Try “Send the link again” in a few minutes.")


@require_POST
@login_required
@ratelimit(key="user", rate=lambda group, request: settings.RATELIMIT_EMAIL_CHANGE, method="POST", block=False)
def send_verification(request):
    if getattr(request, "limited", False):
        return rate_limited(request, "Sending verification links")
    if not request.user.email or request.user.email_verified:
        messages.info(request, "There is nothing to verify: your address is verified, or you have none.")
    else:
        _say_whether_the_link_went(request, emails.send_verification(request.user, request))
    return redirect("account_settings")


@require_http_methods(["GET", "POST"])
def verify_email(request, token):
    """The link in the email: a page with a button (mail scanners follow links, and must not
    confirm an address for whoever typed it), in any browser, signed in or not."""
    try:
        user = emails.verify(token) if request.method == "POST" else emails.check_verification(token)
    except emails.LinkProblem as problem:
        return render(request, "registration/email_link.html", {"problem": str(problem)}, status=400)
    if request.method == "GET":
        return render(request, "registration/email_link.html", {"confirm": user.email})
    return render(request, "registration/email_link.html", {"verified": user.email})


@require_http_methods(["GET", "POST"])
def undo_email_change(request, token):
    """The link sent to an old address: a page first (mail scanners follow links), the undo on POST."""
    try:
        if request.method == "GET":
            emails.check_undo(token)
            return render(request, "registration/email_link.html", {"undo": True})
        user = emails.undo_change(token)
    except emails.LinkProblem as problem:
        return render(request, "registration/email_link.html", {"problem": str(problem)}, status=400)
    security_log.warning("email change undone", extra={"event": "email_change_undone", "user_id": user.pk})
    return render(request, "registration/email_link.html", {"restored": user.email})


@require_POST
@login_required
def sign_out_device(request, device):
    if devices.sign_out(request.user, device, request.session.session_key):
        messages.success(request, "That device is signed out.")
    else:
        messages.info(request, "That device was already signed out.")
    return redirect("account_settings")


@require_POST
@login_required
def sign_out_other_devices(request):
    count = devices.sign_out_others(request.user, request.session.session_key)
    messages.success(request, f"Signed out {count} other device{'s' if count != 1 else ''}." if count
                     else "No other device was signed in.")
    return redirect("account_settings")


class PasswordChange(PasswordChangeView):
    """Django's password change; every other device is signed out with the old password."""

    def form_valid(self, form):
        response = super().form_valid(form)  # keeps this session signed in (a new key)
        devices.sign_out_others(form.user, self.request.session.session_key)
        return response
