"""What a desired retention costs: fsrs-rs-python's simulator run over the learner's own bank
(the items they can see, their new-cards-per-day limit, their parameters) for a year, for a
few retention choices, and the package's suggested retention.

Each simulation takes a few milliseconds for a bank of a few thousand items, the suggestion
a few tenths of a second, so the Settings page computes them only when asked (its
"Estimate workload" link), never on every visit.
"""

from dataclasses import dataclass

import fsrs_rs_python as simulator
from django.core.cache import cache

from quiz.models import Card, Deck, Question
from quiz.models.users import RETENTION_RANGE

from .scheduling import parameters_of

RETENTION_CHOICES = (0.80, 0.85, 0.90, 0.95)
SIMULATED_DAYS = 365
SEED = 12  # the same estimate on every visit


@dataclass
class Workload:
    retention: float
    minutes_per_day: float  # on average over the simulated year
    reviews_per_day: float
    remembered: float  # items expected to be recalled at the end of the year


def simulation_config(user):
    """The simulator's defaults (answer times, rating odds, measured on Anki users), with the
    learner's bank size and daily limit of new items."""
    config = simulator.default_simulator_config()
    config.deck_size = max(1, _bank_size(user))
    config.learn_span = SIMULATED_DAYS
    config.learn_limit = user.new_cards_per_day or 1
    return config


def _bank_size(user):
    cards = Card.objects.filter(deck__in=Deck.objects.visible_to(user)).current().count()
    return Question.objects.visible_to(user).current().count() + cards


def expected_workload(user, retentions=RETENTION_CHOICES):
    """[Workload] for each retention, from the same simulated year of the learner's bank."""
    config, parameters = simulation_config(user), parameters_of(user)
    workloads = []
    for retention in retentions:
        result = simulator.simulate(parameters, retention, config, SEED)
        days = len(result.cost_per_day) or 1
        workloads.append(Workload(
            retention=retention,
            minutes_per_day=sum(result.cost_per_day) / days / 60,
            reviews_per_day=sum(result.review_cnt_per_day) / days,
            remembered=result.memorized_cnt_per_day[-1] if result.memorized_cnt_per_day else 0.0,
        ))
    return workloads


def suggested_retention(user):
    """The package's retention that minimises study time per item remembered, within the range a
    learner may choose, rounded to a hundredth."""
    best = simulator.optimal_retention(simulation_config(user), parameters_of(user))
    low, high = RETENTION_RANGE
    return round(min(max(best, low), high), 2)


# --- Exam plan -----------------------------------------------------------------------------------

PLAN_RETENTIONS = tuple(round(0.70 + step / 100, 2) for step in range(28))  # 0.70 to 0.97


@dataclass
class ExamPlan:
    days_left: int
    bank: int
    new_per_day: int  # every item seen at least once before the exam
    retention: float | None  # the lowest desired retention that reaches the target; None: none does
    reviews_per_day: float  # reviews of items already seen plus first sights, on average
    minutes_per_day: float
    predicted_score: float  # expected share of the bank recalled on exam day

    @property
    def daily_reviews(self):
        """Reviews a day as the page says them: a whole number, at least 1 when there are any."""
        return max(1, round(self.reviews_per_day)) if self.reviews_per_day > 0 else 0

    @property
    def daily_minutes(self):
        return max(1, round(self.minutes_per_day)) if self.minutes_per_day > 0 else 0

    highest_retention = RETENTION_RANGE[1]  # what the plan tried last

    @property
    def first_sight_days(self):
        """The days it takes to see every item once at `new_per_day` a day."""
        return -(-self.bank // self.new_per_day)


@dataclass
class Suggestion:
    """The one desired retention the app suggests, and why: the exam plan's when an exam date is
    set, else the one that costs the least study time for what is remembered."""

    retention: float
    for_exam: bool  # from the exam plan (else the simulator's cost optimum)
    reaches_target: bool = True  # False: even the highest retention falls short of the exam target


def suggestion(user, today):
    """One suggested desired retention for every page that suggests one (the dashboard's exam
    plan, the workload page), so two pages never suggest two numbers."""
    plan = exam_plan(user, today)
    if plan is not None:
        return Suggestion(plan.retention or plan.highest_retention, for_exam=True, reaches_target=plan.retention is not None)
    return Suggestion(suggested_retention(user), for_exam=False)


def exam_plan(user, today):
    """How many reviews a day reach the learner's target score (`user.target_retention`) on exam
    day, from the simulator: the lowest desired retention in 0.70-0.97 whose simulated days until
    the exam leave the target share of the bank recalled, and what those days cost. None when
    the exam is today or past.

    The simulator starts from a bank of new items (it takes no memory states), so for a learner
    well under way this is an upper bound on the work left, not a forecast of it."""
    days = (user.exam_date - today).days if user.exam_date else 0
    if days <= 0:
        return None
    bank = max(1, _bank_size(user))
    # Cached for the day: the dashboard asks on every visit. Anything the plan depends on is in
    # the key, so a new exam date, target, limit, fit or bank size computes it again.
    key = "exam-plan:" + ":".join(map(str, (
        user.pk, today, user.exam_date, user.target_retention, user.new_cards_per_day, bank,
        hash(parameters_of(user)),
    )))
    return cache.get_or_set(key, lambda: _simulated_plan(user, days, bank), timeout=PLAN_CACHE_SECONDS)


PLAN_CACHE_SECONDS = 24 * 60 * 60


def _simulated_plan(user, days, bank):
    config = simulation_config(user)
    config.learn_span = days
    config.learn_limit = max(user.new_cards_per_day, -(-bank // days))
    config.max_cost_perday = 1e9  # the question is how much study it takes, so no daily cap
    plan = None
    for retention in PLAN_RETENTIONS:
        result = simulator.simulate(parameters_of(user), retention, config, SEED)
        plan = ExamPlan(
            days_left=days, bank=bank, new_per_day=config.learn_limit, retention=retention,
            reviews_per_day=(sum(result.review_cnt_per_day) + sum(result.learn_cnt_per_day)) / days,
            minutes_per_day=sum(result.cost_per_day) / days / 60,
            predicted_score=result.memorized_cnt_per_day[-1] / bank,
        )
        if plan.predicted_score >= user.target_retention:
            return plan
    plan.retention = None  # even 0.97 falls short: the plan shows how close it gets
    return plan
