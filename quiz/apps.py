"""The app's configuration; `ready` connects the security event log (quiz.security)."""

from django.apps import AppConfig


class QuizConfig(AppConfig):
    name = "quiz"
    verbose_name = "Study content and attempts"

    def ready(self):
        from . import security  # noqa: F401  (connects the signal receivers)
