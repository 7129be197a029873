"""The question page's and the answer's slot read, built and compiled once (quiz.lib.prepared):
it must return exactly what the plain queryset returns, for any learner, attempt and position."""

import threading

import pytest
from django.db import connections
from django.db.models.functions import Length
from django.urls import reverse
from django.utils import timezone

from quiz import session_backends as sessions
from quiz.lib.prepared import PreparedQuery
from quiz.models import AttemptSlot, QuestionSet, UserSession
from quiz.study import scheduling
from quiz.views import access
from tests.factories import make_question_set, make_user, start_attempt
from tests.helpers import AUTH, HTMX, logged_in

pytestmark = pytest.mark.django_db


def plain(slots, attempt, position):
    """The same read through the ORM, built afresh."""
    return slots.filter(attempt_id=attempt, position=position).first()


def fields(slot):
    return {field.attname: getattr(slot, field.attname) for field in AttemptSlot._meta.concrete_fields}


def test_the_prepared_reads_return_what_the_orm_returns_for_each_learner_and_position(learner):
    other = make_user("someone-else")
    question_set = make_question_set(questions=3)
    mine, theirs = start_attempt(learner, question_set), start_attempt(other, question_set)
    first = mine.slots.get(position=1).question
    scheduling.rate(user=learner, kind="question", item=first, rating=3, source="review")  # a memory on one slot

    for attempt, user in ((mine, learner), (theirs, other)):
        for position in (1, 2, 3):
            values = {"attempt": attempt.pk, "position": position}
            shown = access._SLOTS.first(**values)
            answering = access._SLOTS_TO_ANSWER.first(**values)
            expected = plain(access._ANSWERING, **values)

            assert fields(shown) == fields(answering) == fields(expected)
            assert shown.attempt.question_set.title == question_set.title  # select_related, no query
            assert answering.question.stem == expected.question.stem
            assert answering.another_open is expected.another_open is True
            assert answering.held_back is expected.held_back is False
            memory = getattr(answering, "memory", None)
            assert (memory is not None) == (user == learner and position == 1 and attempt == mine)

    # A position outside the attempt: nothing. Whose attempt it is, own_slot_or_404 checks.
    assert access._SLOTS.first(attempt=mine.pk, position=4) is None
    assert access._SLOTS.first(attempt=theirs.pk, position=1).attempt.user_id == other.pk


def test_the_answers_read_joins_the_memory_on_the_slots_question_or_refuses_to_compile():
    # The rewrite (tests/test_query_plans.py has the plan it is for) changes one join condition,
    # and only one that is there: a query built otherwise fails on its first run, not silently.
    compiled = access._SLOTS_TO_ANSWER._compile()[2]
    assert '"quiz_attemptslot"."question_id" = memory."question_id"' in compiled
    assert '"quiz_question"."id" = memory."question_id"' not in compiled
    with pytest.raises(ValueError, match="joins the memory otherwise"):
        access._memory_joined_on_the_slot('SELECT 1 FROM "quiz_memorystate" memory', connections["default"])


def test_ids_beyond_what_the_database_stores_are_a_404_not_a_500(learner):
    client = logged_in(learner)
    huge = 2**70

    assert client.get(f"/attempts/{huge}/questions/1/").status_code == 404
    assert client.post(f"/attempts/1/questions/{huge}/", {"choice": "1"}).status_code == 404


def test_a_query_is_built_once_and_a_missing_placeholder_is_refused(learner):
    built = []

    def build(user):
        built.append(user)
        return AttemptSlot.objects.filter(attempt__user_id=user)[:1]

    attempt = start_attempt(learner, make_question_set(questions=1))
    prepared = PreparedQuery(build, user=1_987_654_322)
    assert prepared.first(user=learner.pk).attempt_id == attempt.pk
    assert prepared.first(user=learner.pk + 1000) is None
    assert built == [1_987_654_322]

    with pytest.raises(ValueError, match="placeholders not found"):
        PreparedQuery(lambda user: AttemptSlot.objects.all()[:1], user=1_987_654_322).first(user=1)


