"""Fill the database with a realistic history, fast, for benchmarks and for trying the app with
a full one: question sets, a deck, a class of learners with an instructor and assignments,
finished attempts with their answers spread over a year, and one learner with a long review
log (`demo`, password `demo-pass-phrase`).

The class's work and the `demo` learner's own attempts are the same at any --answers of
10,000 or more (500 learners): the rest is other learners' self-study. So a page compared at
10k and 1M answers reads the same class and the same learner in a longer history, and the
comparison measures the history's growth, not more activity of the class being looked at.

Everything is written with bulk inserts in batches (a million answers take minutes, not
hours); memory states and review logs of the `demo` learner go through the same fields the
scheduler writes, with FSRS-plausible values.
"""

import math
import random
from datetime import timedelta

from django.contrib.auth.hashers import make_password
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.utils import timezone

from quiz.lib.content_version import content_changed
from quiz.models import (
    Assignment,
    Attempt,
    AttemptSlot,
    Card,
    Choice,
    Classroom,
    Deck,
    Enrollment,
    MemoryState,
    PoolQuestion,
    Question,
    QuestionPool,
    QuestionSet,
    ReviewLog,
    User,
    Visibility,
)

PASSWORD = "demo-pass-phrase"
QUESTIONS_PER_ATTEMPT = 10
# The demo learner's own finished attempts: three pages of "My attempts".
DEMO_ATTEMPTS = 60
BATCH = 5000


class Command(BaseCommand):
    help = "Add demo data: N answers in finished attempts, a class, and a learner with a long review log."

    def add_arguments(self, parser):
        parser.add_argument("--answers", type=int, default=10_000, help="quiz answers to create (default 10,000)")
        parser.add_argument("--learners", type=int, default=500, help="learners in the demo class (default 500)")
        parser.add_argument("--reviews", type=int, default=20_000, help="reviews of the demo learner (default 20,000)")
        parser.add_argument("--seed", type=int, default=1, help="random seed, for the same data every time")

    def handle(self, *args, answers, learners, reviews, seed, **options):
        if answers < 0 or learners < 1 or reviews < 0:
            raise CommandError("--answers and --reviews must be 0 or more, --learners 1 or more")
        if User.objects.filter(username="demo").exists():
            raise CommandError("demo data is already here (user 'demo'); use a fresh database")
        rng = random.Random(seed)
        now = timezone.now()
        with transaction.atomic():
            questions = _question_bank(sets=20, per_set=25)
            users, demo, teacher = _people(learners)
            assignments = _class(teacher, users, questions, now)
            made = _attempts(users, demo, questions, assignments, answers, rng, now)
            _memory_of_answered_questions(users, rng, now)
            logged = _review_log(demo, questions, reviews, rng, now)
            content_changed()
        # Fresh statistics, as autovacuum would keep on a live database: without them the
        # planner guesses one row per table and picks plans no running site would see.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        self.stdout.write(
            f"Created {len(users) + 1} learners, {made} answers in finished attempts and {logged} reviews "
            f"for 'demo' (password {PASSWORD!r}); instructor 'demo_teacher'."
        )


def _question_bank(sets, per_set):
    question_sets = QuestionSet.objects.bulk_create(QuestionSet(title=f"Demo set {n + 1}", visibility=Visibility.EVERYONE) for n in range(sets))
    questions = Question.objects.bulk_create(
        Question(question_set=question_set, key=f"q{n + 1}", position=n + 1, stem=f"Demo question {n + 1} of "
                 f"{question_set.title}?", explanation="Because the demo says so.")
        for question_set in question_sets for n in range(per_set)
    )
    Choice.objects.bulk_create(
        Choice(question=question, text=f"Choice {index + 1}", is_correct=index == 0, position=index + 1)
        for question in questions for index in range(4)
    )
    deck = Deck.objects.create(title="Demo deck")
    Card.objects.bulk_create(
        Card(deck=deck, key=f"c{n + 1}", position=n + 1, front=f"Demo card {n + 1}?", back="Its answer.",
             misconception="A common myth.", correction="Why the myth is wrong.")
        for n in range(200)
    )
    return list(Question.objects.prefetch_related("choices").order_by("pk"))


