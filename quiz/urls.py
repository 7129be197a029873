"""Every URL of the app, grouped as the pages are: learner, study, history, classes, teaching.

Grouped by their first segments with include(): Django tries a request's path against each
pattern in turn, and in a flat list of 91 a page near its end (the teaching pages) tried 91
regular expressions, a fifth of what a bare signed-in request costs. A group whose prefix does
not match is skipped whole: the question page now tries 10 patterns (it tried 19), the teaching
pages 30-42 (they tried up to 92). The quiz's pages, which a learner requests most, come first."""

from django.urls import include, path
from django.views.decorators.http import require_safe
from lti_tool.views import jwks

from quiz.views import (
    accounts,
    classes,
    dashboard,
    delete_account,
    downloads,
    editor,
    health,
    history,
    library,
    lti,
    lti_registration,
    lti_roster,
    manage,
    media,
    mock_exam,
    my_data,
    quizzes,
    reminders,
    study,
    teach,
)

urlpatterns = [
    path("", dashboard.home, name="home"),
    path("healthz", health.health, name="health"),
    # LTI 1.3: the tool's public keys, the platform's login and launch, the first launch's choice.
    path(".well-known/jwks.json", require_safe(jwks), name="lti_jwks"),
    path("lti/", include([
        path("login/<uuid:registration_uuid>/", lti.login_initiation, name="lti_login"),
        path("launch/", lti.launch, name="lti_launch"),
        path("welcome/", lti.welcome, name="lti_welcome"),
        path("deep-link/", lti.deep_link, name="lti_deep_link"),
        path("configuration/", lti.configuration, name="lti_configuration"),
        path("register/<str:token>/", lti_registration.dynamic_registration, name="lti_dynamic_registration"),
    ])),
    # Quizzes, and the history of one's attempts
    path("sets/<int:set_id>/start/", quizzes.start_attempt, name="start_attempt"),
    path("attempts/", history.attempt_list, name="attempt_list"),
    path("attempts/<int:attempt_id>/", include([
        path("", quizzes.attempt, name="attempt"),
        path("questions/<int:position>/", quizzes.attempt_question, name="attempt_question"),
        path("questions/<int:position>/flag/", quizzes.flag_question, name="flag_question"),
        path("summary/", quizzes.attempt_summary, name="attempt_summary"),
        path("submit/", quizzes.attempt_submit, name="attempt_submit"),
        path("results/", quizzes.attempt_results, name="attempt_results"),
    ])),
    # Flashcards, review and drill
    path("decks/<int:deck_id>/", include([
        path("", study.deck, name="deck"),
        path("study/", study.study_deck, name="study_deck"),
        path("drill/", study.drill, name="drill"),
    ])),
    path("cards/<int:card_id>/", study.card_info, name="card_info"),
    path("review/", include([
        path("", study.review_due, name="review_due"),
        path("answers/<int:review_id>/", study.review_answer, name="review_answer"),
    ])),
    path("study/undo/", study.undo, name="undo"),
    path("mistakes/retake/", study.retake_mistakes, name="retake_mistakes"),
    # The dashboard's own pages, accounts and settings
    path("dashboard/exam/", include([
        path("", dashboard.exam_settings, name="exam_settings"),
        path("plan/", accounts.exam_plan, name="exam_plan"),
        path("mock/", mock_exam.mock_exam_page, name="mock_exam"),
    ])),
    path("topics/<int:topic_id>/quiz/", dashboard.topic_quiz, name="topic_quiz"),
    path("browse/", dashboard.browse, name="browse"),
    # An image of a set or deck, for those who may see it (files are never served publicly).
    path("media/<str:name>", media.media_file, name="media_file"),
    path("accounts/", include([
        path("login/", accounts.log_in, name="login"),
        path("signup/", accounts.signup, name="signup"),
        # Before django.contrib.auth's own URLs (studyapp/urls.py), so this rate-limited view wins.
        path("password_reset/", accounts.password_reset, name="password_reset"),
        # The link in the email (Django's own path): setting the new password also lifts a lockout.
        path("reset/<uidb64>/<token>/", accounts.PasswordResetConfirm.as_view(), name="password_reset_confirm"),
        # Django's password change, which here also signs out the account's other devices.
        path("password_change/", accounts.PasswordChange.as_view(), name="password_change"),
        # Links in emails: they work without signing in (the signed token says whose they are).
        path("verify-email/<str:token>/", accounts.verify_email, name="verify_email"),
        path("email-change/undo/<str:token>/", accounts.undo_email_change, name="undo_email_change"),
        path("unsubscribe/<str:token>/", reminders.unsubscribe, name="unsubscribe"),
    ])),
    path("settings/", include([
        path("", accounts.study_settings, name="study_settings"),
        path("workload/", accounts.workload_estimate, name="workload_estimate"),
        path("optimise/", accounts.optimise_schedule, name="optimise_schedule"),
        # The account: email, password, reminders, signed-in devices, one's data, deleting it all
        path("account/", accounts.account_settings, name="account_settings"),
        path("email/", accounts.change_email, name="change_email"),
        path("email/verify/", accounts.send_verification, name="send_verification"),
        path("reminders/", reminders.reminder_settings, name="reminder_settings"),
        path("devices/sign-out-others/", accounts.sign_out_other_devices, name="sign_out_other_devices"),
        path("devices/<str:device>/sign-out/", accounts.sign_out_device, name="sign_out_device"),
        path("my-data/", my_data.download_my_data, name="download_my_data"),
        path("delete/", delete_account.delete_account, name="delete_account"),
        path("delete/classes/<int:classroom_id>/hand-over/", delete_account.hand_over_class, name="hand_over_class"),
    ])),
    # One's own content, and the editor: one's own sets and decks, item by item
    path("library/", include([
        path("", library.library, name="library"),
        path("import/", library.import_content, name="import_content"),
        path("import/<int:pending_id>/", library.import_preview, name="import_preview"),
        path("import/anki-history/", library.import_history, name="import_history"),
        path("preview/", editor.preview_item, name="preview_item"),
        path("sets/<int:pk>/sharing/", library.share, {"kind": "sets"}, name="share_set"),
        path("decks/<int:pk>/sharing/", library.share, {"kind": "decks"}, name="share_deck"),
        path("sets/<int:pk>/download/<str:format>/", downloads.download, {"kind": "sets"}, name="download_set"),
        path("decks/<int:pk>/download/<str:format>/", downloads.download, {"kind": "decks"}, name="download_deck"),
        path("<str:kind>/<int:item_id>/images/", media.add_image, name="add_image"),  # kind: questions or cards
        path("sets/<int:set_id>/", include([
            path("", editor.edit_set, name="edit_set"),
            path("questions/new/", editor.new_question, name="new_question"),
            path("duplicate/", editor.duplicate_set, name="duplicate_set"),
            path("rename/", editor.rename_set, name="rename_set"),
            path("delete/", editor.delete_set, name="delete_set"),
        ])),
        path("questions/<int:question_id>/", include([
            path("", editor.edit_question, name="edit_question"),
            path("move/", editor.move_question, name="move_question"),
            path("delete/", editor.delete_question, name="delete_question"),
        ])),
        path("decks/<int:deck_id>/", include([
            path("", editor.edit_deck, name="edit_deck"),
            path("cards/new/", editor.new_card, name="new_card"),
            path("duplicate/", editor.duplicate_deck, name="duplicate_deck"),
            path("rename/", editor.rename_deck, name="rename_deck"),
            path("delete/", editor.delete_deck, name="delete_deck"),
        ])),
        path("cards/<int:card_id>/", include([
            path("", editor.edit_card, name="edit_card"),
            path("move/", editor.move_card, name="move_card"),
            path("delete/", editor.delete_card, name="delete_card"),
        ])),
    ])),
    # History
    path("history/", include([
        path("cards/", history.card_history, name="card_history"),
        path("download/", history.download_history, name="download_history"),
    ])),
    # Classes, as a learner
    path("classes/", include([
        path("", classes.my_classes, name="my_classes"),
        path("join/", classes.join_class, name="join_class"),
        path("join/<str:code>/", classes.join_class, name="join_class_with_code"),
    ])),
    path("assignments/<int:assignment_id>/", include([
        path("", classes.learner_assignment, name="learner_assignment"),
        path("start/", classes.start_assignment, name="start_assignment"),
    ])),
    # Teaching
    path("teach/", include([
        path("", teach.teach_home, name="teach_home"),
        path("classes/new/", teach.create_classroom, name="create_classroom"),
        path("classes/<int:classroom_id>/", include([
            path("", teach.classroom, name="classroom"),
            path("code/", teach.new_code, name="new_join_code"),
            path("learners/<int:learner_id>/remove/", manage.remove_learner, name="remove_learner"),
            path("rename/", manage.rename_classroom, name="rename_classroom"),
            path("archive/", manage.archive_classroom, name="archive_classroom"),
            path("restore/", manage.restore_classroom, name="restore_classroom"),
            path("assign/", teach.new_assignment, name="new_assignment"),
            path("gradebook/", teach.gradebook, name="gradebook"),
            path("mock-exam/", mock_exam.class_mock_exam, name="class_mock_exam"),
            path("calibration/", teach.class_calibration, name="class_calibration"),
            path("roster/sync/", lti_roster.sync_roster, name="sync_roster"),
        ])),
        # Files, not folders: no trailing slash, so outside the folder's group.
        path("classes/<int:classroom_id>/gradebook.csv", teach.gradebook_csv, name="gradebook_csv"),
        path("classes/<int:classroom_id>/responses.csv", teach.responses_csv, name="responses_csv"),
        path("pools/new/", teach.new_pool, name="new_pool"),
        path("pools/<int:pool_id>/", include([
            path("", teach.pool, name="pool"),
            path("add/", teach.pool_add, name="pool_add"),
            path("delete/", manage.delete_pool, name="delete_pool"),
            path("answers/", manage.pool_answer_key, name="pool_answer_key"),
            path("entries/<int:entry_id>/", teach.pool_entry, name="pool_entry"),
        ])),
        path("assignments/<int:assignment_id>/", include([
            path("", teach.assignment, name="assignment"),
            path("edit/", manage.edit_assignment, name="edit_assignment"),
            path("copy/", manage.copy_assignment, name="copy_assignment"),
            path("delete/", manage.delete_assignment, name="delete_assignment"),
            path("restore/", manage.restore_assignment, name="restore_assignment"),
            path("preview/", manage.preview_assignment, name="preview_assignment"),
            path("overrides/<int:override_id>/delete/", teach.delete_override, name="delete_override"),
            path("learners/<int:learner_id>/", teach.learner_attempts, name="learner_attempts"),
            path("analysis/", teach.item_analysis, name="item_analysis"),
            path("questions/<int:question_id>/exclude/", manage.exclude_question, name="exclude_question"),
            path("questions/<int:question_id>/include/", manage.include_question, name="include_question"),
        ])),
        path("attempts/<int:attempt_id>/", teach.attempt_review, name="instructor_attempt_review"),
    ])),
]
