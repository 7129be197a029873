"""LTI 1.3 launches from a course of an LMS (quiz.lti): the OIDC login the platform starts, the
launch it posts, the first launch's choice of account, and the page an administrator copies the
tool's URLs from. docs/lti.md tells how to register the tool in Moodle and in Canvas."""

import logging
from contextlib import nullcontext
from urllib.parse import urlencode, urlsplit

from csp.constants import NONE
from csp.decorators import csp_replace, csp_update
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.db import transaction
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from lti_tool.models import Key, LtiContext, LtiRegistration, LtiUser
from lti_tool.utils import DjangoToolConfig, sync_data_from_launch
from pylti1p3.contrib.django import DjangoOIDCLogin
from pylti1p3.exception import LtiException, OIDCException

from quiz.forms import AssignmentForm
from quiz.lib.content_version import content_changed
from quiz.lti.accounts import AlreadyLinked, StaffAccount, link_account, linked_account, new_account
from quiz.lti.classes import course_id, enter_course, learns, platform_origins, teaches
from quiz.lti.deep_linking import assignment_link, practice_choices, practice_link
from quiz.lti.deep_linking import response as deep_link_response
from quiz.lti.grades import AGS_CLAIM, record_line_item
from quiz.lti.launches import LAUNCHES, use_nonce, validated_launch
from quiz.lti.registration import registration_link
from quiz.lti.roster import sync_roster_quietly
from quiz.lti.targets import follow_lms_dates, linked_assignment, target_url
from quiz.models import Classroom
from quiz.security import address_over_failure_limit, client_address
from quiz.views.accounts import rate_limited

log = logging.getLogger("quiz.security")
BACKEND = "django.contrib.auth.backends.ModelBackend"
WELCOME = "lti_welcome"  # the session's first launch waiting for the learner's choice of account
DEEP_LINK = "lti_deep_link"  # {deep-linking launch id: class}: the pickers open in this session
MAX_PICKERS = 5
WELCOME_SECONDS = 15 * 60
CUSTOM = "https://purl.imsglobal.org/spec/lti/claim/custom"
# What an OIDC login initiation carries (LTI 1.3 core, 5.1.1), passed on to the new window.
LOGIN_FIELDS = ("iss", "login_hint", "target_link_uri", "lti_message_hint", "lti_deployment_id", "client_id")


@csrf_exempt
@require_http_methods(["GET", "POST"])
def login_initiation(request, registration_uuid):
    """The platform's first step (OIDC third-party login): send the browser to the platform's
    login with a state (a cookie of this browser) and a nonce, back to the launch URL."""
    params = request.POST if request.method == "POST" else request.GET
    if not params.get("target_link_uri"):
        return _refused(request, "the course sent no target link")
    if request.headers.get("Sec-Fetch-Dest") == "iframe":
        return _open_in_new_window(request, registration_uuid, params)
    oidc_login = DjangoOIDCLogin(request, DjangoToolConfig(registration_uuid),
                                 launch_data_storage=LAUNCHES())
    try:
        return oidc_login.redirect(request.build_absolute_uri(reverse("lti_launch")))
    except (LtiException, OIDCException) as error:
        return _refused(request, str(error))


def _open_in_new_window(request, registration_uuid, params):
    """The LMS shows the tool inside its page: the app's session cookie (SameSite=Lax, as outside
    an LMS) is not sent to a page framed by another site, so the launch goes on in a window of
    its own, opened by the learner (a browser opens one only on a click). This page, and only
    it, may be framed, and only by the registered platforms."""
    fields = {name: params[name] for name in LOGIN_FIELDS if params.get(name)}
    url = request.build_absolute_uri(reverse("lti_login", args=[registration_uuid])) + "?" + urlencode(fields)
    page = render(request, "lti/open_in_new_window.html", {"url": url})
    framing = xframe_options_exempt(csp_replace({"frame-ancestors": platform_origins() or [NONE]})(lambda request: page))
    return framing(request)


