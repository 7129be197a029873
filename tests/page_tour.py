"""Every page a learner, an instructor and a visitor reach, with realistic data behind it.

One list, shared by the browser checks that must hold on every page (no sideways scroll and no
serious axe-core violation at 320, 390 and 1280 px, light and dark): `build_world()` makes the data once,
`tour(world)` yields a `TourPage` per page. `PAGES` is checked against the URL configuration
(tests/test_browser_every_page.py), so a new page joins the tour or says why it does not.
"""

from dataclasses import dataclass
from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from quiz.accounts.reminders import unsubscribe_token
from quiz.content.pending import stage_import
from quiz.models import AssignmentOverride, HistoryImport, MemoryState, ReviewLog
from quiz.study import scheduling
from quiz.study.answers import submit_answer
from quiz.study.mock_exam import Choices, start_mock_exam
from tests.class_factories import make_assignment, make_classroom, make_instructor, make_pool, take
from tests.factories import make_deck, make_question_set, make_topic, make_user, start_attempt
from tests.helpers import answer_all, rate_item


@dataclass(frozen=True)
class TourPage:
    name: str  # the URL's name, or a description for pages reached another way (errors)
    actor: str  # "visitor", "learner" or "instructor": whose browser opens it
    url: str
    status: int = 200


# name: (actor, the URL from the world). The URL names of quiz/urls.py, plus error pages.
PAGES = {
    # A visitor
    "home (visitor)": ("visitor", lambda w: reverse("home")),
    "login": ("visitor", lambda w: reverse("login")),
    "signup": ("visitor", lambda w: reverse("signup")),
    "password_reset": ("visitor", lambda w: reverse("password_reset")),
    # A reset link that does not work (a good one is single-use): the page says so, in the app's style.
    "password_reset_confirm": ("visitor", lambda w: reverse("password_reset_confirm", args=["MQ", "no-such-token"])),
    "404 page": ("visitor", lambda w: "/no-such-page/", 404),
    # A learner: the dashboard and its pages
    "home": ("learner", lambda w: reverse("home")),
    "exam_plan": ("learner", lambda w: reverse("exam_plan")),
    "study_settings": ("learner", lambda w: reverse("study_settings")),
    "account_settings": ("learner", lambda w: reverse("account_settings")),
    "password_change": ("learner", lambda w: reverse("password_change")),
    # The instructor's: it lists the classes to hand over or archive first.
    "delete_account": ("instructor", lambda w: reverse("delete_account")),
    # Links from emails, opened in any browser.
    "verify_email": ("visitor", lambda w: reverse("verify_email", args=["no-such-token"]), 400),
    "undo_email_change": ("visitor", lambda w: reverse("undo_email_change", args=["no-such-token"]), 400),
    "unsubscribe": ("visitor", lambda w: reverse("unsubscribe", args=[unsubscribe_token(w["learner"], "reviews")])),
    "workload_estimate": ("learner", lambda w: reverse("workload_estimate")),
    # Quizzes and history
    "attempt_question": ("learner", lambda w: reverse("attempt_question", args=[w["open_attempt"].pk, 2])),
    "attempt_question (answered)": ("learner", lambda w: reverse("attempt_question", args=[w["open_attempt"].pk, 1])),
    "attempt_results": ("learner", lambda w: reverse("attempt_results", args=[w["finished"].pk])),
    "attempt_list": ("learner", lambda w: reverse("attempt_list")),
    "card_history": ("learner", lambda w: reverse("card_history")),
    "browse": ("learner", lambda w: reverse("browse") + "?q=network"),
    # Feedback at the end: a question, the summary before submitting, the confirmation
    "attempt_question (deferred)": ("learner", lambda w: reverse("attempt_question", args=[w["deferred"].pk, 1])),
    "attempt_summary": ("learner", lambda w: reverse("attempt_summary", args=[w["deferred"].pk])),
    "attempt_submit": ("learner", lambda w: reverse("attempt_submit", args=[w["deferred"].pk])),
    # The mock exam, and the results of one
    "mock_exam": ("learner", lambda w: reverse("mock_exam")),
    "attempt_results (mock exam)": ("learner", lambda w: reverse("attempt_results", args=[w["mock_exam"].pk])),
    # Flashcards, review and drill
    "deck": ("learner", lambda w: reverse("deck", args=[w["deck"].pk])),
    "study_deck": ("learner", lambda w: reverse("study_deck", args=[w["deck"].pk])),
    "drill": ("learner", lambda w: reverse("drill", args=[w["deck"].pk])),
    "card_info": ("learner", lambda w: reverse("card_info", args=[w["deck"].cards.order_by("pk").first().pk])),
    "review_due": ("learner", lambda w: reverse("review_due")),
    "review_answer": ("learner", lambda w: reverse("review_answer", args=[w["review"].pk])),
    # One's own content
    "library": ("learner", lambda w: reverse("library")),
    "import_content": ("learner", lambda w: reverse("import_content")),
    "import_preview": ("learner", lambda w: reverse("import_preview", args=[w["pending_import"].pk])),
    "import_history": ("learner", lambda w: reverse("import_history")),
    "edit_set": ("learner", lambda w: reverse("edit_set", args=[w["own_set"].pk])),
    "new_question": ("learner", lambda w: reverse("new_question", args=[w["own_set"].pk])),
    "delete_set": ("learner", lambda w: reverse("delete_set", args=[w["own_set"].pk])),
    "edit_question": ("learner", lambda w: reverse("edit_question", args=[w["own_question"].pk])),
    "delete_question": ("learner", lambda w: reverse("delete_question", args=[w["own_question"].pk])),
    "edit_deck": ("learner", lambda w: reverse("edit_deck", args=[w["own_deck"].pk])),
    "new_card": ("learner", lambda w: reverse("new_card", args=[w["own_deck"].pk])),
    "delete_deck": ("learner", lambda w: reverse("delete_deck", args=[w["own_deck"].pk])),
    "edit_card": ("learner", lambda w: reverse("edit_card", args=[w["own_card"].pk])),
    "delete_card": ("learner", lambda w: reverse("delete_card", args=[w["own_card"].pk])),
    # Classes, as a learner
    "my_classes": ("learner", lambda w: reverse("my_classes")),
    "join_class": ("learner", lambda w: reverse("join_class")),
    "join_class_with_code": ("learner", lambda w: reverse("join_class_with_code", args=[w["other_class"].join_code])),
    "learner_assignment": ("learner", lambda w: reverse("learner_assignment", args=[w["open_assignment"].pk])),
    "learner_assignment (taken)": ("learner", lambda w: reverse("learner_assignment", args=[w["assignment"].pk])),
    "403 page": ("learner", lambda w: reverse("teach_home"), 403),
    # An instructor
    "teach_home": ("instructor", lambda w: reverse("teach_home")),
    "classroom": ("instructor", lambda w: reverse("classroom", args=[w["classroom"].pk])),
    "remove_learner": ("instructor", lambda w: reverse("remove_learner", args=[w["classroom"].pk, w["learner"].pk])),
    "archive_classroom": ("instructor", lambda w: reverse("archive_classroom", args=[w["classroom"].pk])),
    "new_assignment": ("instructor", lambda w: reverse("new_assignment", args=[w["classroom"].pk])),
    "gradebook": ("instructor", lambda w: reverse("gradebook", args=[w["classroom"].pk])),
    "class_mock_exam": ("instructor", lambda w: reverse("class_mock_exam", args=[w["classroom"].pk])),
    "class_calibration": ("instructor", lambda w: reverse("class_calibration", args=[w["classroom"].pk])),
    "new_pool": ("instructor", lambda w: reverse("new_pool")),
    "pool": ("instructor", lambda w: reverse("pool", args=[w["pool"].pk])),
    "pool_answer_key": ("instructor", lambda w: reverse("pool_answer_key", args=[w["pool"].pk])),
    "delete_pool": ("instructor", lambda w: reverse("delete_pool", args=[w["draft_pool"].pk])),
    "assignment": ("instructor", lambda w: reverse("assignment", args=[w["assignment"].pk])),
    "edit_assignment": ("instructor", lambda w: reverse("edit_assignment", args=[w["assignment"].pk])),
    "copy_assignment": ("instructor", lambda w: reverse("copy_assignment", args=[w["assignment"].pk])),
    "delete_assignment": ("instructor", lambda w: reverse("delete_assignment", args=[w["assignment"].pk])),
    "preview_assignment": ("instructor", lambda w: reverse("preview_assignment", args=[w["assignment"].pk])),
    "learner_attempts": ("instructor", lambda w: reverse("learner_attempts", args=[w["assignment"].pk, w["learner"].pk])),
    "item_analysis": ("instructor", lambda w: reverse("item_analysis", args=[w["assignment"].pk])),
    "exclude_question": (
        "instructor", lambda w: reverse("exclude_question", args=[w["assignment"].pk, w["assigned_question"].pk]),
    ),
    "instructor_attempt_review": ("instructor", lambda w: reverse("instructor_attempt_review", args=[w["taken"].pk])),
}