def test_compiling_leaves_the_shared_query_as_built(learner):
    # Threads compiling one shared Query at once cached SQL without the memory's join (a 500 on
    # every answer until a restart): each compile works on a copy, under a lock.
    prepared = PreparedQuery(access._SLOTS_TO_ANSWER._build, **access._PLACEHOLDERS)
    attempt = start_attempt(learner, make_question_set(questions=1))
    built_joins = len(access._SLOTS_TO_ANSWER._build(**access._PLACEHOLDERS).query.alias_map)

    assert prepared.first(attempt=attempt.pk, position=1).attempt_id == attempt.pk
    assert len(prepared._queryset.query.alias_map) == built_joins
    assert access._SLOTS_TO_ANSWER.first(attempt=attempt.pk, position=1).attempt_id == attempt.pk


@pytest.mark.django_db(transaction=True)
def test_each_connection_converts_values_with_its_own_converters(learner):
    # The converters (datetimes on SQLite, JSON) are kept per connection: a thread's own
    # connection reads the same values as the first one, and gets converters of its own.
    attempt = start_attempt(learner, make_question_set(questions=2))
    attempt.record_answer(attempt.slots.get(position=1), 1)
    values = {"attempt": attempt.pk, "position": 1}
    here = access._SLOTS.first(**values)
    there = []

    def read():
        there.append(access._SLOTS.first(**values))
        there.append(connections["default"])
        there.append(connections["default"] in access._SLOTS._converters)
        connections["default"].close()

    thread = threading.Thread(target=read)
    thread.start()
    thread.join()

    assert fields(there[0]) == fields(here)
    assert here.answered_at.tzinfo is not None and here.shown_choices[0]["text"]
    assert there[1] is not connections["default"] and there[2]  # the thread's own connection, its own entry
    assert connections["default"] in access._SLOTS._converters


def test_the_question_page_still_reads_the_slot_in_one_query(learner, django_assert_num_queries):
    attempt = start_attempt(learner, make_question_set(questions=2))
    client = logged_in(learner)
    client.get(reverse("attempt_question", args=[attempt.pk, 1]))  # warms the session

    with django_assert_num_queries(AUTH):  # the session, its user, and the slot with its attempt, set and question
        assert client.get(reverse("attempt_question", args=[attempt.pk, 1])).status_code == 200


def test_a_value_of_another_type_than_its_placeholder_matches_nothing(learner):
    attempt = start_attempt(learner, make_question_set(questions=1))
    values = {"attempt": attempt.pk, "position": 1}
    assert access._SLOTS.first(**values) is not None
    assert access._SLOTS.first(**{**values, "attempt": str(attempt.pk)}) is None
    assert access._SLOTS.first(**{**values, "position": True}) is None  # a bool is not a position

    by_title = PreparedQuery(lambda title: QuestionSet.objects.filter(title=title), title="prepared:title")
    assert by_title.first(title=attempt.question_set.title) == attempt.question_set
    assert by_title.first(title=1) is None


