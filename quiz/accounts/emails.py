"""An email address that is really the learner's: a signed, single-use link verifies it before
any reminder or password reset goes there, and changing it tells the old address.

The link carries the account, the address and the moment it was set (`email_changed_at`), signed
with the secret key (django.core.signing): it verifies nothing once used (the account is then
verified), once expired, or once the address changed again, even back to the same one.
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.core import signing
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from quiz.models import User

SALT = "quiz.accounts.emails.verify"
UNDO_SALT = "quiz.accounts.emails.undo"
# How long the old address may take the account back after a change it did not make.
UNDO_DAYS = 14
mail_log = logging.getLogger("quiz.security")


class LinkProblem(Exception):
    """Why a verification link verifies nothing, in words for its page."""


# --- The link -----------------------------------------------------------------------------------

def _stamp(user):
    return user.email_changed_at.isoformat() if user.email_changed_at else ""


def verification_token(user):
    return signing.dumps({"u": user.pk, "e": user.email.lower(), "c": _stamp(user)}, salt=SALT, compress=True)


def verify(token, *, now=None):
    """Verify the address the link was sent to; returns the user. Raises LinkProblem."""
    try:
        data = signing.loads(token, salt=SALT, max_age=settings.EMAIL_VERIFICATION_TIMEOUT)
    except signing.SignatureExpired:
        raise LinkProblem("This link has expired. Send a new one from your account page.") from None
    except signing.BadSignature:
        raise LinkProblem("This link is not one we sent, or it was cut short. Copy the whole link from the email.") from None
    user = User.objects.filter(pk=data.get("u"), is_active=True).first() if isinstance(data, dict) else None
    if user is None:
        raise LinkProblem("The account this link was for no longer exists.")
    if not user.email or user.email.lower() != data.get("e") or _stamp(user) != data.get("c"):
        raise LinkProblem("This link is for an address your account no longer uses. Your account page sends a link for the current one.")
    if user.email_verified_at is not None:
        raise LinkProblem("This link was already used: your address is verified.")
    user.email_verified_at = now or timezone.now()
    user.save(update_fields=["email_verified_at"])
    return user


# --- Sending ------------------------------------------------------------------------------------

def absolute(path, request=None):
    return request.build_absolute_uri(path) if request is not None else settings.SITE_URL + path


def _send(subject, template, to, context):
    """Send one email; a mail server that refuses is logged, never an error page (as resets are)."""
    try:
        send_mail(subject, render_to_string(template, context), None, [to])
    except OSError as error:  # smtplib's errors are OSErrors; so are refused connections
        mail_log.error("email not sent", extra={"event": "email_failed", "template": template, "error": str(error)})
        return False
    return True


def send_verification(user, request=None):
    """Email the link that verifies the user's current address. False if none went."""
    if not user.email or user.email_verified_at is not None:
        return False
    link = absolute(reverse("verify_email", args=[verification_token(user)]), request)
    valid_for = timedelta(seconds=settings.EMAIL_VERIFICATION_TIMEOUT)
    return _send("Confirm your email for Certify", "registration/verify_email_email.txt", user.email,
                 {"user": user, "link": link, "valid_for": valid_for})


def set_email(user, email, *, request=None, now=None):
    """Give the account a new address (or none): unverified until its link is followed; the old
    address, if there was one, is told, so a stolen session cannot quietly take the account's
    resets elsewhere. Returns False when the address is the same (in any letter case)."""
    old = user.email
    if old.lower() == email.lower():
        return False
    user.email, user.email_verified_at, user.email_changed_at = email, None, now or timezone.now()
    user.save(update_fields=["email", "email_verified_at", "email_changed_at"])
    if old:
        undo = signing.dumps({"u": user.pk, "old": old, "c": _stamp(user)}, salt=UNDO_SALT, compress=True)
        _send("The email address of your Certify account was changed", "registration/email_changed_email.txt", old,
              {"user": user, "new_email": masked(email), "when": user.email_changed_at, "undo_days": UNDO_DAYS,
               "undo_link": absolute(reverse("undo_email_change", args=[undo]), request)})
    send_verification(user, request)
    return True


def undo_change(token, *, now=None):
    """The link sent to the old address: put it back (verified: its owner just followed a link
    sent there) and sign every device out, so whoever changed it must log in again and the
    owner can reset the password. Works once, while nothing changed the address since."""
    from .devices import sign_out_everywhere

    try:
        data = signing.loads(token, salt=UNDO_SALT, max_age=timedelta(days=UNDO_DAYS))
    except signing.SignatureExpired:
        raise LinkProblem(f"This link has expired: it worked for {UNDO_DAYS} days.") from None
    except signing.BadSignature:
        raise LinkProblem("This link is not one we sent, or it was cut short. Copy the whole link from the email.") from None
    user = User.objects.filter(pk=data.get("u"), is_active=True).first() if isinstance(data, dict) else None
    if user is None:
        raise LinkProblem("The account this link was for no longer exists.")
    if _stamp(user) != data.get("c"):
        raise LinkProblem("The address of this account changed again since, or this link was already used.")
    if User.objects.filter(email__iexact=data["old"]).exclude(pk=user.pk).exists():
        raise LinkProblem("Another account uses that address now.")
    moment = now or timezone.now()
    user.email, user.email_verified_at, user.email_changed_at = data["old"], moment, moment
    user.save(update_fields=["email", "email_verified_at", "email_changed_at"])
    sign_out_everywhere(user)
    return user


def masked(email):
    """"m***@example.com": enough for the old address's owner to recognise it, not to harvest it."""
    if not email:
        return ""
    name, _, domain = email.partition("@")
    return f"{name[:1]}***@{domain}"
