"""Rating many answers at once, in the order the learner gave them: the release of answers
whose feedback was held back (deferred feedback, an assignment's answers after its due date).

A held-back answer is rated at the time it was given, not when it is released. So it can
arrive after later reviews of the same item (a Monday answer released next week, after a
Tuesday review): that item's memory is then rebuilt by replaying its whole log in answer
order, and each log row's `state_before`, `due_after` and `retrievability` are rewritten to
what the replay says, so undo and history stay exact. Items answered in order take the
cheap path, a rating on top of the stored state.
"""

from functools import reduce
from operator import or_

from django.db.models import Q

from quiz.lib.sql import BULK_UPDATE_BATCH
from quiz.models import MemoryState, ReviewLog

from . import scheduling

# What a replay rewrites on each log row of the item.
REPLAYED_FIELDS = ("was_new", "state_before", "retrievability", "due_after")


def rate_in_bulk(*, kind, ratings, now, schedulers=None):
    """Apply many ratings at once in a fixed number of queries; return their ReviewLog rows.

    `ratings` are (user_id, item_id, log fields), in answer order; the fields are those of a
    ReviewLog (`rating`, `source`, ...), with `reviewed_at` the answer time (`now` if absent).
    `schedulers`: {user_id: fsrs Scheduler} for learners with a scheduler of their own.

    One query locks the learners' rows (so no other rating inserts their new memories
    meanwhile: `scheduling.lock_learners`), one reads and locks every memory row they touch,
    fsrs runs in Python, then one INSERT of the new memories, one UPDATE of the others and one
    INSERT of the log rows. Items with a rating older than their last review also read their
    log and rewrite it (two more).

    Only inside the caller's transaction, which holds the row locks until it ends, so no other
    rating changes these rows in between (on SQLite the transaction holds the write lock).
    """
    schedulers = schedulers or {}
    field = "question_id" if kind == MemoryState.Kind.QUESTION else "card_id"
    scheduling.lock_learners({user_id for user_id, _, _ in ratings})  # before their new memories are inserted
    memories = _locked_memories(kind, field, ratings)
    known = list(memories.values())
    logs, by_item, late = [], {}, set()
    for user_id, item_id, fields in ratings:
        key = (user_id, item_id)
        if key not in memories:
            memories[key] = MemoryState(user_id=user_id, kind=kind, due=now, **{field: item_id})
        memory = memories[key]
        log = ReviewLog(user_id=user_id, memory=memory, **{"reviewed_at": now, **fields})
        logs.append(log)
        by_item.setdefault(key, []).append(log)
        if key in late or (memory.last_review is not None and log.reviewed_at < memory.last_review):
            late.add(key)  # replayed below, with the rest of its history
        else:
            scheduling.apply(memory, log, schedulers.get(user_id, scheduling.SCHEDULER))
    if late:
        _replay({key: by_item[key] for key in late}, memories, schedulers)
    # New rows in item order too: two bulks inserting the same items wait for each other in turn.
    new = sorted((m for m in memories.values() if m.pk is None), key=lambda m: (m.user_id, getattr(m, field)))
    MemoryState.objects.bulk_create(new)
    MemoryState.objects.bulk_update(known, scheduling.SNAPSHOT_FIELDS, batch_size=BULK_UPDATE_BATCH)
    return ReviewLog.objects.bulk_create(logs)


def _locked_memories(kind, field, ratings):
    """{(user_id, item_id): MemoryState} of the rated items studied before, read and locked."""
    wanted = {}
    for user_id, item_id, _ in ratings:
        wanted.setdefault(user_id, set()).add(item_id)
    touched = reduce(or_, (Q(user_id=user_id, **{f"{field}__in": items}) for user_id, items in wanted.items()))
    # Locked in one order (by pk) by every bulk rating, so two at once cannot deadlock.
    rows = MemoryState.objects.select_for_update(no_key=True).filter(touched, kind=kind).order_by("pk")
    return {(memory.user_id, getattr(memory, field)): memory for memory in rows}


def _replay(late, memories, schedulers):
    """Rebuild the memory of each item in `late` ({key: its new log rows}) from its whole log in
    answer order, and rewrite the stored rows the replay changes. The memory rows are locked
    by the caller, so the log read here is the item's whole history."""
    stored_before = [memories[key] for key in late if memories[key].pk is not None]
    stored = ReviewLog.objects.filter(memory__in=stored_before).order_by("reviewed_at", "pk")
    history = {}
    for log in stored:
        history.setdefault(log.memory_id, []).append(log)
    rewritten = []
    for key, new_logs in late.items():
        memory = memories[key]
        before = history.get(memory.pk, [])
        rewritten += before
        # A stable sort: at equal times, rows already stored stay first, the new ones in their order.
        replay(memory, sorted(before + new_logs, key=lambda log: log.reviewed_at),
               schedulers.get(key[0], scheduling.SCHEDULER))
    ReviewLog.objects.bulk_update(rewritten, REPLAYED_FIELDS, batch_size=BULK_UPDATE_BATCH)


def replay(memory, logs, scheduler=scheduling.SCHEDULER):
    """Set `memory` to what `logs` (one item's ratings, in answer order) make of a new item,
    rewriting each log's record of the state it found. No query."""
    for name, value in scheduling.NEVER_REVIEWED.items():
        setattr(memory, name, value)
    for log in logs:
        scheduling.apply(memory, log, scheduler)