def test_the_catch_up_question_matches_the_orm_for_expired_attempts_and_answers_to_release(learner):
    from datetime import timedelta

    from django.utils import timezone

    from quiz.models import Attempt, AttemptSlot
    from quiz.study.answers import pending_release
    from quiz.study.catch_up import _OWED
    from tests.helpers import answer_at

    other, now = make_user("someone-else"), timezone.now()
    question_set = make_question_set(questions=2)

    def owed(user, at):
        row = _OWED.first(user_id=user.pk, now=at)
        expected = (Attempt.objects.filter(user=user).expired(at).exists(),
                    pending_release(AttemptSlot.objects.filter(attempt__user=user), at).exists())
        assert (row.expired, row.pending) == expected
        return expected

    assert owed(learner, now) == (False, False)
    timed = start_attempt(learner, question_set, feedback="deferred")
    Attempt.objects.filter(pk=timed.pk).update(deadline=now + timedelta(minutes=5))
    assert owed(learner, now) == (False, False)
    assert owed(learner, now + timedelta(minutes=6)) == (True, False)  # its time ran out
    assert owed(other, now + timedelta(minutes=6)) == (False, False)  # someone else's

    Attempt.objects.filter(pk=timed.pk).update(deadline=None, reveal_at=now + timedelta(days=1))
    timed.refresh_from_db()
    answer_at(timed, timed.slots.order_by("position").first(), right=True, at=now)
    Attempt.objects.filter(pk=timed.pk).update(finished_at=now)
    assert owed(learner, now) == (False, False)  # held back until tomorrow
    assert owed(learner, now + timedelta(days=1, seconds=1)) == (False, True)
    assert _OWED.first(user_id=2**63, now=now) is None  # beyond any id: nobody


def test_a_prepared_update_writes_what_queryset_update_writes_and_only_where_its_guard_holds(learner):
    from datetime import timedelta

    from django.db.models import F
    from django.db.models.functions import Least
    from django.utils import timezone

    from quiz.lib.prepared import PreparedUpdate
    from quiz.models import Attempt

    attempt = start_attempt(learner, make_question_set(questions=2))
    twin = start_attempt(make_user("twin"), make_question_set(questions=2))
    now = timezone.now()
    open_at = PreparedUpdate(
        lambda attempt, now: Attempt.objects.filter(pk=attempt, finished_at__isnull=True).exclude(deadline__lt=now),
        attempt=1_987_654_321,
        now=now.replace(year=2999),
    )

    # Plain values (None among them), an expression over the row's own column, the placeholder
    # used twice: the row changes as QuerySet.update would change it, and no other row does.
    values = {"last_answered_at": now, "reveal_at": None, "question_count": Least(F("question_count") + 5, 6)}
    assert open_at.run(values, attempt=attempt.pk, now=now) == 1
    attempt.refresh_from_db()
    assert (attempt.last_answered_at, attempt.reveal_at, attempt.question_count) == (now, None, 6)
    assert Attempt.objects.get(pk=twin.pk).last_answered_at is None

    # The guard: past its deadline, or finished, the attempt is left as it was.
    Attempt.objects.filter(pk=attempt.pk).update(deadline=now)
    assert open_at.run({"last_answered_at": now + timedelta(seconds=1)}, attempt=attempt.pk, now=now + timedelta(seconds=1)) == 0
    assert open_at.run({"last_answered_at": now}, attempt=attempt.pk, now=now - timedelta(seconds=1)) == 1
    Attempt.objects.filter(pk=attempt.pk).update(finished_at=now)
    assert open_at.run({"last_answered_at": now}, attempt=attempt.pk, now=now - timedelta(seconds=1)) == 0

    assert open_at.run({"last_answered_at": now}, attempt=2**64, now=now) == 0  # beyond any id: no row
    # A caller's mistake is never taken for "no row": a value of the wrong type, or one left out.
    with pytest.raises(TypeError):
        open_at.run({"last_answered_at": now}, attempt=str(twin.pk), now=now)
    with pytest.raises(TypeError):
        open_at.run({"last_answered_at": now}, attempt=twin.pk)


def test_a_prepared_update_takes_a_foreign_key_as_an_instance_or_an_id(learner):
    from quiz.lib.prepared import PreparedUpdate

    attempt = start_attempt(learner, make_question_set(questions=1))
    slot = attempt.slots.get()
    choice = slot.question.choices.first()
    by_pk = PreparedUpdate(lambda slot: AttemptSlot.objects.filter(pk=slot), slot=1_987_654_321)

    assert by_pk.run({"chosen_choice": choice}, slot=slot.pk) == 1
    assert AttemptSlot.objects.get(pk=slot.pk).chosen_choice_id == choice.pk
    assert by_pk.run({"chosen_choice": None}, slot=slot.pk) == 1
    assert AttemptSlot.objects.get(pk=slot.pk).chosen_choice_id is None


