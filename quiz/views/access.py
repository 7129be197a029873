"""Who may open what: scoped fetches that answer 404 for anything the user may not see, and
the instructor role check (403 for learners)."""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.db.models import BooleanField, Exists, F, FilteredRelation, OuterRef, Q, Subquery
from django.db.models.expressions import RawSQL
from django.db.models.functions import Now
from django.http import Http404
from django.shortcuts import get_object_or_404

from quiz.lib.prepared import PreparedQuery
from quiz.models import Assignment, Attempt, AttemptSlot, Card, Classroom, Deck, Question, QuestionPool, QuestionSet, User


def own_attempt_or_404(request, attempt_id, *, scored=False):
    """The signed-in learner's own attempt: nobody else's attempts exist for them. `scored`
    also reads what its score leaves out (questions excluded by the instructor)."""
    attempts = Attempt.objects.for_user(request.user).select_related("question_set", "user")
    return get_object_or_404(attempts.with_exclusions() if scored else attempts, pk=attempt_id)


def reads_with_session(read):
    """Mark a view whose first read `read(request, **view_kwargs)` names, as (PreparedQuery,
    values): the authentication middleware makes it in the statement that reads the session
    (`quiz.session_backends`), and the view takes it with `read_ahead`. The read must not
    depend on who is signed in: the view checks that the row is theirs."""

    def mark(view):
        view.read_with_session = read
        return view

    return mark


def read_ahead(request, query, values):
    """`query`'s first row for `values`: the one read with the session, when the view's mark
    named this read (taken once), otherwise read now."""
    ahead = getattr(request, "read_ahead", None)
    if ahead is not None and ahead[0] is query and ahead[1] == values:
        del request.read_ahead
        return ahead[2]
    return query.first(**values)


def _learners_own(request, attempt, missing):
    """A read made by its address alone (with the session's, which cannot know the user yet)
    found `attempt`: the signed-in learner's, or a 404 saying `missing` (also when it found
    nothing). Theirs: it takes the request's user, the same row."""
    if attempt is None or attempt.user_id != request.user.pk:
        raise Http404(missing)
    attempt.user = request.user


def slot_read(request, attempt_id, position):
    """The read `own_slot_or_404` makes for attempt_question (an answer's, for a POST)."""
    return _slot_read(attempt_id, position, answering=request.method == "POST")


def _slot_read(attempt_id, position, *, answering):
    return (_SLOTS_TO_ANSWER if answering else _SLOTS), {"attempt": attempt_id, "position": position}


def own_slot_or_404(request, attempt_id, position, *, answering=False):
    """One question of the learner's own attempt, with the attempt, in one query (read with the
    session where the view is marked `reads_with_session(slot_read)`); 404 for anyone else's
    attempt or a position outside it.

    `answering` (a POST) also reads how many questions are left open and the learner's memory
    of this question (`slot.memory`, None when new), so recording and rating the answer need
    no read of their own."""
    slot = read_ahead(request, *_slot_read(attempt_id, position, answering=answering))
    _learners_own(request, slot and slot.attempt, "No such question in your attempts.")
    if answering:
        slot.memory = getattr(slot, "memory", None)  # the outer join sets nothing when there is no row
    return slot


def _another_question_open():
    # Whether an answer is its attempt's last: another open slot, looked for from the end (the
    # slot_position_unique index backwards). Answered in order, the last question is open until
    # the end, so this reads one entry where the COUNT it replaces read every slot of the
    # attempt on every answer. Plain SQL: built by the ORM, it took longer to put together than
    # the whole query takes to run, on the request every answer makes.
    slots = connection.ops.quote_name(AttemptSlot._meta.db_table)
    return RawSQL(
        f'(SELECT 1 FROM {slots} AS "other" WHERE "other"."attempt_id" = {slots}."attempt_id"'
        f' AND "other"."answered_at" IS NULL AND "other"."id" <> {slots}."id"'
        ' ORDER BY "other"."position" DESC LIMIT 1) IS NOT NULL',
        (),
        output_field=BooleanField(),
    )


# Built and compiled once (quiz.lib.prepared): the question page and the answer are the requests
# a learner makes most, and building and compiling these joins took longer than running them.
# The placeholders are values no attempt id or position in a test or a seed reaches.
_PLACEHOLDERS = {"attempt": 1_987_654_321, "position": 1_987_654_323}


def _one_slot(slots, attempt, position):
    return slots.filter(attempt_id=attempt, position=position)[:1]


