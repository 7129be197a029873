from django.urls import path

from . import class_views, dashboard_views, history_views, study_views, views

urlpatterns = [
    path("", dashboard_views.home, name="home"),
    path("accounts/signup/", views.signup, name="signup"),
    path("sets/<int:set_id>/start/", views.start_attempt, name="start_attempt"),
    path("attempts/", history_views.attempt_list, name="attempt_list"),
    path("attempts/<int:attempt_id>/", views.attempt, name="attempt"),
    path("attempts/<int:attempt_id>/questions/<int:position>/", views.attempt_question, name="attempt_question"),
    path("attempts/<int:attempt_id>/results/", history_views.attempt_results, name="attempt_results"),
    path("decks/<int:deck_id>/", study_views.deck, name="deck"),
    path("decks/<int:deck_id>/study/", study_views.study_deck, name="study_deck"),
    path("decks/<int:deck_id>/drill/", study_views.drill, name="drill"),
    path("cards/<int:card_id>/", study_views.card_info, name="card_info"),
    path("review/", study_views.review_due, name="review_due"),
    path("review/answers/<int:review_id>/", study_views.review_answer, name="review_answer"),
    path("study/undo/", study_views.undo, name="undo"),
    path("mistakes/retake/", study_views.retake_mistakes, name="retake_mistakes"),
    path("settings/", study_views.study_settings, name="study_settings"),
    path("classes/", class_views.my_classes, name="my_classes"),
    path("classes/join/", class_views.join_class, name="join_class"),
    path("classes/join/<str:code>/", class_views.join_class, name="join_class_with_code"),
    path("assignments/<int:assignment_id>/", class_views.learner_assignment, name="learner_assignment"),
    path("assignments/<int:assignment_id>/start/", class_views.start_assignment, name="start_assignment"),
]