# URL names that are no page of their own, and why; every other URL name must be in PAGES.
NOT_PAGES = {
    "health": "a plain-text health check",
    "attempt": "redirects to the attempt's current question",
    "start_attempt": "POST only", "exam_settings": "POST only", "topic_quiz": "POST only",
    "optimise_schedule": "POST only", "undo": "POST only", "retake_mistakes": "POST only", "flag_question": "POST only",
    "share_set": "POST only", "share_deck": "POST only", "duplicate_set": "POST only", "duplicate_deck": "POST only",
    "rename_set": "POST only", "rename_deck": "POST only",
    "move_question": "POST only", "move_card": "POST only", "start_assignment": "POST only", "preview_item": "POST only",
    "create_classroom": "POST only", "new_join_code": "POST only", "rename_classroom": "POST only",
    "restore_classroom": "POST only", "pool_add": "POST only", "pool_entry": "POST only",
    "restore_assignment": "POST only", "delete_override": "POST only", "include_question": "POST only",
    "media_file": "an image", "add_image": "POST only",
    "download_set": "a file download", "download_deck": "a file download", "download_history": "a file download",
    "gradebook_csv": "a file download", "responses_csv": "a file download", "download_my_data": "a file download",
    "change_email": "POST only", "send_verification": "POST only", "reminder_settings": "POST only",
    "sign_out_device": "POST only", "sign_out_other_devices": "POST only", "hand_over_class": "POST only",
    "lti_jwks": "the tool's public keys (JSON)", "lti_login": "a redirect to the platform's login",
    "lti_launch": "POST only (from an LMS)", "lti_welcome": "needs a launch: tests/test_lti.py", "lti_deep_link": "needs a launch: tests/test_lti.py",
    "lti_configuration": "for staff (Django's admin users): tests/test_lti.py", "sync_roster": "POST only",
    "lti_dynamic_registration": "opened by a platform during its registration: tests/test_lti_registration.py",
}


