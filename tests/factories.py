"""Small builders for test data: content and learners made in code, not giant fixtures."""

import itertools

from quiz.models import Attempt, Card, Choice, Deck, Question, QuestionSet, User

_counter = itertools.count(1)

PASSWORD = "correct-horse-battery-staple"


def make_user(username=None, **fields):
    username = username or f"learner{next(_counter)}"
    return User.objects.create_user(username=username, password=PASSWORD, **fields)


def make_question_set(title=None, questions=3, choices=4):
    """A set whose question N has N-1 as its correct choice index (so it varies by question)."""
    question_set = QuestionSet.objects.create(title=title or f"Set {next(_counter)}")
    for number in range(1, questions + 1):
        make_question(question_set, number, choices=choices)
    return question_set


def make_question(question_set, number, choices=4, correct_index=None):
    question = Question.objects.create(
        question_set=question_set,
        key=f"q{number}",
        position=number,
        stem=f"Question {number} stem?",
        explanation=f"Explanation {number}.",
    )
    correct_index = (number - 1) % choices if correct_index is None else correct_index
    Choice.objects.bulk_create(
        Choice(question=question, text=f"Choice {number}.{index}", is_correct=index == correct_index, position=index)
        for index in range(choices)
    )
    return question


def make_deck(title=None, cards=3):
    deck = Deck.objects.create(title=title or f"Deck {next(_counter)}")
    for number in range(1, cards + 1):
        Card.objects.create(
            deck=deck,
            key=f"c{number}",
            position=number,
            front=f"Front {number}",
            back=f"Back {number}",
            misconception=f"Myth {number}",
            correction=f"Correction {number}",
        )
    return deck


def start_attempt(user, question_set, **options):
    attempt, _ = Attempt.objects.start_or_resume(user=user, question_set=question_set, **options)
    return attempt


def correct_choice(slot):
    return slot.question.choices.get(is_correct=True)


def wrong_choice(slot):
    return slot.question.choices.filter(is_correct=False).first()


def correct_number(slot):
    """The on-screen number (1-based, as shuffled for this attempt) of the right choice."""
    return slot.correct_number


def wrong_number(slot):
    return next(n for n, choice in enumerate(slot.shown_choices, start=1) if not choice["correct"])


def answer_all(attempt, right=None):
    """Answer every open slot; `right` is how many of them to get right (all by default)."""
    slots = list(attempt.slots.filter(answered_at__isnull=True))
    right = len(slots) if right is None else right
    for index, slot in enumerate(slots):
        attempt.record_answer(slot, correct_number(slot) if index < right else wrong_number(slot))
    return attempt


# --- Study history (issue 4: dashboard and history tests) -------------------------------------

def make_topic(name):
    from quiz.models import Topic

    return Topic.objects.get_or_create(name=name)[0]


def rate_item(user, item, rating, at, source=None):
    """Rate a card or a question at a fixed moment, through the real scheduler."""
    from quiz.models import MemoryState, ReviewLog
    from quiz.study import scheduling

    kind = MemoryState.Kind.QUESTION if isinstance(item, Question) else MemoryState.Kind.CARD
    source = source or (ReviewLog.Source.REVIEW if kind == MemoryState.Kind.QUESTION else ReviewLog.Source.STUDY)
    return scheduling.rate(user=user, kind=kind, item=item, rating=rating, source=source, now=at)


def answer_at(attempt, slot, right, at):
    """Answer one slot of an attempt at a fixed moment, as the quiz page does (slot + review row)."""
    from quiz.study import answers

    return answers.submit_answer(
        attempt=attempt, slot=slot, number=correct_number(slot) if right else wrong_number(slot), now=at
    )