@csrf_exempt
@require_POST
def launch(request):
    """The platform's launch: its id_token checked (quiz.lti.launches), what it says recorded,
    and the learner signed in to their linked account, or asked which account at the first one."""
    try:
        lti_launch = validated_launch(request)
        if not (lti_launch.is_resource_launch or lti_launch.is_deep_link_launch):
            raise LtiException("this kind of launch is not supported yet")
        if not course_id(lti_launch.context_claim):
            raise LtiException("the launch names no course (its context claim), and a class here is a course's")
        if lti_launch.is_deep_link_launch and not teaches(lti_launch.roles_claim):
            raise LtiException("only the course's instructors add activities from this tool")
        with transaction.atomic():
            use_nonce(lti_launch)
            sync_data_from_launch(lti_launch)
        arriving = {
            "lti_user": lti_launch.user.pk, "context": lti_launch.context.pk,
            "teaching": teaches(lti_launch.roles_claim), "learning": learns(lti_launch.roles_claim),
            "platform": lti_launch.registration.name,
            "custom": lti_launch.get_claim(CUSTOM) if lti_launch.is_resource_launch else None,
            "ags": lti_launch.get_claim(AGS_CLAIM) if lti_launch.is_resource_launch else None,
            "deep_link": lti_launch.get_launch_id() if lti_launch.is_deep_link_launch else None,
            "at": timezone.now().timestamp(),
        }
    except LtiException as error:
        return _refused(request, str(error))
    except Exception as error:  # noqa: BLE001
        # A signed claim of another shape than the specification's (a list for an object, a
        # value longer than its column...) reaches pylti1p3's or django-lti's code as it is: the
        # launch is refused, written nowhere (the transaction), never a server error.
        log.warning("lti launch unreadable", extra={"event": "lti_refused", "reason": type(error).__name__})
        return _refused(request, "the launch's claims do not read as the LTI specification writes them")
    lti_user = LtiUser.objects.select_related("auth_user").get(pk=arriving["lti_user"])
    if lti_user.auth_user_id and not lti_user.auth_user.is_active:
        return _refused(request, "the account this course signs you in to was switched off by the site's administrator")
    if account := linked_account(lti_user):
        return _arrive(request, account, arriving)
    request.session[WELCOME] = arriving
    return redirect("lti_welcome")


@require_http_methods(["GET", "POST"])
def welcome(request):
    """A first launch: a new account, or the learner's existing one, linked by signing in. The
    choice waits a quarter of an hour, and only for the browser that launched while nobody else
    signed in to it since."""
    arriving = request.session.get(WELCOME)
    if not arriving or timezone.now().timestamp() - arriving.get("at", 0) > WELCOME_SECONDS:
        request.session.pop(WELCOME, None)
        return _refused(request, "no launch is waiting here: start it again from the course")
    if request.user.is_authenticated:  # someone signed in to this browser after the launch
        request.session.pop(WELCOME, None)
        return _refused(request, "someone signed in here since the launch: start it again from the course")
    lti_user = LtiUser.objects.get(pk=arriving["lti_user"])
    linking = request.method == "POST" and request.POST.get("choice") == "link"
    if linking and address_over_failure_limit(request):
        return rate_limited(request, "Logging in from this network")
    form = AuthenticationForm(request, data=request.POST if linking else None)
    form.fields["username"].widget.attrs.pop("autofocus", None)  # the first choice is a new account
    if request.method == "POST" and request.POST.get("choice") == "new":
        return _arrive(request, new_account(lti_user), arriving)
    if form.is_bound and form.is_valid():
        try:
            account = link_account(lti_user, form.get_user())
        except AlreadyLinked:
            form.add_error(None, f"This account is already linked to another user of {arriving['platform']}.")
        except StaffAccount:
            form.add_error(None, "A staff account cannot be linked to a course: use a learner's or instructor's account.")
        else:
            return _arrive(request, account, arriving)
    context = {"form": form, "platform": arriving["platform"], "lti_user": lti_user}
    return render(request, "lti/welcome.html", context, status=200 if not form.errors else 422)


