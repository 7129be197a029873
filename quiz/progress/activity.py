"""When the learner studied: their reviews by day in their own time zone, and the streak.

A fixed number of queries whatever the size of the history: the finished days already counted
(StudyDay rows, at most 371), the log's reviews since the last counted day (normally today's)
grouped by local day, and the quiz answers still held back grouped the same way; on the first
visit of a day, one insert stores the days that ended since.
The heatmap, the streak and the accuracy chart all read the result of `daily_activity`.

Nothing here reads the clock: callers pass `now` or `today`, so tests run on a fixed clock.
"""

from dataclasses import dataclass
from datetime import date, timedelta

from django.db.models import Case, Count, F, FloatField, Q, Value, When
from django.db.models.functions import Floor

from quiz.lib.days import start_of_day
from quiz.lib.sql import UnixDays
from quiz.models import AttemptSlot, MemoryState, ReviewLog, StudyDay

HEATMAP_WEEKS = 53
EPOCH = date(1970, 1, 1)  # day numbers computed in SQL count from here


@dataclass
class Day:
    date: object
    reviews: int = 0  # everything rated that day: cards, questions, drill statements
    correct: int = 0  # of which not "Again"
    new_cards: int = 0
    held: int = 0  # quiz answers whose feedback is not out yet: study done, right or wrong unknown

    @property
    def activity(self):
        return self.reviews + self.held

    @property
    def answers(self):
        return self.reviews

    @property
    def accuracy(self):
        return self.correct / self.reviews if self.reviews else None


def first_heatmap_day(user, now):
    """The Monday that starts the heatmap's first week (53 weeks ending with this one)."""
    today = now.astimezone(user.zone).date()
    return today - timedelta(days=today.weekday() + 7 * (HEATMAP_WEEKS - 1))


def daily_activity(*, user, now):
    """{date: Day} for every day with a review since the heatmap's first day (learner's time zone).

    Finished days come from the learner's StudyDay rows; the days since the last counted one
    (normally only today) are counted from the log, and those that are over are stored. So a
    visit reads a year of small rows and the log's rows of today, whatever the history."""
    zone = user.zone
    first = first_heatmap_day(user, now)
    today = now.astimezone(zone).date()
    counted = _counted_days(user, first)
    since = max(counted[-1].date + timedelta(days=1), first) if counted else first
    fresh = _count_reviews(user, since, now)
    finished = [day for day in fresh.values() if day.date < today]
    _store(user, finished, since, today)
    days = {day.date: day for day in counted if day.reviews}
    days.update((day.date, day) for day in fresh.values() if day.date >= since)
    _add_held_answers(days, user, first, now)
    return days


def _counted_days(user, first):
    """The learner's stored days since `first` as Days, oldest first (plain tuples: a year of
    them is read on every visit); none if they were cut in another time zone."""
    rows = list(
        StudyDay.objects.filter(user=user, day__gte=first)
        .order_by("day")
        .values_list("day", "reviews", "correct", "new_cards", "time_zone")
    )
    if any(row[-1] != user.time_zone for row in rows):
        StudyDay.objects.filter(user=user).delete()
        return []
    return [Day(*row[:-1]) for row in rows]


def _count_reviews(user, since, now):
    """{date: Day} of the learner's reviews from the start of `since` (local) to now."""
    start = start_of_day(since, user.zone)
    rows = (
        # Every log row's memory is the same learner's: saying so lets the database reach the
        # memory rows through their user index instead of scanning them for the kind.
        ReviewLog.objects.filter(user=user, memory__user=user, reviewed_at__gte=start)
        .order_by()
        .values(day=local_day_number("reviewed_at", user.zone, start, now))
        .annotate(
            reviews=Count("pk"),
            correct=Count("pk", filter=Q(rating__gt=ReviewLog.Rating.AGAIN)),
            new_cards=Count("pk", filter=Q(was_new=True, memory__kind=MemoryState.Kind.CARD)),
        )
    )
    days = {}
    for row in rows:
        day = EPOCH + timedelta(days=int(row["day"]))
        days[day] = Day(day, row["reviews"], row["correct"], row["new_cards"])
    return days


def _store(user, finished, since, today):
    """Keep the finished days just counted, and a row for yesterday (if it was counted) that
    marks where counting stopped. Two visits at once store the same rows: the second's are ignored."""
    rows = {day.date: day for day in finished}
    yesterday = today - timedelta(days=1)
    if since <= yesterday:
        rows.setdefault(yesterday, Day(yesterday))
    if rows:
        StudyDay.objects.bulk_create(
            [
                StudyDay(user=user, day=day.date, time_zone=user.time_zone, reviews=day.reviews,
                         correct=day.correct, new_cards=day.new_cards)
                for day in rows.values()
            ],
            ignore_conflicts=True,
        )


def _add_held_answers(days, user, first, now):
    """Answers not yet scheduled have no review row (their feedback is held back): they still
    count as studying that day, for the streak and the heatmap. Few: the partial index of
    pending answers finds them."""
    start = start_of_day(first, user.zone)
    held = (
        AttemptSlot.objects.filter(attempt__user=user, answered_at__gte=start, scheduled_at__isnull=True)
        .order_by()
        .values(day=local_day_number("answered_at", user.zone, start, now))
        .annotate(n=Count("pk"))
    )
    for row in held:
        day = EPOCH + timedelta(days=int(row["day"]))
        days.setdefault(day, Day(day)).held = row["n"]


def local_day_number(name, zone, start, end):
    """The local calendar day of a timestamp column as days since 1970-01-01, in plain arithmetic.

    Django's time-zone conversion runs a Python function per row on SQLite (a third of a
    second for 50,000 reviews); the zone's UTC offsets between `start` and `end` are few (one
    or two daylight-saving changes a year), so they become a CASE the database adds itself."""
    periods = _offset_periods(zone, start, end)
    offset = Case(
        *(When(**{f"{name}__lt": until}, then=Value(days)) for until, days in periods[:-1]),
        default=Value(periods[-1][1]),
        output_field=FloatField(),
    )
    return Floor(UnixDays(F(name)) + offset)


def _offset_periods(zone, start, end):
    """[(until, offset in days), ...]: the zone's UTC offset over [start, end], the last open-ended."""
    def offset(moment):
        return moment.astimezone(zone).utcoffset().total_seconds() / 86400

    # A week at a time: a zone changes its offset at most twice a year, never twice in a week.
    periods, moment, current = [], start, offset(start)
    while moment < end:
        following = min(moment + timedelta(days=7), end + timedelta(seconds=1))
        if offset(following) != current:
            low, high = moment, following  # the change happens in (low, high]: find the second
            while high - low > timedelta(seconds=1):
                middle = low + (high - low) / 2
                low, high = (middle, high) if offset(middle) == current else (low, middle)
            periods.append((high, current))
            current = offset(high)
        moment = following
    periods.append((None, current))
    return periods


def streak(activity, today):
    """Days in a row with at least one review or answer, ending today or (not yet studied today) yesterday."""
    day = today if today in activity else today - timedelta(days=1)
    count = 0
    while day in activity:
        count += 1
        day -= timedelta(days=1)
    return count
