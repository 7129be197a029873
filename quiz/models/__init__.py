"""The app's models, one module per area. Imported here so `from quiz.models import X` works."""

from .attempts import (
    MAX_SECONDS_PER_QUESTION,
    Attempt,
    AttemptQuerySet,
    AttemptSlot,
    shuffled,
)
from .classes import (
    Assignment,
    AssignmentOverride,
    Classroom,
    Enrollment,
    PoolQuestion,
    QuestionPool,
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
    Visibility,
    count_of,
)
from .imports import PendingFile, PendingImport
from .memory import MemoryState, ReviewLog, ScheduleFit, StudyDay

__all__ = [
    "MAX_SECONDS_PER_QUESTION", "Attempt", "AttemptSlot", "AttemptQuerySet", "shuffled",
    "Card", "Choice", "Deck", "Question", "QuestionSet", "SourceDocument", "Topic", "User", "Visibility", "count_of",
    "MemoryState", "ReviewLog", "ScheduleFit", "StudyDay", "PendingImport", "PendingFile",
    "Assignment", "AssignmentOverride", "Classroom", "Enrollment", "QuestionPool", "PoolQuestion", "Rules",
    "new_join_code",
]
