"""Deleting an account ("Delete my account", Settings) and, before it, handing a class over.

What goes and what stays, and why, is docs/accounts-deletion.md. In short: the account and
everything only it used go; what other people's history needs stays under a placeholder account
that names nobody. A learner's answers in their classes' assignments pass to a "Deleted
learner …" of their own (so every class statistic is unchanged), which stays on the rosters of
the classes it answered in only; a set or deck that someone else studied or assigned, a pool an
assignment uses and an archived class pass to the one "Deleted author". Placeholders are
inactive, with no usable password and no email: nobody signs in as one, and nothing is sent to one.

An instructor's active classes block the deletion: a class whose owner vanished would leave its
learners without anyone to run it, so the instructor hands each one over or archives it first."""

import functools
import logging
import secrets

from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django import forms
from django.contrib.admin.models import LogEntry
from django.contrib.auth.hashers import make_password
from django.contrib.contenttypes.models import ContentType
from django.core.mail import send_mail
from django.db import DatabaseError, IntegrityError, models, transaction
from django.db.models import Exists, F, OuterRef, Q, Value
from django.db.models.functions import Cast, Coalesce, Concat, Left
from django.utils import timezone
from lti_tool.models import LtiUser
from qsessions.models import Session

from quiz.accounts.emails import absolute
from quiz.lib.content_version import content_changed, page_cache
from quiz.models import (
    Assignment,
    AssignmentOverride,
    Attempt,
    AttemptSlot,
    Card,
    Classroom,
    Deck,
    Enrollment,
    MemoryState,
    PendingImport,
    PoolQuestion,
    Question,
    QuestionPool,
    QuestionSet,
    ReminderSent,
    ReviewLog,
    ScheduleFit,
    SourceDocument,
    StudyDay,
    Topic,
    User,
)

security_log = logging.getLogger("quiz.security")
logger = logging.getLogger(__name__)

# One shared placeholder for content; one per deleted learner for class history. Both names have a
# space, which sign-up's username validator refuses: nobody can register either or pose as one.
DELETED_AUTHOR = "Deleted author"
DELETED_LEARNER = "Deleted learner"


class DeletionBlocked(Exception):
    """The account still owns active classes (`classes_blocking`): hand them over or archive them."""


# --- What the confirmation page says --------------------------------------------------------------

def classes_blocking(user):
    """The user's active classes: each must be handed over or archived before the account goes."""
    return Classroom.objects.owned_by(user).active().order_by("name", "pk")


def shared_content_that_stays(user):
    """{"sets": …, "decks": …}: the user's sets and decks that someone else used (their attempts,
    memories or reviews, a pool of theirs or an assignment), which pass to "Deleted author" instead of
    being deleted. The same answer before the deletion (the page) and during it (after the user's
    own study is gone): the user's own answers in assignments stay, so they count as someone else's."""
    return {
        "sets": QuestionSet.objects.owned_by(user).filter(_set_used_by_others(user)).order_by("title", "pk"),
        "decks": Deck.objects.owned_by(user).filter(_deck_used_by_others(user)).order_by("title", "pk"),
    }


def keeps_class_history(user):
    """Does the account leave answers in assignments that a class needs (a "Deleted learner")?
    A place on a roster or an extension with no answer behind it keeps nothing: it goes."""
    return Attempt.objects.filter(user=user, assignment__isnull=False).exists()


def _kept_attempts(user):
    """Attempts that stay whoever owns them: anyone else's, and the user's own on assignments."""
    return ~Q(user=user) | Q(assignment__isnull=False)


def _set_used_by_others(user):
    slots = AttemptSlot.objects.filter(question=OuterRef("pk")).filter(
        ~Q(attempt__user=user) | Q(attempt__assignment__isnull=False)
    )
    memories = MemoryState.objects.filter(question=OuterRef("pk")).exclude(user=user)
    # Another user's pool, or one of the user's pools an assignment uses (which stays, see _pass_on_pools).
    pooled = PoolQuestion.objects.filter(question=OuterRef("pk")).filter(
        ~Q(pool__owner=user) | Exists(Assignment.objects.filter(pool=OuterRef("pool")))
    )
    used = Question.objects.filter(question_set=OuterRef("pk")).filter(Exists(slots) | Exists(memories) | Exists(pooled))
    attempts = Attempt.objects.filter(question_set=OuterRef("pk")).filter(_kept_attempts(user))
    return Exists(used) | Exists(attempts)