def test_a_prepared_update_refuses_a_filter_through_a_join_or_no_filter_at_all(learner):
    from quiz.lib.prepared import PreparedUpdate

    through_join = PreparedUpdate(lambda user: AttemptSlot.objects.filter(attempt__user_id=user), user=1_987_654_322)
    with pytest.raises(ValueError, match="its own table"):
        through_join.run({"flagged": True}, user=learner.pk)
    with pytest.raises(ValueError, match="its own table"):
        PreparedUpdate(lambda: AttemptSlot.objects.all()).run({"flagged": True})


def test_writes_in_turn_stop_at_the_first_that_writes_nothing_and_an_insert_reads_the_id_before_it(learner):
    from django.utils import timezone

    from quiz.lib.prepared import InTurn, PreparedUpdate
    from quiz.models import Choice, MemoryState, ReviewLog

    attempt = start_attempt(learner, make_question_set(questions=1))
    slot = attempt.slots.select_related("question").get()
    choice = slot.question.choices.first()
    unanswered = PreparedUpdate(lambda slot: AttemptSlot.objects.filter(pk=slot, answered_at__isnull=True), slot=1_987_654_321)
    now = timezone.now()

    def turn():
        # A slot flagged while it has no answer, then a new memory, then its log: the log's
        # memory is the row inserted just before it, and the log's choice an expression.
        memory = MemoryState(user=learner, kind="question", question=slot.question, due=now)
        log = ReviewLog(user=learner, memory=memory, source="quiz", rating=3, reviewed_at=now, due_after=now,
                        chosen_choice_id=Choice.id_if_still_there(choice.pk), shown={"stem": "?"})
        writes = InTurn().update(unanswered, {"flagged": True}, slot=slot.pk).insert(memory).insert(log)
        return writes, memory, log

    writes, memory, log = turn()
    assert writes.run() == len(writes) == 3
    stored = ReviewLog.objects.get()
    assert stored.pk == log.pk and stored.memory_id == memory.pk == log.memory_id
    assert (stored.chosen_choice_id, stored.shown, stored.state_before) == (choice.pk, {"stem": "?"}, None)
    assert AttemptSlot.objects.get(pk=slot.pk).flagged

    # The first write finds nothing (the slot has an answer): none of the others is made.
    AttemptSlot.objects.filter(pk=slot.pk).update(answered_at=now, chosen_index=1, is_correct=True, flagged=False)
    MemoryState.objects.all().delete()
    writes, memory, log = turn()
    assert writes.run() == 0 and memory.pk is None and log.pk is None
    assert not MemoryState.objects.exists() and not ReviewLog.objects.exists()
    assert not AttemptSlot.objects.get(pk=slot.pk).flagged