def _people(learners):
    hashed = make_password(PASSWORD)
    users = User.objects.bulk_create(User(username=f"demo_learner{n}", password=hashed) for n in range(learners))
    demo = User.objects.create(username="demo", password=hashed)
    teacher = User.objects.create(username="demo_teacher", password=hashed, is_instructor=True)
    return users, demo, teacher


def _class(teacher, users, questions, now):
    classroom = Classroom.objects.create(owner=teacher, name="Demo class")
    Enrollment.objects.bulk_create(Enrollment(classroom=classroom, learner=user) for user in users)
    assignments = []
    for week in range(4):
        pool = QuestionPool.objects.create(owner=teacher, title=f"Week {week + 1}")
        picked = questions[week * QUESTIONS_PER_ATTEMPT:(week + 1) * QUESTIONS_PER_ATTEMPT]
        PoolQuestion.objects.bulk_create(PoolQuestion(pool=pool, question=q, position=n) for n, q in enumerate(picked, 1))
        assignments.append(Assignment.objects.create(
            classroom=classroom, pool=pool, title=pool.title, opens_at=now - timedelta(days=60 - week * 7),
            due_at=now - timedelta(days=53 - week * 7),
        ))
    return assignments


def fixed_work(learners, demo, assignments):
    """(user, assignment or None) of the attempts made whatever --answers is: the class's work,
    then the demo learner's own self-study. Week 1 is taken by the whole class, each later
    week by half as many learners as the one before (500, 250, 125, 63 of 500: 9,380
    answers), so the class and its gradebook are the same at 10k answers as at a million."""
    work = [
        (learner, assignment)
        for week, assignment in enumerate(assignments)
        for learner in learners[:math.ceil(len(learners) / 2**week)]
    ]
    return work + [(demo, None)] * DEMO_ATTEMPTS


def _attempts(learners, demo, questions, assignments, answers, rng, now):
    """Finished attempts of QUESTIONS_PER_ATTEMPT answers each, until `answers` are made: the
    fixed work first (`fixed_work`), then the other learners' self-study on random sets."""
    made = 0
    plan = iter(fixed_work(learners, demo, assignments))
    while made < answers:
        batch = []
        while len(batch) * QUESTIONS_PER_ATTEMPT < BATCH and made + len(batch) * QUESTIONS_PER_ATTEMPT < answers:
            user, assignment = next(plan, None) or (rng.choice(learners), None)
            start = now - timedelta(days=rng.randint(1, 365), minutes=rng.randint(0, 1440))
            batch.append((user, assignment, start))
        if not batch:
            break
        made += _write_attempts(batch, questions, assignments, rng)
    return made


def _write_attempts(batch, questions, assignments, rng):
    by_id = {question.pk: question for question in questions}
    pools = {assignment.pk: [questions[n] for n in range(index * QUESTIONS_PER_ATTEMPT, (index + 1) * QUESTIONS_PER_ATTEMPT)]
             for index, assignment in enumerate(assignments)}
    rows, chosen = [], []
    for user, assignment, start in batch:
        if assignment:
            picked = pools[assignment.pk]
        else:
            first = rng.randrange(0, len(questions) - QUESTIONS_PER_ATTEMPT, 25)
            picked = questions[first:first + QUESTIONS_PER_ATTEMPT]
        rights = [rng.random() < 0.7 for _ in picked]
        finished = start + timedelta(minutes=QUESTIONS_PER_ATTEMPT)
        rows.append(Attempt(
            user=user, assignment=assignment, title=assignment.title if assignment else "",
            question_set_id=None if assignment else picked[0].question_set_id,
            started_at=start, finished_at=finished, last_answered_at=finished, due_at=assignment.due_at if assignment else None,
            question_count=len(picked), correct_count=sum(rights), score=sum(rights),
        ))
        chosen.append((picked, rights))
    attempts = Attempt.objects.bulk_create(rows, batch_size=BATCH)
    slots = []
    for attempt, (picked, rights) in zip(attempts, chosen):
        for position, (question, right) in enumerate(zip(picked, rights), start=1):
            shown = [{"id": c.pk, "text": c.text, "correct": c.is_correct} for c in by_id[question.pk].choices.all()]
            number = next(n for n, c in enumerate(shown, 1) if c["correct"] == right)
            at = attempt.started_at + timedelta(minutes=position)
            slots.append(AttemptSlot(
                attempt=attempt, question=question, position=position, stem=question.stem, shown_choices=shown,
                chosen_index=number, chosen_choice_id=shown[number - 1]["id"], is_correct=right, credit=int(right), answered_at=at,
                seconds_spent=60, scheduled_at=at,
            ))
    AttemptSlot.objects.bulk_create(slots, batch_size=BATCH)
    return len(slots)