def _deck_used_by_others(user):
    # A review is of a memory, so another learner's memory of a card covers their reviews of it.
    return Exists(MemoryState.objects.filter(card__deck=OuterRef("pk")).exclude(user=user))


# --- Handing a class over ---------------------------------------------------------------------------

NO_SUCH_INSTRUCTOR = "No active instructor has that username."


class HandOverForm(forms.Form):
    """Another instructor's username, converted to their account: whom a class goes to."""

    username = forms.CharField(max_length=150)

    def __init__(self, *args, classroom, **kwargs):
        # One form per class on the page: their fields' ids differ, their names need not.
        super().__init__(*args, auto_id=f"id_class-{classroom.pk}-%s", **kwargs)
        self.giver_id = classroom.owner_id
        self.fields["username"].label = f"Username of the instructor taking over {classroom.name}"

    def clean_username(self):
        name = self.cleaned_data["username"].strip()
        new_owner = User.objects.filter(username=name, is_active=True, is_instructor=True, is_placeholder=False).first()
        if new_owner is None:
            # One wording whether nobody has the name or a learner does: the form tells no more
            # than whom a class may go to.
            raise forms.ValidationError(NO_SUCH_INSTRUCTOR)
        if new_owner.pk == self.giver_id:
            raise forms.ValidationError("That is you: type the username of the instructor taking the class over.")
        return new_owner


def hand_over(classroom, new_owner):
    """Make `new_owner` the class's instructor, with the pools its assignments use: a pool of
    the giver's that no other class of theirs uses passes to them; any other (one the giver still
    uses elsewhere, or someone else's) is copied for them, and the class's assignments use the
    copy, so the new instructor can open and edit every assignment of the class. Attempts hold
    their questions, not the pool, so they stay as they were. False, and nothing changed, if
    the class was no longer the giver's (a second click)."""
    giver = classroom.owner_id
    with transaction.atomic():
        if not Classroom.objects.filter(pk=classroom.pk, owner=giver).update(owner=new_owner):
            return False
        used_elsewhere = Assignment.objects.filter(pool=OuterRef("pk"), classroom__owner=giver).exclude(classroom=classroom)
        pools = QuestionPool.objects.filter(assignments__classroom=classroom).exclude(owner=new_owner).distinct()
        passing = list(pools.filter(owner=giver).exclude(Exists(used_elsewhere)).values_list("pk", flat=True))
        QuestionPool.objects.filter(pk__in=passing).update(owner=new_owner)
        for pool in pools.exclude(pk__in=passing):
            copy = _copy_pool(pool, new_owner)
            Assignment.objects.filter(classroom=classroom, pool=pool).update(pool=copy)
        content_changed()
        if new_owner.email_verified:
            giver_name = User.objects.filter(pk=giver).values_list("username", flat=True).first()
            transaction.on_commit(lambda: _tell_new_owner(classroom, new_owner, giver_name))
    classroom.owner = new_owner
    return True


def _copy_pool(pool, owner):
    copy = QuestionPool.objects.create(owner=owner, title=pool.title, draw_count=pool.draw_count)
    PoolQuestion.objects.bulk_create(
        PoolQuestion(pool=copy, question_id=entry.question_id, position=entry.position) for entry in pool.entries.all()
    )
    return copy


def _tell_new_owner(classroom, new_owner, giver_name):
    """An email to the class's new instructor (a verified address only). After the commit, and a
    mail server that refuses is logged, never an error: the class is theirs either way."""
    body = (
        f"{giver_name} handed the class {classroom.name} over to you on Certify: its learners, "
        f"assignments and grades are yours now.\n\n{absolute(classroom.get_absolute_url())}\n"
    )
    try:
        send_mail(f"{classroom.name} is now your class", body, None, [new_owner.email])
    except OSError as error:  # smtplib's errors are OSErrors; so are refused connections
        security_log.error("email not sent", extra={"event": "email_failed", "template": "hand_over", "error": str(error)})


# --- The confirmation -------------------------------------------------------------------------------