def _arrive(request, account, arriving):
    request.session.pop(WELCOME, None)
    login(request, account, backend=BACKEND)
    context = LtiContext.objects.get(pk=arriving["context"])
    arrival = enter_course(account, context, teaching=arriving["teaching"], learning=arriving.get("learning", True))
    classroom = arrival.classroom
    if arrival.standing == "owner":
        sync_roster_quietly(classroom)  # outside any transaction: no lock held while the LMS answers
    if arriving.get("deep_link") and arrival.standing == "owner":
        if classroom.archived_at:
            messages.error(request, f"{classroom.name} is archived: restore it before adding activities to it.")
            return redirect(classroom)
        pickers = request.session.get(DEEP_LINK) or {}
        pickers = dict(list(pickers.items())[-(MAX_PICKERS - 1):])  # a few tabs, not every launch ever
        pickers[arriving["deep_link"]] = classroom.pk
        request.session[DEEP_LINK] = pickers
        return redirect(f"{reverse('lti_deep_link')}?{urlencode({'launch': arriving['deep_link']})}")
    if classroom is not None and arrival.standing in ("owner", "learner"):
        if arrival.standing == "owner":  # the LMS's dates, as its instructor sees them (not a learner's extension)
            follow_lms_dates(classroom, arriving.get("custom"))
        if assignment := linked_assignment(classroom, arriving.get("custom")):
            record_line_item(assignment, arriving.get("ags"))
        if target := target_url(arriving.get("custom"), account, classroom, teaching=arrival.standing == "owner"):
            return redirect(target)
    if arrival.standing == "owner":
        return redirect(classroom)
    if arrival.standing == "learner":
        messages.success(request, f"You are in {classroom.name}.")
        return redirect("my_classes")
    if arrival.standing == "another instructor's":
        messages.info(request, f"{classroom.name} is run here by {classroom.owner.username}, who opened it first "
                      "from the course: ask them to hand it over if it should be yours.")
    elif arrival.standing == "archived":
        messages.info(request, f"{classroom.name} has been archived by its instructor.")
    elif arrival.standing == "no role":
        messages.info(request, "Your role in the course is neither a learner's nor an instructor's: you are signed "
                      "in, but not in its class.")
    else:
        messages.info(request, "Your course's instructor has not opened it here yet: your class appears once they do.")
    return redirect("home")


@require_http_methods(["GET", "POST"])
@login_required
def deep_link(request):
    """The LMS's picker: what the new activity opens here (quiz.lti.deep_linking). Each picker
    names its launch, so two tabs of two courses each add to their own."""
    launch_id = request.POST.get("launch") or request.GET.get("launch") or ""
    classroom_id = (request.session.get(DEEP_LINK) or {}).get(launch_id)
    classroom = Classroom.objects.filter(pk=classroom_id, owner=request.user, archived_at=None).first()
    if classroom is None:
        return _refused(request, "no activity is being added here: start again from the course")
    kind = request.POST.get("kind")
    form = AssignmentForm(request.POST if kind == "assignment" else None, owner=request.user,
                          initial=AssignmentForm.default_dates(timezone.now()))
    sets, decks = practice_choices(request.user)
    launch_url = request.build_absolute_uri(reverse("lti_launch"))
    resource = None
    try:
        with transaction.atomic() if kind else nullcontext():  # an assignment is made only if the LMS gets its link
            if kind == "assignment" and form.is_valid():
                assignment = form.save(commit=False)
                assignment.classroom = classroom
                assignment.save()
                content_changed()
                resource = assignment_link(assignment, launch_url)
            elif kind in ("set", "deck"):
                chosen = next((item for item in (sets if kind == "set" else decks)
                               if str(item.pk) == request.POST.get(kind)), None)
                resource = practice_link(kind, chosen, launch_url) if chosen else None
            if resource is not None:
                return_url, jwt = deep_link_response(request, launch_id, [resource])
    except (LtiException, KeyError, TypeError, AttributeError):  # the stored launch expired (a day) or was evicted
        return _refused(request, "the course's request to add an activity expired: start again from the course")
    if resource is not None:
        pickers = request.session.get(DEEP_LINK) or {}
        pickers.pop(launch_id, None)
        request.session[DEEP_LINK] = pickers
        return _deep_link_return(request, return_url, jwt, resource.get_title())
    context = {"classroom": classroom, "form": form, "sets": sets, "decks": decks, "launch": launch_id,
               "problem": kind in ("set", "deck")}
    return render(request, "lti/deep_link.html", context, status=422 if form.errors or kind in ("set", "deck") else 200)


def _deep_link_return(request, return_url, jwt, title):
    """The signed answer to the LMS, posted back by the browser (by itself, or with the button)."""
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(return_url))
    page = render(request, "lti/deep_link_return.html", {"return_url": return_url, "jwt": jwt, "title": title})
    return csp_update({"form-action": [origin]})(lambda request: page)(request)


def _refused(request, reason):
    log.info("lti launch refused", extra={"event": "lti_refused", "reason": reason, "address": client_address(request)})
    return render(request, "lti/refused.html", {"reason": reason}, status=400)


@require_safe
@staff_member_required
def configuration(request):
    """What an administrator enters in the platform: every URL of the tool, per registration."""
    registrations = LtiRegistration.objects.order_by("name").prefetch_related("deployments")
    context = {
        "registrations": registrations,
        "launch_url": request.build_absolute_uri(reverse("lti_launch")),
        "jwks_url": request.build_absolute_uri(reverse("lti_jwks")),
        "has_key": Key.objects.active().exists(),
        "registration_link": registration_link(request),
    }
    return render(request, "lti/configuration.html", context)
