"""Is the memory model honest? Predicted recall against what happened, in bins.

Every review logs the recall FSRS predicted just before it (`ReviewLog.retrievability`; none on
a first sight, which has no prediction). Grouping reviews into BINS bins of that prediction and
counting the share not rated Again in each gives a calibration curve: an honest model's points
lie on the diagonal. One grouped query in the database, whatever the size of the log.

For a learner: all their reviews. For an instructor's class: only the reviews the class's
learners made of the questions the class was assigned: the instructor set that content, and
nothing else a learner studies is theirs to see.
"""

from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import Avg, Count, F, IntegerField, Q, Value
from django.db.models.functions import Cast, Floor, Least

from quiz.models import Assignment, Enrollment, MemoryState, ReviewLog

from .charts import _safe

BINS = 10
# The chart: a plot square of SIZE SVG units (predicted across, remembered up), with room on the
# left for the y-axis title and numbers, above for a two-row legend and below for the x-axis's.
# 280 units wide: drawn about 1:1 on a 320 px phone, where its 12-unit text is about 12 px.
SIZE = 200
LEFT, TOP = 60, 46
WIDTH, HEIGHT = LEFT + SIZE + 20, TOP + SIZE + 44
TICKS = (0, 20, 40, 60, 80, 100)  # percent, on both axes: every other bin's edge
DOT = 4  # a point's radius


@dataclass
class Bin:
    index: int
    reviews: int = 0
    recalled: int = 0  # not rated Again
    predicted: float | None = None  # mean predicted recall of the bin's reviews

    @property
    def low(self):
        return self.index / BINS

    @property
    def high(self):
        return (self.index + 1) / BINS

    @property
    def actual(self):
        return self.recalled / self.reviews if self.reviews else None


def learner_reviews(user):
    return ReviewLog.objects.filter(user=user)


def class_reviews(classroom):
    """The class's current learners' reviews of the questions its assignments (archived ones
    too) hold. Subqueries rather than joins, so a question in two pools counts once.

    Reached through the memory rows of those questions (the (question, user) index)
    and then each row's log (the (memory, reviewed_at) index): filtered on the log's own user,
    PostgreSQL read the whole review log, a cost that grows with everyone's history."""
    learners = Enrollment.objects.filter(classroom=classroom).values("learner")
    assigned = Assignment.objects.filter(classroom=classroom).values("pool__entries__question")
    memories = MemoryState.objects.filter(user__in=learners, question__in=assigned).values("pk")
    return ReviewLog.objects.filter(memory__in=memories)


# A class's calibration reads every review its learners made of the assigned questions: a
# report over the class's whole history, so it is computed at most this often per class.
CLASS_REFRESH_SECONDS = 3600


def class_calibration(classroom, now):
    """(bins, when they were computed) of the class, cached per class for the hour: the class
    page links to it instead of reading the class's log on every visit."""
    key = f"class-calibration:{classroom.pk}:{now:%Y-%m-%dT%H}"
    cached = cache.get(key)
    if cached is None:
        cached = (calibration(class_reviews(classroom)), now)
        cache.set(key, cached, CLASS_REFRESH_SECONDS)
    return cached


def calibration(reviews):
    """[Bin] * BINS from one grouped query over `reviews` (those with a prediction)."""
    # A prediction of exactly 1.0 (reviewed the moment it was learnt) belongs in the top bin.
    index = Least(Cast(Floor(F("retrievability") * Value(float(BINS))), IntegerField()), Value(BINS - 1))
    rows = (
        reviews.filter(retrievability__isnull=False)
        .order_by()
        .annotate(bin=index)
        .values("bin")
        .annotate(reviews=Count("pk"), recalled=Count("pk", filter=Q(rating__gt=ReviewLog.Rating.AGAIN)),
                  predicted=Avg("retrievability"))
    )
    bins = [Bin(n) for n in range(BINS)]
    for row in rows:
        bins[row["bin"]] = Bin(row["bin"], row["reviews"], row["recalled"], row["predicted"])
    return bins


def _frame():
    """Grid, axes, tick numbers and axis titles, in the plot's own units (its origin top left):
    numbers and fixed words only."""
    at = [round(SIZE * tick / 100) for tick in TICKS]
    grid = "".join(f"M0 {SIZE - a}h{SIZE}M{a} 0v{SIZE}" for a in at[1:])
    parts = [f'<path class="grid" d="{grid}"/>', f'<path class="axis" d="M0 0V{SIZE}H{SIZE}"/>']
    for tick, a in zip(TICKS, at):
        parts.append(f'<text class="y-label" x="-6" y="{SIZE - a + 4}" text-anchor="end">{tick}%</text>')
        parts.append(f'<text class="x-label" x="{a}" y="{SIZE + 16}" text-anchor="middle">{tick}%</text>')
    parts.append(f'<text class="axis-title" x="{SIZE / 2:g}" y="{SIZE + 36}" '
                 'text-anchor="middle">Predicted recall</text>')
    # Turned a quarter to the left, to read upwards: its x then runs up the plot (the middle is at
    # minus half the height) and its y across, from the plot's left edge.
    parts.append(f'<text class="axis-title" transform="rotate(-90)" x="{-SIZE / 2:g}" y="{14 - LEFT}" '
                 'text-anchor="middle">Remembered</text>')
    return parts


def calibration_chart(bins):
    """The curve as SVG (a point per bin with reviews, joined by a line, against the diagonal of
    an honest model, on axes from 0% to 100%), with the bins for the table alternative."""
    filled = [b for b in bins if b.reviews]
    points = [(round(b.predicted * SIZE, 1), round(SIZE - b.actual * SIZE, 1)) for b in filled]
    line = "".join(f"{'M' if n == 0 else 'L'}{x:g} {y:g}" for n, (x, y) in enumerate(points))
    total = sum(b.reviews for b in filled)
    # How far off the model is, weighted by reviews: 0 for a perfectly honest one.
    gap = sum(b.reviews * abs(b.predicted - b.actual) for b in filled) / total if total else None
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "left": LEFT,
        "top": TOP,
        "dot": DOT,
        "frame": _safe(_frame()),
        "line_path": _safe([line]),
        "diagonal_path": _safe([f"M0 {SIZE}L{SIZE} 0"]),
        "points": [{"x": x, "y": y, "bin": b} for (x, y), b in zip(points, filled)],
        "bins": filled,
        "reviews": total,
        "gap": gap,
    }