def tour(world):
    for name, (actor, url, *status) in PAGES.items():
        yield TourPage(name, actor, url(world), *status)


def build_world():
    """A learner a few weeks into their study, in a class whose instructor has set two
    assignments, and a visitor's view of the shared library. Titles and texts are as long as
    real ones get, since long words are what push a narrow page sideways."""
    now = timezone.now()
    learner = make_user("lena", exam_date=(now + timedelta(days=45)).date(), first_name="Lena")
    classmates = [make_user(name) for name in ("marco", "priya", "tomasz_wisniewski")]
    instructor = make_instructor("ines")

    networking = make_question_set("Networking fundamentals: subnetting, routing and switching", questions=6)
    security = make_question_set("Security+ SY0-701: threats, vulnerabilities and mitigations", questions=4)
    networking.questions.filter(position=1).update(
        stem="A host at 192.168.10.77/27 must reach its default gateway. Which address can the gateway have?",
        explanation="A /27 splits the last octet into blocks of 32: 192.168.10.64-95. See "
        "https://datatracker.ietf.org/doc/html/rfc4632#section-3.1 for the notation.",
    )
    subnetting, routing = make_topic("Subnetting and CIDR notation"), make_topic("Routing protocols")
    subnetting.questions.add(*networking.questions.filter(position__lte=3))
    routing.questions.add(*networking.questions.filter(position__gt=3))

    # Some history: two finished quizzes, one half-way through, reviews and flashcards rated.
    answer_all(start_attempt(learner, networking), right=4)
    finished = answer_all(start_attempt(learner, security), right=2)
    open_attempt = start_attempt(learner, make_question_set("Cloud practitioner: shared responsibility", questions=5))
    first_slot = open_attempt.slots.order_by("position").first()
    submit_answer(attempt=open_attempt, slot=first_slot, number=first_slot.correct_number)
    deck = make_deck("Well-known TCP and UDP ports (20-443)", cards=8)
    for days_ago, card in enumerate(deck.cards.order_by("position")[:5], start=1):
        rate_item(learner, card, 3 if days_ago % 2 else 1, at=now - timedelta(days=days_ago))
    review_question = networking.questions.order_by("position").last()
    scheduling.rate(user=learner, kind=MemoryState.Kind.QUESTION, item=review_question, rating=1, source="review")

    # The learner's own content, and an import waiting to be applied.
    own_set = make_question_set("My notes on OSPF and BGP", questions=3, owner=learner)
    own_deck = make_deck("My acronyms", cards=4, owner=learner)
    pending = stage_import(owner=learner, files=[("ports", b"::q:: Which port does HTTPS use? {=443 ~80 ~22}\n")])

    # A class: one assignment taken by everyone (past), one open now, and a pool not yet used.
    classroom = make_classroom(instructor, name="Networking 101: Spring cohort", learners=[learner, *classmates])
    other_class = make_classroom(make_instructor("omar"), name="Cloud basics")
    pool = make_pool(instructor, networking.questions.all(), title="Week 3: subnetting quiz")
    assignment = make_assignment(classroom, pool)
    taken = take(assignment, learner, [0, 1, 2, 0, 1, 2])
    for index, classmate in enumerate(classmates):
        take(assignment, classmate, [index % 4] * 6)
    AssignmentOverride.objects.create(assignment=assignment, learner=classmates[0], max_attempts=3)
    open_assignment = make_assignment(
        classroom, make_pool(instructor, security.questions.all(), title="Week 4: security basics"),
        opens_at=now - timedelta(days=1), due_at=now + timedelta(days=6),
    )
    draft_pool = make_pool(instructor, security.questions.all(), title="Week 5 draft")
    # A quiz with feedback at the end, one answer saved and one question flagged; a finished mock exam.
    deferred = start_attempt(learner, networking, feedback="deferred")
    first = deferred.slots.order_by("position").first()
    submit_answer(attempt=deferred, slot=first, number=first.correct_number)
    deferred.slots.filter(position=2).update(flagged=True)
    mock_exam, _ = start_mock_exam(user=learner, choices=Choices(8, 30, 70), now=now)
    answer_all(mock_exam, right=5)
    mock_exam.finish()
    # An Anki history imported into the learner's own deck, finished an hour ago.
    HistoryImport.objects.create(owner=learner, deck=own_deck, total=1250, cards=40, added=1200, already=50,
                                 created_at=now - timedelta(hours=1), finished_at=now - timedelta(hours=1))
    return {
        "deferred": deferred, "mock_exam": mock_exam,
        "learner": learner, "instructor": instructor, "classroom": classroom, "other_class": other_class,
        "finished": finished, "open_attempt": open_attempt, "deck": deck,
        "review": ReviewLog.objects.filter(user=learner, memory__kind=MemoryState.Kind.QUESTION).latest("pk"),
        "own_set": own_set, "own_question": own_set.questions.order_by("pk").first(),
        "own_deck": own_deck, "own_card": own_deck.cards.order_by("pk").first(), "pending_import": pending,
        "pool": pool, "draft_pool": draft_pool, "assignment": assignment, "open_assignment": open_assignment,
        "assigned_question": networking.questions.order_by("position").first(), "taken": taken,
    }
