"""Personal FSRS parameters: the scheduler's 21 numbers fitted to one learner's own review log
with fsrs-rs-python's optimizer, and kept only when they predict that learner better.

"Better" is judged on a time-ordered split, as a forecast should be: the parameters are fitted
on the learner's earlier reviews and scored, against the defaults, on the later ones (log loss
of the predicted recall, and RMSE over bins of predicted recall). They are adopted only when
their log loss is lower and their RMSE no higher; the parameters stored are those fitted on the
earlier part, the ones that were tested. Below MIN_REVIEWS reviews nothing is fitted: with
fewer, the optimizer mostly fits noise.
"""

from dataclasses import dataclass

import fsrs_rs_python as optimizer
from django.db import transaction
from django.db.models import Count, F, OuterRef, Q, Subquery
from django.utils import timezone
from fsrs.scheduler import LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS

from quiz.lib.sql import BULK_UPDATE_BATCH
from quiz.models import MemoryState, ReviewLog, ScheduleFit, User

from . import scheduling
from .bulk import REPLAYED_FIELDS, replay
from .scheduling import SCHEDULER

# Reviews a learner needs before a fit is tried (FSRS's authors suggest a few hundred at least).
MIN_REVIEWS = 400
# The later share of the reviews (in time) that scores the fit; the rest trains it.
TEST_SHARE = 0.2
DEFAULT_PARAMETERS = list(SCHEDULER.parameters)


@dataclass
class Score:
    log_loss: float
    rmse_bins: float


def optimise(user, *, now=None):
    """Fit `user`'s parameters to their review log, record the fit (a ScheduleFit), and adopt the
    parameters if they beat the defaults on the later reviews. Returns the ScheduleFit."""
    now = now or timezone.now()
    histories = review_histories(user)
    moments_and_items = training_items(histories)
    review_count = sum(len(history) for history in histories)
    fit = ScheduleFit(user=user, fitted_at=now, review_count=review_count)
    cut = int(len(moments_and_items) * (1 - TEST_SHARE))
    train = [item for _, item in moments_and_items[:cut]]
    test = [item for _, item in moments_and_items[cut:]]
    if review_count < MIN_REVIEWS or not train or not test:
        fit.outcome = ScheduleFit.Outcome.TOO_FEW
        fit.save()
        return fit
    parameters = within_py_fsrs_bounds(optimizer.FSRS(DEFAULT_PARAMETERS).compute_parameters(train))
    personal, default = score(parameters, test), score(DEFAULT_PARAMETERS, test)
    better = personal.log_loss < default.log_loss and personal.rmse_bins <= default.rmse_bins
    fit.parameters = parameters
    fit.metrics = {"personal": vars(personal), "default": vars(default), "tested_on": len(test)}
    fit.outcome = ScheduleFit.Outcome.ADOPTED if better else ScheduleFit.Outcome.WORSE
    with transaction.atomic():
        fit.save()
        if better:
            User.objects.filter(pk=user.pk).update(fsrs_parameters=fit.parameters)
            user.fsrs_parameters = fit.parameters
            replay_memories(user, scheduling.scheduler_for(user))
    return fit


def replay_memories(user, scheduler):
    """Rebuild every memory state of `user` from its log with `scheduler` (their new parameters),
    as if they had studied under it from the start, so each item's stability, difficulty and due
    date follow the parameters now in use (Anki reschedules on new parameters the same way).

    Each log row's record of the state it found and the due date it set is rewritten too, so an
    undo restores a state of the new model. Its `retrievability`, what the model predicted at the
    time, is kept: the calibration chart judges the predictions that were actually made.

    Inside the caller's transaction: the learner's memory rows are locked first (in pk order,
    as every bulk rating locks them), so no rating lands between the read and the write."""
    memories = {m.pk: m for m in MemoryState.objects.select_for_update().filter(user=user).order_by("pk")}
    logs = ReviewLog.objects.filter(user=user).order_by("memory_id", "reviewed_at", "pk")
    histories = {}
    for log in logs.iterator(chunk_size=10_000):
        histories.setdefault(log.memory_id, []).append(log)
    for memory_id, history in histories.items():
        replay(memories[memory_id], history, scheduler)
    replayed = [memories[memory_id] for memory_id in histories]
    MemoryState.objects.bulk_update(replayed, scheduling.SNAPSHOT_FIELDS, batch_size=BULK_UPDATE_BATCH)
    rewritten = [log for history in histories.values() for log in history]
    ReviewLog.objects.bulk_update(rewritten, [f for f in REPLAYED_FIELDS if f != "retrievability"], batch_size=BULK_UPDATE_BATCH)
    return len(replayed)


def within_py_fsrs_bounds(parameters):
    """The optimizer's numbers (float32) clamped to the bounds py-fsrs accepts: a value a hair
    outside would make py-fsrs refuse the learner's scheduler, and so every rating of theirs.
    Clamped before scoring, so the parameters scored are the ones used."""
    return [min(max(float(value), low), high)
            for value, low, high in zip(parameters, LOWER_BOUNDS_PARAMETERS, UPPER_BOUNDS_PARAMETERS, strict=True)]


def score(parameters, items):
    evaluation = optimizer.FSRS(parameters).evaluate(items)
    return Score(log_loss=float(evaluation.log_loss), rmse_bins=float(evaluation.rmse_bins))


def review_histories(user):
    """Each studied item's ratings as [(moment, rating), ...] in answer order. One query, read
    in the (memory, reviewed_at) index's order."""
    rows = (
        ReviewLog.objects.filter(user=user)
        .order_by("memory_id", "reviewed_at", "pk")
        .values_list("memory_id", "reviewed_at", "rating")
    )
    histories = {}
    for memory_id, moment, rating in rows.iterator(chunk_size=10_000):
        histories.setdefault(memory_id, []).append((moment, rating))
    return list(histories.values())


def training_items(histories):
    """[(moment, FSRSItem)] sorted by moment: one item per review that came a day or more
    after the one before it (what the optimizer learns from: was it recalled after that gap?),
    holding the item's history up to and including that review. Elapsed days are whole days,
    as py-fsrs counts them."""
    items = []
    for history in histories:
        reviews = [optimizer.FSRSReview(history[0][1], 0)]
        for (before, _), (moment, rating) in zip(history, history[1:]):
            gap = (moment - before).days
            reviews.append(optimizer.FSRSReview(rating, gap))
            if gap > 0:
                items.append((moment, optimizer.FSRSItem(list(reviews))))
    items.sort(key=lambda pair: pair[0])
    return items


def learners_to_fit():
    """Learners with enough reviews whose log changed since their last fit (its review count
    differs: new reviews, or held-back answers released since), for the nightly command."""
    fitted_count = ScheduleFit.objects.filter(user=OuterRef("pk")).order_by("-fitted_at", "-pk").values("review_count")
    return (
        User.objects.annotate(review_count=Count("reviews"), fitted_count=Subquery(fitted_count[:1]))
        .filter(review_count__gte=MIN_REVIEWS)
        .filter(Q(fitted_count__isnull=True) | ~Q(fitted_count=F("review_count")))
        .order_by("pk")
    )