def test_each_shape_of_a_turns_values_has_sql_of_its_own_written_once(learner):
    # The SQL of a turn is kept by the shape of its values: a column given a parameter in one
    # run and an expression in the next must be written as each (a cache that took one for the
    # other would store the expression's text, or find a parameter where it wrote none), and a
    # shape seen before is not written again.
    from django.db.models import F

    from quiz.lib.prepared import InTurn, PreparedUpdate
    from quiz.models import Choice, MemoryState, ReviewLog

    attempt = start_attempt(learner, make_question_set(questions=4))
    slots = list(attempt.slots.select_related("question").order_by("position"))
    by_pk = PreparedUpdate(lambda slot: AttemptSlot.objects.filter(pk=slot), slot=1_987_654_321)
    now = timezone.now()

    def answered(slot, spent, choice_id):
        memory = MemoryState(user=learner, kind="question", question=slot.question, due=now)
        log = ReviewLog(user=learner, memory=memory, source="quiz", rating=3, reviewed_at=now, due_after=now,
                        chosen_choice_id=choice_id, shown={"stem": slot.stem})
        assert InTurn().update(by_pk, {"seconds_spent": spent}, slot=slot.pk).insert(memory).insert(log).run() == 3
        return ReviewLog.objects.get(pk=log.pk)

    kept = slots[3].question.choices.first()
    gone = slots[2].question.choices.first()
    gone_pk = gone.pk
    gone.delete()
    # Each column first given a parameter, then an expression: the slot's time in the second
    # turn, the log's choice in the third (with the slot's time still an expression, so that the
    # whole turn's shape differs only there). A choice deleted since is NULL, never the id it had.
    logs = [
        answered(slots[0], 5, None),
        answered(slots[1], F("position") + 10, None),
        answered(slots[2], F("position") + 4, Choice.id_if_still_there(gone_pk)),
        answered(slots[3], 7, Choice.id_if_still_there(kept.pk)),
    ]

    assert [slot.seconds_spent for slot in attempt.slots.order_by("position")] == [5, 12, 7, 7]
    assert [log.chosen_choice_id for log in logs] == [None, None, None, kept.pk]
    assert [log.shown["stem"] for log in logs] == [slot.stem for slot in slots]
    assert len(by_pk._sql) == 2  # a parameter, and the expression: the last two turns wrote none for the slot


def _a_rating_in_turn(learner, *, reps_read, **log_values):
    """An existing memory's guarded UPDATE (it holds only while its reps are `reps_read`), then
    its log: the two writes every rating makes."""
    from django.utils import timezone

    from quiz.models import MemoryState, ReviewLog

    question = make_question_set(questions=1).questions.get()
    now = timezone.now()
    memory = MemoryState.objects.create(user=learner, kind="question", question=question, due=now, reps=1)
    memory.reps = reps_read + 1
    log = ReviewLog(user=learner, memory=memory, source="review", rating=3, reviewed_at=now, due_after=now, **log_values)
    return scheduling.rating_writes(memory, log), memory, log


def test_a_turn_refused_halfway_makes_the_writes_before_and_none_after(learner):
    from django.db import transaction

    from quiz.lib.prepared import InTurn, PreparedUpdate
    from quiz.models import ReviewLog

    attempt = start_attempt(learner, make_question_set(questions=1))
    slot = attempt.slots.get()
    by_pk = PreparedUpdate(lambda slot: AttemptSlot.objects.filter(pk=slot), slot=1_987_654_321)
    rating, memory, log = _a_rating_in_turn(learner, reps_read=0)  # it has one review already: stale
    writes = InTurn().update(by_pk, {"flagged": True}, slot=slot.pk).extend(rating)

    with transaction.atomic():
        assert writes.run() == 1  # the slot's; the memory's found no row as read, so no log
        assert AttemptSlot.objects.get(pk=slot.pk).flagged  # the caller's to roll back
        assert not ReviewLog.objects.exists() and log.pk is None
        assert memory.__class__.objects.get(pk=memory.pk).reps == 1


def test_a_first_write_beyond_what_the_database_stores_makes_nothing(learner):
    from quiz.lib.prepared import InTurn, PreparedUpdate
    from quiz.models import ReviewLog

    by_pk = PreparedUpdate(lambda slot: AttemptSlot.objects.filter(pk=slot), slot=1_987_654_321)
    rating, _, _ = _a_rating_in_turn(learner, reps_read=1)

    assert InTurn().update(by_pk, {"flagged": True}, slot=2**64).extend(rating).run() == 0
    assert not ReviewLog.objects.exists()


def test_a_text_too_long_for_its_column_is_refused_whole_never_stored_cut_short(learner):
    from django.db import DataError, connection, transaction

    from quiz.models import ReviewLog

    too_long = "x" * (ReviewLog._meta.get_field("answer").max_length + 5)
    writes, _, _ = _a_rating_in_turn(learner, reps_read=1, answer=too_long)

    if connection.vendor == "postgresql":
        with pytest.raises(DataError), transaction.atomic():
            writes.run()
        assert not ReviewLog.objects.exists()
    else:  # SQLite keeps any length a column is given
        assert writes.run() == 2
        assert ReviewLog.objects.get().answer == too_long


