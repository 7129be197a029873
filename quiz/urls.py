from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("accounts/signup/", views.signup, name="signup"),
    path("sets/<int:set_id>/start/", views.start_attempt, name="start_attempt"),
    path("attempts/", views.attempt_list, name="attempt_list"),
    path("attempts/<int:attempt_id>/", views.attempt, name="attempt"),
    path("attempts/<int:attempt_id>/questions/<int:position>/", views.attempt_question, name="attempt_question"),
    path("attempts/<int:attempt_id>/results/", views.attempt_results, name="attempt_results"),
]
