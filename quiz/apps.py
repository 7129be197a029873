"""The app's configuration; `ready` connects the security event log (quiz.security), the
deletion of images' files (quiz.content.media) and grades sent to an LMS (quiz.lti.grades)."""

from django.apps import AppConfig


class QuizConfig(AppConfig):
    name = "quiz"
    verbose_name = "Study content and attempts"

    def ready(self):
        from . import security  # noqa: F401  (connects the signal receivers)
        from .content import media  # noqa: F401  (a deleted image's file goes with it)
        from .lti import grades  # noqa: F401  (scores that change go to the course's LMS)
