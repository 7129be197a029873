"""A mock exam: a timed attempt drawn from every question the learner may practise, spread
over the topics in proportion to the bank (or to the weights of the learner's instructor),
with the memory model's prediction stored beside it so the results can set predicted and
actual score side by side.

`spread` and `draw` are pure functions of their arguments (tested with fixed seeds and with
hypothesis); `start_mock_exam` reads the bank in one query, the predictions in one more, and
writes the attempt, its slots and the exam's record in one transaction.
"""

import random
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from datetime import timedelta
from fractions import Fraction

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Min

from quiz.models import Attempt, MemoryState, MockExam, Question
from quiz.study import scheduling

PURPOSE = MockExam.PURPOSE
UNTAGGED = None  # the bucket of questions without a topic


@dataclass(frozen=True)
class Choices:
    """What the learner chose for one mock exam (the form's cleaned data)."""

    questions: int
    minutes: int
    pass_percent: int

    @classmethod
    def defaults(cls):
        return cls(settings.MOCK_EXAM_QUESTIONS, settings.MOCK_EXAM_MINUTES, settings.MOCK_EXAM_PASS_PERCENT)

    @classmethod
    def of(cls, blueprint):
        return cls(blueprint.questions, blueprint.minutes, blueprint.pass_percent)

    def for_count(self, count):
        """These rules for an exam of `count` questions, when the bank gives fewer than asked:
        the time shrinks in proportion, rounded up to the minute, so each question keeps at
        least the time it was meant to have (7 of 40 questions in 60 minutes: 11 minutes)."""
        if count >= self.questions:
            return self
        return replace(self, questions=count, minutes=-(-self.minutes * count // self.questions))

    @property
    def key(self):
        """The numbers a learner was shown, as the form sends them back ("7,11")."""
        return f"{self.questions},{self.minutes}"


def spread(available, count, weights=None):
    """How many questions to draw from each topic: `count` shared out in proportion to
    `weights` ({topic: weight}; by default each topic's number of available questions) by
    the largest-remainder method, never more than a topic has. What a capped topic cannot
    take is shared out again among the others, so the total is min(count, all available).

    `available`: {topic: number of questions}. Ties go to the topic listed first, so the
    same inputs always give the same spread."""
    weights = {t: w for t, w in (weights or available).items() if w > 0 and available.get(t, 0) > 0}
    if not weights:  # the instructor's topics have no questions here: fall back on the bank
        weights = {t: n for t, n in available.items() if n > 0}
    shares = dict.fromkeys(weights, 0)
    left = min(count, sum(available[t] for t in weights))
    while left > 0:
        open_topics = {t: w for t, w in weights.items() if shares[t] < available[t]}
        total = sum(open_topics.values())
        # Exact fractions: quotas that tie must tie, so the tie goes to the topic listed first
        # (in floating point, 6 * 8 / 18 and 6 * 2 / 18 leave remainders a hair apart).
        quotas = {t: Fraction(left * w, total) for t, w in open_topics.items()}
        given = {t: min(int(q), available[t] - shares[t]) for t, q in quotas.items()}
        remaining = left - sum(given.values())
        by_remainder = sorted(open_topics, key=lambda t: quotas[t] - int(quotas[t]), reverse=True)
        for topic in by_remainder:
            if remaining == 0:
                break
            if shares[topic] + given[topic] < available[topic]:
                given[topic] += 1
                remaining -= 1
        for topic, n in given.items():
            shares[topic] += n
        left = remaining
    return {t: n for t, n in shares.items() if n}


def draw(bank, count, weights=None, rng=random):
    """Question ids for one mock exam, in the order they will be asked.

    `bank`: [(question id, topic)] of every question the learner may practise (one topic per
    question: its first). The topics get `spread`'s numbers; each topic's questions are
    sampled at random, and the whole exam is shuffled, as a real exam mixes its topics."""
    by_topic = defaultdict(list)
    for question_id, topic in sorted(bank, key=lambda row: row[0]):
        by_topic[topic].append(question_id)
    available = {topic: len(ids) for topic, ids in sorted(by_topic.items(), key=lambda item: _topic_order(item[0]))}
    chosen = []
    for topic, n in spread(available, count, weights).items():
        chosen.extend(rng.sample(by_topic[topic], n))
    rng.shuffle(chosen)
    return chosen


def fitted(bank, choices, weights=None):
    """The rules an exam with `choices` really gets from `bank` ([(question id, topic)], as
    `bank_for` reads it): as many questions as `spread` can draw, in proportionally less time.
    What the page tells the learner before they start; `start_mock_exam` gets the same."""
    return choices.for_count(sum(spread(Counter(topic for _, topic in bank), choices.questions, weights).values()))


def _topic_order(topic):
    return (topic is UNTAGGED, topic if topic is not UNTAGGED else 0)


def bank_for(user, now):
    """[(question id, topic id or None)] of every current question `user` may see and practise
    now, each under its first topic. One query, bounded by the bank, not by history."""
    questions = Question.objects.visible_to(user).current().practisable_by(user, now).order_by()
    return list(questions.annotate(topic=Min("topics")).values_list("pk", "topic"))


def predictions_for(user, question_ids, now):
    """{question id: predicted recall now} for the questions the learner has studied (a
    question never answered has no prediction). One query; the recall is computed by the
    database with the learner's own FSRS parameters, as the dashboard does."""
    studied = MemoryState.objects.for_user(user).filter(
        kind=MemoryState.Kind.QUESTION, question__in=question_ids, last_review__isnull=False, stability__gt=0
    )
    recall = scheduling.recall_expression(now, scheduling.parameters_of(user))
    return {str(pk): float(r) for pk, r in studied.annotate(recall=recall).values_list("question_id", "recall")}


def open_mock_exam(user):
    return Attempt.objects.for_user(user).unfinished().filter(purpose=PURPOSE).first()


def start_mock_exam(*, user, choices, now, weights=None, classroom_id=None, rng=random):
    """The learner's open mock exam, unchanged (a reload or a second tab resumes the same
    draw), or a new one: (attempt, created). Returns (None, False) when the learner may
    practise no question at all."""
    existing = open_mock_exam(user)
    if existing:
        return existing, False
    bank = bank_for(user, now)
    if not bank:
        return None, False
    chosen = draw(bank, choices.questions, weights, rng)
    choices = choices.for_count(len(chosen))  # a short bank: fewer questions, less time
    topics = dict(bank)
    questions = Question.objects.in_bulk(chosen)
    try:
        with transaction.atomic():
            attempt = Attempt.objects.create_with_slots(
                user=user,
                questions=[questions[pk] for pk in chosen],
                feedback=Attempt.Feedback.DEFERRED,
                rng=rng,
                purpose=PURPOSE,
                title="Mock exam",
                started_at=now,
                deadline=now + timedelta(minutes=choices.minutes),
            )
            MockExam.objects.create(
                attempt=attempt,
                minutes=choices.minutes,
                pass_percent=choices.pass_percent,
                predictions=predictions_for(user, chosen, now),
                topic_counts=_topic_counts(chosen, topics),
                classroom_id=classroom_id,
            )
    except IntegrityError:  # another tab started one at the same moment: that one it is
        return open_mock_exam(user), False
    return attempt, True


def _topic_counts(chosen, topics):
    """{topic id or "": questions drawn} as stored with the exam (JSON keys are strings)."""
    counts = defaultdict(int)
    for pk in chosen:
        topic = topics[pk]
        counts["" if topic is UNTAGGED else str(topic)] += 1
    return dict(counts)
