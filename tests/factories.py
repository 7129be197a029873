"""Small builders for test data: content and learners made in code, not giant fixtures."""

import itertools

from quiz.models import Attempt, Card, Choice, Deck, Question, QuestionSet, User

_counter = itertools.count(1)

PASSWORD = "correct-horse-battery-staple"


def make_user(username=None, **fields):
    username = username or f"learner{next(_counter)}"
    return User.objects.create_user(username=username, password=PASSWORD, **fields)


def make_question_set(title=None, questions=3, choices=4, **ownership):
    """A set whose question N has N-1 as its correct choice index (so it varies by question).
    In the shared library unless `owner=` (and `visibility=`) say otherwise."""
    question_set = QuestionSet.objects.create(title=title or f"Set {next(_counter)}", **ownership)
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


def make_kind_question(question_set, number, kind, rights, *, texts=None, weights=None, partial_credit=False):
    """A question of `kind` whose choices at the indexes `rights` are right (`texts` default
    "A".."E", or True/False for a true/false question), with optional per-choice `weights`."""
    texts = texts or (["True", "False"] if kind == Question.Kind.TRUE_FALSE else list("ABCDE"))
    question = Question.objects.create(
        question_set=question_set, key=f"q{number}", position=number, stem=f"Kind question {number}?",
        explanation=f"Explanation {number}.", kind=kind, partial_credit=partial_credit,
    )
    Choice.objects.bulk_create(
        Choice(question=question, text=text, is_correct=index in rights, position=index,
               weight=None if weights is None else weights[index])
        for index, text in enumerate(texts)
    )
    return question


def make_matching_question(question_set, pairs=(("TCP", "Transport"), ("IP", "Network"), ("", "Physical"))):
    """A matching question with partial credit per pair; an item "" is an extra option."""
    question = Question.objects.create(
        question_set=question_set, key="q1", position=1, stem="Match each protocol to its layer.",
        explanation="TCP is transport, IP network.", kind=Question.Kind.MATCHING, partial_credit=True,
    )
    for position, (item, option) in enumerate(pairs, start=1):
        Choice.objects.create(question=question, text=item, is_correct=bool(item), match=option, position=position)
    return question


def make_deck(title=None, cards=3, **ownership):
    deck = Deck.objects.create(title=title or f"Deck {next(_counter)}", **ownership)
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


# --- Study history (issue 4: dashboard and history tests) -------------------------------------

def make_topic(name):
    from quiz.models import Topic

    return Topic.objects.get_or_create(name=name)[0]
