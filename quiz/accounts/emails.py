"""An email address that is really the learner's: a signed, single-use link verifies it before
any reminder or password reset goes there, and changing it tells the old address.

The link carries the account, a keyed hash of the address and the moment it was set
(`email_changed_at`), signed with the secret key (django.core.signing): it verifies nothing once used (the account is then
verified), once expired, or once the address changed again, even back to the same one.
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.core import signing
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import salted_hmac

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


def _address_hash(email):
    # The link names the address by a keyed hash: links end up in access logs and Referer headers.
    return salted_hmac(SALT, email.lower()).hexdigest()[:24]


def verification_token(user):
    return signing.dumps({"u": user.pk, "e": _address_hash(user.email), "c": _stamp(user)}, salt=SALT)


def _user_to_verify(token):
    """The account a verification link is for, if it still may be verified. Raises LinkProblem."""
    try:
        data = signing.loads(token, salt=SALT, max_age=settings.EMAIL_VERIFICATION_TIMEOUT)
    except signing.SignatureExpired:
        raise LinkProblem("This link has expired. Send a new one from your account page.") from None
    except signing.BadSignature:
        raise LinkProblem("This link is not one we sent, or it was cut short. Copy the whole link from the email.") from None
    user = User.objects.filter(pk=data.get("u"), is_active=True).first() if isinstance(data, dict) else None
    if user is None:
        raise LinkProblem("The account this link was for no longer exists.")
    if not user.email or _address_hash(user.email) != data.get("e") or _stamp(user) != data.get("c"):
        raise LinkProblem("This link is for an address your account no longer uses. Your account page sends a link for the current one.")
    if user.email_verified_at is not None:
        raise LinkProblem("This link was already used: your address is verified.")
    return user


def check_verification(token):
    """Whether a verification link would work, for the page that asks to confirm (GET)."""
    return _user_to_verify(token)


def verify(token, *, now=None):
    """Verify the address the link was sent to; returns the user. Raises LinkProblem."""
    user = _user_to_verify(token)
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


def send_verification(user, request=None, *, for_reset=False):
    """Email the link that verifies the user's current address. False if none went.
    `for_reset`: the learner asked for a new password with an address not verified yet; the
    email says to confirm it first, then ask again (no reset link goes to an unverified address)."""
    if not user.email or user.email_verified_at is not None:
        return False
    link = absolute(reverse("verify_email", args=[verification_token(user)]), request)
    valid_for = timedelta(seconds=settings.EMAIL_VERIFICATION_TIMEOUT)
    return _send("Confirm your email for Certify", "registration/verify_email_email.txt", user.email,
                 {"user": user, "link": link, "valid_for": valid_for, "for_reset": for_reset})


def set_email(user, email, *, request=None, now=None):
    """Give the account a new address (or none), unverified until its link is followed (the caller
    sends it). A verified old address is told, with a link that takes the account back, so that
    a stolen session cannot quietly move the account's resets elsewhere; an unverified one was
    never shown to be the owner's and gets nothing. False when the address is the same."""
    old, old_verified = user.email, user.email_verified
    if old.lower() == email.lower():
        return False
    user.email, user.email_verified_at, user.email_changed_at = email, None, now or timezone.now()
    user.save(update_fields=["email", "email_verified_at", "email_changed_at"])
    if old_verified:
        undo = signing.dumps({"u": user.pk, "old": old}, salt=UNDO_SALT, compress=True)
        _send("The email address of your Certify account was changed", "registration/email_changed_email.txt", old,
              {"user": user, "new_email": masked(email), "when": user.email_changed_at, "undo_days": UNDO_DAYS,
               "undo_link": absolute(reverse("undo_email_change", args=[undo]), request)})
    return True


def _undo_data(token):
    try:
        data = signing.loads(token, salt=UNDO_SALT, max_age=timedelta(days=UNDO_DAYS))
    except signing.SignatureExpired:
        raise LinkProblem(f"This link has expired: it worked for {UNDO_DAYS} days.") from None
    except signing.BadSignature:
        raise LinkProblem("This link is not one we sent, or it was cut short. Copy the whole link from the email.") from None
    user = User.objects.filter(pk=data.get("u"), is_active=True).first() if isinstance(data, dict) else None
    if user is None:
        raise LinkProblem("The account this link was for no longer exists.")
    if user.email.lower() == str(data.get("old", "")).lower() and user.email_verified:
        raise LinkProblem("This link was already used: the account has this address again.")
    return user, data["old"]


def check_undo(token):
    """Whether an undo link would work, for the page that asks to confirm (GET)."""
    return _undo_data(token)[0]


def undo_change(token, *, now=None):
    """The link sent to the old (verified) address: put it back, verified (its owner just followed
    a link sent there), and sign every device out, so whoever changed it must log in again and the
    owner can reset the password. It works for UNDO_DAYS whatever changed since: a second change
    by the same intruder must not defeat it. An account holding that address unverified (an
    intruder's squat) loses it: only a verified address is an owner's."""
    from .devices import sign_out_everywhere

    user, old = _undo_data(token)
    with transaction.atomic():
        if User.objects.filter(email__iexact=old, email_verified_at__isnull=False).exclude(pk=user.pk).exists():
            raise LinkProblem("Another account has confirmed that address since.")
        User.objects.filter(email__iexact=old).exclude(pk=user.pk).update(email="", email_changed_at=now or timezone.now())
        moment = now or timezone.now()
        user.email, user.email_verified_at, user.email_changed_at = old, moment, moment
        user.save(update_fields=["email", "email_verified_at", "email_changed_at"])
        sign_out_everywhere(user)
    return user


def masked(email):
    """"m***@example.com": enough for the old address's owner to recognise it, not to harvest it."""
    if not email:
        return ""
    name, _, domain = email.partition("@")
    return f"{name[:1]}***@{domain}"