class ConfirmDeletionForm(forms.Form):
    """The account's password, or its username for an account that has no usable password (one
    an LMS launch made): proof that whoever is at the keyboard means it."""

    confirmation = forms.CharField(strip=False, max_length=4096)

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        field = self.fields["confirmation"]
        if user.has_usable_password():
            field.label, field.widget = "Your password", forms.PasswordInput(attrs={"autocomplete": "current-password"})
        else:
            field.label, field.help_text = "Your username", "Your account has no password: type your username instead."
            field.widget.attrs["autocomplete"] = "off"

    def clean_confirmation(self):
        typed = self.cleaned_data["confirmation"]
        if self.user.has_usable_password():
            if not self.user.check_password(typed):
                raise forms.ValidationError("That is not your password.")
        elif not secrets.compare_digest(typed.strip().encode(), self.user.get_username().encode()):
            raise forms.ValidationError("That is not your username.")
        return typed


# --- The deletion -----------------------------------------------------------------------------------

def delete_account(user, *, now=None):
    """Delete `user` and what only they used, passing on what others' history needs; one
    transaction, so any failure changes nothing. Raises DeletionBlocked while they own an active class."""
    now = now or timezone.now()
    user_id = user.pk
    with transaction.atomic():
        # Locked: a second click waits here, then finds nothing left to delete.
        user = User.objects.select_for_update().filter(pk=user_id).first()
        if user is None:
            return
        if classes_blocking(user).exists():
            raise DeletionBlocked
        if keeps_class_history(user):
            _keep_class_history(user, _new_learner_placeholder(now))
        # The topics that tagged the user's content, read before it goes: those it leaves unused go too.
        topics = list(
            Topic.objects.filter(Q(questions__question_set__owner=user) | Q(cards__deck__owner=user))
            .values_list("pk", flat=True)
            .distinct()
        )
        _delete_own_study(user)
        # Made the first time something passes to it, not for every deletion.
        author = functools.cache(_author_placeholder)
        _pass_on_classes(user, author, now)
        _pass_on_pools(user, author)
        _pass_on_content(user, author)
        _delete_unused_topics(topics)
        _forget_sign_ins(user)
        user.delete()
        content_changed()  # rosters, owners and shared content changed for everyone's dashboard
        transaction.on_commit(lambda: _forget_dashboard(user_id))
    # The id only: the log outlives the account, and must not name the person who left.
    security_log.info("account deleted", extra={"event": "account_deleted", "user_id": user_id})


def _new_learner_placeholder(now):
    """A "Deleted learner …" of the learner's own, so per-learner counts and statistics do not
    merge two people. Six hex digits can repeat one day: another name is drawn then. Made
    (`date_joined`) at the deletion: the gradebook counts it in the completion of an assignment
    it did not answer only if that was already due by then (quiz.teaching.gradebook)."""
    for _ in range(10):
        try:
            with transaction.atomic():
                return User.objects.create_user(
                    f"{DELETED_LEARNER} {secrets.token_hex(3)}", email="", password=None,
                    is_active=False, is_placeholder=True, date_joined=now,
                )
        except IntegrityError:
            continue
    raise IntegrityError("no free name for a deleted learner's placeholder")


def _author_placeholder():
    # get_or_create: two deletions at once both end up with the one row.
    author, _ = User.objects.get_or_create(
        username=DELETED_AUTHOR, is_placeholder=True,
        defaults={"is_active": False, "email": "", "password": make_password(None)},
    )
    return author


def _keep_class_history(user, learner):
    """The user's answers in assignments pass to `learner`, with their places on the rosters of
    the classes they answered in and their extensions on the assignments they answered:
    gradebooks and item analyses count the same rows as before. Their other places and extensions
    go (_delete_own_study): a placeholder on the roster of a class it never answered in would only
    be counted as missing everything the class is set from now on."""
    attempts = Attempt.objects.filter(user=user, assignment__isnull=False)
    Enrollment.objects.filter(learner=user, classroom__in=attempts.values("assignment__classroom")).update(learner=learner)
    AssignmentOverride.objects.filter(learner=user, assignment__in=attempts.values("assignment")).update(learner=learner)
    attempts.update(user=learner)  # last: the two above read these rows as the user's