def test_a_turn_refuses_to_insert_what_model_save_would_do_more_for(learner):
    from django.db.models.signals import post_save

    from quiz.lib.prepared import InTurn
    from quiz.models import ReviewLog

    _, memory, log = _a_rating_in_turn(learner, reps_read=1)
    with pytest.raises(ValueError, match="id the database gives"):
        InTurn().insert(memory)  # already saved: it has an id

    def listener(**kwargs):
        pass

    post_save.connect(listener, sender=ReviewLog)
    try:
        with pytest.raises(ValueError, match="no save signal"):
            InTurn().insert(log)
    finally:
        post_save.disconnect(listener, sender=ReviewLog)

    # A model with a save() of its own (an owned question set), and a foreign key to an
    # instance neither saved nor inserted earlier in the turn: refused, never written as NULL.
    from django.db import transaction

    from quiz.models import Choice, QuestionSet

    with pytest.raises(ValueError, match="save\\(\\) of its own"):
        InTurn().insert(QuestionSet(title="Mine", owner=learner))
    _, _, log = _a_rating_in_turn(learner, reps_read=1, chosen_choice=Choice(text="never saved"))
    with pytest.raises(ValueError, match="unsaved instance"), transaction.atomic():
        InTurn().insert(log).run()
    assert not ReviewLog.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_a_turn_is_made_whole_or_not_at_all(learner):
    # Real commits, no test transaction around it: on PostgreSQL the turn is one statement of
    # its own, which the database undoes when it stops partway; on SQLite, a transaction.
    from quiz.lib.prepared import InTurn, PreparedUpdate
    from quiz.models import ReviewLog

    attempt = start_attempt(learner, make_question_set(questions=1))
    slot = attempt.slots.get()
    by_pk = PreparedUpdate(lambda slot: AttemptSlot.objects.filter(pk=slot), slot=1_987_654_321)

    rating, memory, log = _a_rating_in_turn(learner, reps_read=0)  # stale: its memory has one review
    assert InTurn().update(by_pk, {"flagged": True}, slot=slot.pk).extend(rating).run_all_or_nothing() == 1
    assert not AttemptSlot.objects.get(pk=slot.pk).flagged  # the slot's write, undone
    assert not ReviewLog.objects.exists() and log.pk is None

    rating, memory, log = _a_rating_in_turn(learner, reps_read=1)
    assert InTurn().update(by_pk, {"flagged": True}, slot=slot.pk).extend(rating).run_all_or_nothing() == 3
    assert AttemptSlot.objects.get(pk=slot.pk).flagged
    assert ReviewLog.objects.get().pk == log.pk and memory.__class__.objects.get(pk=memory.pk).reps == 2


def test_within_a_transaction_a_turn_stopped_partway_is_undone_back_to_its_savepoint(learner):
    from django.db import transaction

    from quiz.lib.prepared import InTurn, PreparedUpdate
    from quiz.models import Attempt

    attempt = start_attempt(learner, make_question_set(questions=1))
    slot = attempt.slots.get()
    by_pk = PreparedUpdate(lambda slot: AttemptSlot.objects.filter(pk=slot), slot=1_987_654_321)
    rating, _, _ = _a_rating_in_turn(learner, reps_read=0)  # stale

    with transaction.atomic():
        Attempt.objects.filter(pk=attempt.pk).update(title="Kept")  # the caller's own write
        assert InTurn().update(by_pk, {"flagged": True}, slot=slot.pk).extend(rating).run_all_or_nothing() == 1
        assert not AttemptSlot.objects.get(pk=slot.pk).flagged
    assert Attempt.objects.get(pk=attempt.pk).title == "Kept"