_SLOTS = PreparedQuery(
    lambda **values: _one_slot(AttemptSlot.objects.select_related("attempt__question_set", "question"), **values),
    **_PLACEHOLDERS,
)
# Without the set: an answer redirects, so its title is only read (lazily, one query) when a
# refused form shows the page again; one join fewer to plan and build on every answer.
_ANSWERING = AttemptSlot.objects.select_related("attempt", "question").annotate(
    another_open=_another_question_open(),  # so answering knows, without a query, if this is the last
    # The attempt's user: the learner, once own_slot_or_404 has checked it.
    memory=FilteredRelation("question__memories", condition=Q(question__memories__user=F("attempt__user"))),
    # Whether an assignment holds the question back from its learner now (the database's clock):
    # a practice attempt begun before the assignment must not answer it with its feedback.
    held_back=Exists(
        Assignment.objects.holding_back(
            learner=OuterRef("attempt__user"),
            learner_for_override=OuterRef(OuterRef("attempt__user")),
            question=OuterRef("question_id"),
            now=Now(),
        )
    ),
).select_related("memory")


def _memory_joined_on_the_slot(sql, connection):
    """The answer's read with the learner's memory joined on the slot's question column rather
    than the question's id (the same value: the question is an inner join). Joined on the
    question table, PostgreSQL's generic plan took that table's size as the number of times the
    join runs, found reading a question's memories through the index's first column cheaper
    than one row by both, and filtered out the other learners: every learner's memory of the
    question read for one (501 rows, 0.35 ms of the read's 0.5, at 10k answers), and more with
    every learner who answers it. On the slot, the plan looks the one row up by question and
    learner."""
    quote = connection.ops.quote_name
    question, slot = quote(Question._meta.db_table), quote(AttemptSlot._meta.db_table)
    column = quote("question_id")
    through_question = f"{question}.{quote('id')} = memory.{column}"
    if sql.count(through_question) != 1:
        raise ValueError(f"the answer's read joins the memory otherwise than on {through_question}")
    return sql.replace(through_question, f"{slot}.{column} = memory.{column}")


_SLOTS_TO_ANSWER = PreparedQuery(
    lambda **values: _one_slot(_ANSWERING, **values), edit_sql=_memory_joined_on_the_slot, **_PLACEHOLDERS
)

# Where an attempt stands, for the `attempt` view that "Next question" and "Continue" lead to:
# the attempt with its set and the position of its first open question, read with the session
# (one statement where it took three).
_ATTEMPT_AND_NEXT_OPEN = PreparedQuery(
    lambda attempt: Attempt.objects.select_related("question_set").annotate(
        next_open_position=Subquery(
            AttemptSlot.objects.filter(attempt=OuterRef("pk"), answered_at__isnull=True)
            .order_by("position")
            .values("position")[:1]
        )
    ).filter(pk=attempt)[:1],
    attempt=_PLACEHOLDERS["attempt"],
)


def attempt_read(request, attempt_id):
    """The read `own_attempt_with_next_or_404` makes, for the `attempt` view's mark."""
    return _ATTEMPT_AND_NEXT_OPEN, {"attempt": attempt_id}


def own_attempt_with_next_or_404(request, attempt_id):
    """The learner's own attempt, with `next_open_position` (None when every question is
    answered); 404 for anyone else's. Read by its id alone (with the session, where the view is
    marked), then checked to be theirs."""
    attempt = read_ahead(request, *attempt_read(request, attempt_id))
    _learners_own(request, attempt, "No such attempt in your attempts.")
    return attempt


# The editor's fetches: only the user's own content, never the library (the admin edits it)
# nor what others share; a retired item is not editable.

def own_set_or_404(request, set_id):
    return get_object_or_404(QuestionSet.objects.owned_by(request.user), pk=set_id)


def own_deck_or_404(request, deck_id):
    return get_object_or_404(Deck.objects.owned_by(request.user), pk=deck_id)


def own_question_or_404(request, question_id):
    questions = Question.objects.current().filter(question_set__in=QuestionSet.objects.owned_by(request.user))
    return get_object_or_404(questions.select_related("question_set"), pk=question_id)


def own_card_or_404(request, card_id):
    cards = Card.objects.current().filter(deck__in=Deck.objects.owned_by(request.user))
    return get_object_or_404(cards.select_related("deck"), pk=card_id)


def instructor_required(view):
    @login_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_instructor:
            raise PermissionDenied("Only instructors can open this page.")
        return view(request, *args, **kwargs)

    return wrapper


def own_classroom_or_404(request, classroom_id):
    return get_object_or_404(Classroom.objects.owned_by(request.user), pk=classroom_id)


def own_assignment_or_404(request, assignment_id):
    assignments = Assignment.objects.owned_by(request.user).select_related("classroom", "pool")
    return get_object_or_404(assignments, pk=assignment_id)


def own_pool_or_404(request, pool_id):
    return get_object_or_404(QuestionPool.objects.filter(owner=request.user), pk=pool_id)


def learner_in_class_or_404(classroom, learner_id):
    return get_object_or_404(User.objects.filter(enrollments__classroom=classroom), pk=learner_id)
