"""The app's models, one module per area. Imported here so `from quiz.models import X` works."""

from .attempts import MAX_SECONDS_PER_QUESTION, Attempt, AttemptQuerySet
from .classes import (
    Assignment,
    AssignmentOverride,
    Classroom,
    Enrollment,
    ExcludedQuestion,
    PoolQuestion,
    QuestionPool,
    Rules,
    new_join_code,
)
from .content import (
    Card,
    Choice,
    Deck,
    Markup,
    Question,
    QuestionSet,
    SourceDocument,
    Topic,
    Visibility,
    count_of,
)
from .imports import HistoryImport, PendingFile, PendingImage, PendingImport
from .lti import GradeSend, LtiClass, LtiGradeLink, LtiNonce
from .media import MediaFile
from .memory import MemoryState, ReviewLog, ScheduleFit, StudyDay
from .mock_exams import ExamBlueprint, MockExam
from .reminders import ReminderSent
from .slots import AttemptSlot, score_by_topic, shuffled
from .users import User

__all__ = [
    "MAX_SECONDS_PER_QUESTION", "Attempt", "AttemptSlot", "AttemptQuerySet", "score_by_topic", "shuffled",
    "Card", "Choice", "Deck", "Question", "QuestionSet", "SourceDocument", "Topic", "User", "Visibility", "count_of",
    "ExamBlueprint", "MemoryState", "MockExam", "ReviewLog", "ScheduleFit", "StudyDay", "PendingImport", "PendingFile", "PendingImage", "HistoryImport", "LtiClass", "LtiNonce", "LtiGradeLink", "GradeSend", "ReminderSent", "MediaFile", "Markup",
    "Assignment", "AssignmentOverride", "Classroom", "Enrollment", "ExcludedQuestion", "QuestionPool", "PoolQuestion", "Rules",
    "new_join_code",
]
