"""The app's models, one module per area. Imported here so `from quiz.models import X` works."""

from .attempts import (
    MAX_SECONDS_PER_QUESTION,
    Attempt,
    AttemptQuerySet,
    AttemptQuestion,
    shuffled,
)
from .classes import (
    Assignment,
    AssignmentOverride,
    Classroom,
    Enrollment,
    QuizSet,
    QuizSetQuestion,
    Rules,
    new_join_code,
)
from .content import (
    Card,
    Choice,
    Deck,
    Question,
    QuestionSet,
    SourceDocument,
    Topic,
    User,
    count_of,
)
from .memory import MemoryState, Review

__all__ = [
    "MAX_SECONDS_PER_QUESTION", "Attempt", "AttemptQuestion", "AttemptQuerySet", "shuffled",
    "Card", "Choice", "Deck", "Question", "QuestionSet", "SourceDocument", "Topic", "User", "count_of",
    "MemoryState", "Review",
    "Assignment", "AssignmentOverride", "Classroom", "Enrollment", "QuizSet", "QuizSetQuestion", "Rules",
    "new_join_code",
]