def _delete_own_study(user):
    """Everything else the user did: self-study quizzes and mock exams (with their answers), memory
    and reviews, schedule fits, counted days, imports waiting, reminders sent, and places on
    rosters and extensions that no answer kept."""
    ReviewLog.objects.filter(user=user).delete()
    MemoryState.objects.filter(user=user).delete()
    Attempt.objects.filter(user=user).delete()  # only self-study is left: assignments' passed on
    for model in (ScheduleFit, StudyDay, ReminderSent):
        model.objects.filter(user=user).delete()
    Enrollment.objects.filter(learner=user).delete()
    AssignmentOverride.objects.filter(learner=user).delete()
    PendingImport.objects.filter(owner=user).delete()


def _pass_to(author, rows, **changes):
    """Give `rows` to `author` (a call that makes the placeholder if need be), if there are any."""
    ids = list(rows.values_list("pk", flat=True))
    if ids:
        rows.model.objects.filter(pk__in=ids).update(owner=author(), **changes)
    return ids


def _pass_on_classes(user, author, now):
    """Archived classes pass to "Deleted author", with their learners' attempts. A class made
    after the check (another tab) is archived on the way, never deleted with its history."""
    _pass_to(author, Classroom.objects.filter(owner=user), archived_at=Coalesce(F("archived_at"), Value(now)))


def _pass_on_pools(user, author):
    """A pool an assignment uses stays (an assignment needs its pool); the others go."""
    _pass_to(author, QuestionPool.objects.filter(owner=user).filter(Exists(Assignment.objects.filter(pool=OuterRef("pk")))))
    QuestionPool.objects.filter(owner=user).delete()


def _pass_on_content(user, author):
    """Sets and decks someone else used pass to "Deleted author" with their source documents,
    visibility unchanged; the rest is deleted. Read after the user's own study is gone, so what
    is left of it is others' use."""
    stays = shared_content_that_stays(user)
    for model, kept in ((QuestionSet, stays["sets"]), (Deck, stays["decks"])):
        kept_ids = _pass_to(author, kept)
        sources = model.objects.filter(pk__in=kept_ids, source__isnull=False).values("source")
        # A document is known by its file name among its owner's, and two deleted authors may each
        # have had a "notes.csv": its id in front keeps the names apart (nobody imports as "Deleted author").
        renamed = Left(Concat(Cast("pk", models.CharField()), Value(" "), "file_name"), 255)
        _pass_to(author, SourceDocument.objects.filter(pk__in=sources), file_name=renamed)
        model.objects.filter(owner=user).delete()
    SourceDocument.objects.filter(owner=user).delete()


def _delete_unused_topics(topic_ids):
    """Of the topics that tagged the user's content, those no question or card uses any more: a
    topic's name is someone's words ("Zoe's diary"), and one no content carries tags nothing.
    Never any other topic, unused or not: it was not the user's to take."""
    questions = Question.objects.filter(topics=OuterRef("pk"))
    cards = Card.objects.filter(topics=OuterRef("pk"))
    Topic.objects.filter(pk__in=topic_ids).exclude(Exists(questions) | Exists(cards)).delete()


def _forget_sign_ins(user):
    """Sessions on every device (qsessions' delete also empties their cache), the LMS identities
    linked to the account, the failed logins
    and sign-ins django-axes recorded under what was typed as the username (the username or the
    email address, any letter case), and the admin's log of changes to the account (its entries
    made by the account go with it)."""
    Session.objects.filter(user=user).delete()
    typed = Q(username__iexact=user.get_username())
    if user.email:
        typed |= Q(username__iexact=user.email)
    for model in (AccessAttempt, AccessLog, AccessFailureLog):
        model.objects.filter(typed).delete()
    about_user = ContentType.objects.get_for_model(User)
    LogEntry.objects.filter(content_type=about_user, object_id=str(user.pk)).delete()
    # The account's identities at LMS platforms (their names, email, course memberships): a
    # later launch from the course starts afresh. Django would only unlink them (SET_NULL).
    LtiUser.objects.filter(auth_user=user).delete()


def _forget_dashboard(user_id):
    """Drop the kept dashboard (quiz.progress.dashboard_cache keeps it as "dashboard:<id>"). After
    the commit, and never an error for a deletion that has committed: the entry expires anyway."""
    try:
        page_cache().delete(f"dashboard:{user_id}")
    except DatabaseError:
        logger.exception("account deleted, but its kept dashboard could not be dropped")
