"""Routes for the dashboard's actions and the learner's history downloads (issue 4)."""

from django.urls import path

from . import dashboard_views, history_views

urlpatterns = [
    path("dashboard/exam/", dashboard_views.exam_settings, name="exam_settings"),
    path("topics/<int:topic_id>/quiz/", dashboard_views.topic_quiz, name="topic_quiz"),
    path("history/cards/", history_views.card_history, name="card_history"),
    path("history/download/", history_views.download_history, name="download_history"),
]
