"""Whose account a launch signs in. The platform's user id (django-lti's LtiUser: registration and
`sub`) is linked to one account here. At the first launch the learner chooses: a new account,
made from what the platform says (no password: they come back through the course), or their
existing account, which they link by signing in to it. A link is made once; an account is linked
to one user of a platform at most."""

import secrets

from django.contrib.auth import get_user_model
from django.db import transaction
from lti_tool.models import LtiUser

MAX_USERNAME = 150


class AlreadyLinked(Exception):
    """The account is linked to another user of the same platform."""


class StaffAccount(Exception):
    """A staff account: never signed in to by an LMS (an LMS administrator "acting as" a user
    would get the site's admin without its password)."""


def linked_account(lti_user):
    """The account linked to `lti_user`, or None. An account the administrator switched off is
    still linked: the launch refuses it (quiz.views.lti) rather than make another."""
    return lti_user.auth_user if lti_user.auth_user_id else None


def new_account(lti_user):
    """A new account for `lti_user`, linked to it: its username from the platform's name for the
    learner (made unique), its password unusable (it signs in through its course)."""
    User = get_user_model()
    with transaction.atomic():
        locked = LtiUser.objects.select_for_update().get(pk=lti_user.pk)
        if account := linked_account(locked):
            return account  # a second click, or another tab, got here first
        account = User(username=_free_username(locked), first_name=locked.given_name[:150],
                       last_name=locked.family_name[:150])
        account.set_unusable_password()
        account.save()
        locked.auth_user = account
        locked.save(update_fields=["auth_user", "datetime_modified"])
        return account


def link_account(lti_user, account):
    """Link `lti_user` to the existing `account` (whose owner just signed in to it). Raises
    AlreadyLinked when the account is another user's of this platform; a user already linked
    keeps their link."""
    if account.is_staff or account.is_superuser:
        raise StaffAccount
    with transaction.atomic():
        locked = LtiUser.objects.select_for_update().get(pk=lti_user.pk)
        if existing := linked_account(locked):
            return existing
        others = LtiUser.objects.filter(registration_id=locked.registration_id, auth_user=account).exclude(pk=locked.pk)
        if others.exists():
            raise AlreadyLinked
        locked.auth_user = account
        locked.save(update_fields=["auth_user", "datetime_modified"])
        return account


def _free_username(lti_user):
    User = get_user_model()
    wanted = "".join(char for char in (lti_user.name or lti_user.given_name or "learner").lower()
                     if char.isalnum() or char in "._-")[:40] or "learner"
    for candidate in [wanted] + [f"{wanted}-{secrets.token_hex(3)}" for _ in range(5)]:
        if not User.objects.filter(username__iexact=candidate).exists():
            return candidate
    return f"learner-{secrets.token_hex(8)}"
