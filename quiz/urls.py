"""Every URL of the app, grouped as the pages are: learner, study, history, classes, teaching."""

from django.conf import settings
from django.urls import path

from quiz.views import accounts, classes, dashboard, downloads, editor, health, history, library, manage, quizzes, study, teach

urlpatterns = [
    path("", dashboard.home, name="home"),
    path("healthz", health.health, name="health"),
    path("dashboard/exam/", dashboard.exam_settings, name="exam_settings"),
    path("dashboard/exam/plan/", accounts.exam_plan, name="exam_plan"),
    path("topics/<int:topic_id>/quiz/", dashboard.topic_quiz, name="topic_quiz"),
    path("accounts/login/", accounts.log_in, name="login"),
    path("accounts/signup/", accounts.signup, name="signup"),
    # Before django.contrib.auth's own URLs (studyapp/urls.py), so this rate-limited view wins.
    path("accounts/password_reset/", accounts.password_reset, name="password_reset"),
    path("settings/", accounts.study_settings, name="study_settings"),
    path("settings/workload/", accounts.workload_estimate, name="workload_estimate"),
    path("settings/optimise/", accounts.optimise_schedule, name="optimise_schedule"),
    # Quizzes
    path("sets/<int:set_id>/start/", quizzes.start_attempt, name="start_attempt"),
    path("attempts/<int:attempt_id>/", quizzes.attempt, name="attempt"),
    path("attempts/<int:attempt_id>/questions/<int:position>/", quizzes.attempt_question, name="attempt_question"),
    path("attempts/<int:attempt_id>/questions/<int:position>/flag/", quizzes.flag_question, name="flag_question"),
    path("attempts/<int:attempt_id>/summary/", quizzes.attempt_summary, name="attempt_summary"),
    path("attempts/<int:attempt_id>/submit/", quizzes.attempt_submit, name="attempt_submit"),
    path("attempts/<int:attempt_id>/results/", quizzes.attempt_results, name="attempt_results"),
    # Flashcards, review and drill
    path("decks/<int:deck_id>/", study.deck, name="deck"),
    path("decks/<int:deck_id>/study/", study.study_deck, name="study_deck"),
    path("decks/<int:deck_id>/drill/", study.drill, name="drill"),
    path("cards/<int:card_id>/", study.card_info, name="card_info"),
    path("review/", study.review_due, name="review_due"),
    path("review/answers/<int:review_id>/", study.review_answer, name="review_answer"),
    path("study/undo/", study.undo, name="undo"),
    path("mistakes/retake/", study.retake_mistakes, name="retake_mistakes"),
    # One's own content
    path("library/", library.library, name="library"),
    path("library/import/", library.import_content, name="import_content"),
    path("library/import/<int:pending_id>/", library.import_preview, name="import_preview"),
    path("library/sets/<int:pk>/sharing/", library.share, {"kind": "sets"}, name="share_set"),
    path("library/decks/<int:pk>/sharing/", library.share, {"kind": "decks"}, name="share_deck"),
    path("library/sets/<int:pk>/download/<str:format>/", downloads.download, {"kind": "sets"}, name="download_set"),
    path("library/decks/<int:pk>/download/<str:format>/", downloads.download, {"kind": "decks"}, name="download_deck"),
    # The editor: one's own sets and decks, item by item
    path("library/sets/<int:set_id>/", editor.edit_set, name="edit_set"),
    path("library/sets/<int:set_id>/questions/new/", editor.new_question, name="new_question"),
    path("library/sets/<int:set_id>/duplicate/", editor.duplicate_set, name="duplicate_set"),
    path("library/sets/<int:set_id>/delete/", editor.delete_set, name="delete_set"),
    path("library/questions/<int:question_id>/", editor.edit_question, name="edit_question"),
    path("library/questions/<int:question_id>/move/", editor.move_question, name="move_question"),
    path("library/questions/<int:question_id>/delete/", editor.delete_question, name="delete_question"),
    path("library/decks/<int:deck_id>/", editor.edit_deck, name="edit_deck"),
    path("library/decks/<int:deck_id>/cards/new/", editor.new_card, name="new_card"),
    path("library/decks/<int:deck_id>/duplicate/", editor.duplicate_deck, name="duplicate_deck"),
    path("library/decks/<int:deck_id>/delete/", editor.delete_deck, name="delete_deck"),
    path("library/cards/<int:card_id>/", editor.edit_card, name="edit_card"),
    path("library/cards/<int:card_id>/move/", editor.move_card, name="move_card"),
    path("library/cards/<int:card_id>/delete/", editor.delete_card, name="delete_card"),
    # History
    path("attempts/", history.attempt_list, name="attempt_list"),
    path("history/cards/", history.card_history, name="card_history"),
    path("history/download/", history.download_history, name="download_history"),
    # Classes, as a learner
    path("classes/", classes.my_classes, name="my_classes"),
    path("classes/join/", classes.join_class, name="join_class"),
    path("classes/join/<str:code>/", classes.join_class, name="join_class_with_code"),
    path("assignments/<int:assignment_id>/", classes.learner_assignment, name="learner_assignment"),
    path("assignments/<int:assignment_id>/start/", classes.start_assignment, name="start_assignment"),
    # Teaching
    path("teach/", teach.teach_home, name="teach_home"),
    path("teach/classes/new/", teach.create_classroom, name="create_classroom"),
    path("teach/classes/<int:classroom_id>/", teach.classroom, name="classroom"),
    path("teach/classes/<int:classroom_id>/code/", teach.new_code, name="new_join_code"),
    path(
        "teach/classes/<int:classroom_id>/learners/<int:learner_id>/remove/",
        manage.remove_learner,
        name="remove_learner",
    ),
    path("teach/classes/<int:classroom_id>/rename/", manage.rename_classroom, name="rename_classroom"),
    path("teach/classes/<int:classroom_id>/archive/", manage.archive_classroom, name="archive_classroom"),
    path("teach/classes/<int:classroom_id>/restore/", manage.restore_classroom, name="restore_classroom"),
    path("teach/classes/<int:classroom_id>/assign/", teach.new_assignment, name="new_assignment"),
    path("teach/classes/<int:classroom_id>/gradebook/", teach.gradebook, name="gradebook"),
    path("teach/classes/<int:classroom_id>/gradebook.csv", teach.gradebook_csv, name="gradebook_csv"),
    path("teach/classes/<int:classroom_id>/responses.csv", teach.responses_csv, name="responses_csv"),
    path("teach/pools/new/", teach.new_pool, name="new_pool"),
    path("teach/pools/<int:pool_id>/", teach.pool, name="pool"),
    path("teach/pools/<int:pool_id>/add/", teach.pool_add, name="pool_add"),
    path("teach/pools/<int:pool_id>/delete/", manage.delete_pool, name="delete_pool"),
    path("teach/pools/<int:pool_id>/answers/", manage.pool_answer_key, name="pool_answer_key"),
    path("teach/pools/<int:pool_id>/entries/<int:entry_id>/", teach.pool_entry, name="pool_entry"),
    path("teach/assignments/<int:assignment_id>/", teach.assignment, name="assignment"),
    path("teach/assignments/<int:assignment_id>/edit/", manage.edit_assignment, name="edit_assignment"),
    path("teach/assignments/<int:assignment_id>/copy/", manage.copy_assignment, name="copy_assignment"),
    path("teach/assignments/<int:assignment_id>/delete/", manage.delete_assignment, name="delete_assignment"),
    path("teach/assignments/<int:assignment_id>/restore/", manage.restore_assignment, name="restore_assignment"),
    path("teach/assignments/<int:assignment_id>/preview/", manage.preview_assignment, name="preview_assignment"),
    path(
        "teach/assignments/<int:assignment_id>/overrides/<int:override_id>/delete/",
        teach.delete_override,
        name="delete_override",
    ),
    path(
        "teach/assignments/<int:assignment_id>/learners/<int:learner_id>/",
        teach.learner_attempts,
        name="learner_attempts",
    ),
    path("teach/assignments/<int:assignment_id>/analysis/", teach.item_analysis, name="item_analysis"),
    path(
        "teach/assignments/<int:assignment_id>/questions/<int:question_id>/exclude/",
        manage.exclude_question,
        name="exclude_question",
    ),
    path(
        "teach/assignments/<int:assignment_id>/questions/<int:question_id>/include/",
        manage.include_question,
        name="include_question",
    ),
    path("teach/attempts/<int:attempt_id>/", teach.attempt_review, name="instructor_attempt_review"),
]

if settings.BENCHMARK:
    urlpatterns.append(path("bench/bare/", health.bare, name="bench_bare"))