@pytest.mark.parametrize("committing", [pytest.param(True, marks=pytest.mark.django_db(transaction=True)), False])
def test_a_turn_stopped_partway_leaves_what_it_inserted_unsaved(learner, committing):
    from django.utils import timezone

    from quiz.lib.prepared import InTurn, PreparedUpdate
    from quiz.models import MemoryState

    question = make_question_set(questions=1).questions.get()
    by_pk = PreparedUpdate(lambda slot: AttemptSlot.objects.filter(pk=slot), slot=1_987_654_321)
    memory = MemoryState(user=learner, kind="question", question=question, due=timezone.now())

    # The memory is inserted, then the UPDATE finds no slot 2**62: the insert is undone.
    assert InTurn().insert(memory).update(by_pk, {"flagged": True}, slot=2**62).run_all_or_nothing() == 1
    assert (memory.pk, memory._state.adding) == (None, True)
    assert not MemoryState.objects.exists()


def test_two_reads_in_one_statement_give_what_each_gives_alone(learner, django_assert_num_queries):
    attempt = start_attempt(learner, make_question_set(questions=2))
    client = logged_in(learner)
    key = client.session.session_key
    session_read = sessions._SESSION_WITH_USER
    slot = {"attempt": attempt.pk, "position": 2}

    with django_assert_num_queries(1):
        row, found = session_read.first_with({"session_key": key}, access._SLOTS_TO_ANSWER, slot)

    assert row.user == learner and row.session_key == key
    assert fields(found) == fields(access._SLOTS_TO_ANSWER.first(**slot))
    assert found.another_open is True and found.held_back is False and found.attempt.user_id == learner.pk
    # No row of the second: the first's alone. No row of the first: neither (a LEFT JOIN).
    assert session_read.first_with({"session_key": key}, access._SLOTS, {**slot, "position": 3}) == (row, None)
    assert session_read.first_with({"session_key": "no-such-session-key"}, access._SLOTS, slot) == (None, None)
    # A value the database cannot hold: that read finds nothing, the other as alone.
    assert session_read.first_with({"session_key": key}, access._SLOTS, {**slot, "attempt": 2**70}) == (row, None)


def test_a_marked_page_reads_its_slot_with_the_session_and_still_checks_whose_it_is(learner, django_assert_num_queries):
    attempt = start_attempt(learner, make_question_set(questions=2))
    slot = attempt.slots.get(position=1)
    outsider = logged_in(make_user("outsider"))
    outsider.get("/")  # the session row written

    # The read by address finds the learner's slot; the outsider gets a 404 and records nothing.
    with django_assert_num_queries(AUTH):
        assert outsider.get(reverse("attempt_question", args=[attempt.pk, 1])).status_code == 404
    assert outsider.post(reverse("attempt_question", args=[attempt.pk, 1]), {"choice": "1"}).status_code == 404
    assert outsider.post(reverse("attempt_question", args=[attempt.pk, 1]), {"choice": "1"}, **HTMX).status_code == 404
    slot.refresh_from_db()
    assert slot.answered_at is None

    # A session past its expiry is no sign-in, whatever the same statement read with it.
    client = logged_in(learner)
    UserSession.objects.filter(session_key=client.session.session_key).update(expire_date=timezone.now())
    response = client.get(reverse("attempt_question", args=[attempt.pk, 1]))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_two_reads_whose_row_would_split_in_the_wrong_place_are_refused(learner):
    # DISTINCT ordered by a column it does not show selects one more column than its compiler
    # counts: the second read's columns would shift by one, so the first run says so instead.
    attempt = start_attempt(learner, make_question_set(questions=1))
    key = logged_in(learner).session.session_key
    widened = PreparedQuery(
        lambda session_key: UserSession.objects.select_related("user").filter(session_key=session_key)
        .order_by(Length("session_data")).distinct(),
        session_key="prepared:session-key",
    )

    with pytest.raises(ValueError, match="exactly the columns"):
        widened.first_with({"session_key": key}, access._SLOTS, {"attempt": attempt.pk, "position": 1})