def _memory_of_answered_questions(users, rng, now):
    """Every learner (but `demo`, whose memory comes with its review log) remembers each
    question they answered: one memory state per learner and question, as the scheduler keeps."""
    answered = (
        AttemptSlot.objects.filter(attempt__user__in=users).order_by().values_list("attempt__user_id", "question_id")
        .distinct()
    )
    rows = (
        MemoryState(user_id=user_id, kind=MemoryState.Kind.QUESTION, question_id=question_id, phase=2,
                    stability=rng.uniform(1, 60), difficulty=rng.uniform(2, 8),
                    due=now + timedelta(days=rng.randint(-5, 30)), last_review=now - timedelta(days=rng.randint(0, 60)),
                    reps=rng.randint(1, 5), last_rating=rng.choice([1, 3, 3, 3]))
        for user_id, question_id in answered.iterator(chunk_size=BATCH)
    )
    memories = MemoryState.objects.bulk_create(rows, batch_size=BATCH)
    # ...and the review each memory state's last rating came from: with the recall FSRS predicted
    # before it unless it was the first sight, as a real log has (a log of first sights only
    # gave the planner statistics no running site has, and plans to match).
    ReviewLog.objects.bulk_create(
        (ReviewLog(user_id=memory.user_id, memory=memory, source="quiz", rating=memory.last_rating,
                   reviewed_at=memory.last_review, due_after=memory.due,
                   retrievability=_predicted(memory.last_rating, rng) if memory.reps > 1 else None)
         for memory in memories),
        batch_size=BATCH,
    )


def _predicted(rating, rng):
    """A plausible prediction before a review with this rating: lower before a lapse."""
    return rng.uniform(0.3, 0.9) if rating == 1 else rng.uniform(0.6, 1.0)


def _review_log(demo, questions, reviews, rng, now):
    """The demo learner's memory of 200 cards and 200 questions, and `reviews` log rows over a year."""
    if not reviews:
        return 0
    cards = list(Card.objects.filter(deck__title="Demo deck"))
    memories = MemoryState.objects.bulk_create(
        [MemoryState(user=demo, kind=MemoryState.Kind.CARD, card=card, phase=2, stability=rng.uniform(1, 60),
                     difficulty=rng.uniform(2, 8), due=now + timedelta(days=rng.randint(-5, 30)),
                     last_review=now - timedelta(days=rng.randint(0, 20)), reps=reviews // 400, last_rating=3)
         for card in cards]
        + [MemoryState(user=demo, kind=MemoryState.Kind.QUESTION, question=question, phase=2,
                       stability=rng.uniform(1, 60), difficulty=rng.uniform(2, 8),
                       due=now + timedelta(days=rng.randint(-5, 30)), last_review=now - timedelta(days=rng.randint(0, 20)),
                       reps=reviews // 400, last_rating=rng.choice([1, 3, 3, 3]))
           for question in questions[:200]],
        batch_size=BATCH,
    )
    first_sights = reviews - len(memories)  # the oldest row of each memory has no prediction
    ratings = (rng.choice([1, 3, 3, 3, 4]) for _ in range(reviews))
    logs = (
        ReviewLog(user=demo, memory=memories[n % len(memories)], source="study" if n % 2 else "review",
                  rating=rating, reviewed_at=now - timedelta(minutes=26 * n),
                  due_after=now + timedelta(days=3), duration_ms=rng.randint(1500, 12000),
                  retrievability=_predicted(rating, rng) if n < first_sights else None)
        for n, rating in enumerate(ratings)
    )
    ReviewLog.objects.bulk_create(logs, batch_size=BATCH)
    return reviews
