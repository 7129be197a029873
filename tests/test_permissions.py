"""Who may open what, for every URL of the app, built from the URL configuration.

Each URL is requested as an anonymous visitor, the learner who owns the data (and is in the
class), a learner of another class, the instructor who owns the class, and another
instructor. A URL added to the app without an entry here fails `test_every_url_has_an_entry`.
"""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from quiz.accounts.reminders import unsubscribe_token
from quiz.content.pending import stage_import
from quiz.models import AssignmentOverride, Attempt, MemoryState, ReviewLog, Topic
from quiz.study import scheduling
from tests.class_factories import (
    make_assignment,
    make_classroom,
    make_instructor,
    make_pool,
)
from tests.factories import PASSWORD, make_deck, make_question_set, make_user, start_attempt
from tests.images import image_bytes, make_image

ACTORS = ["anonymous", "learner", "outsider", "owner", "other_instructor"]
OK = {200, 302}  # a page, or an action's redirect
LOGIN = "login"

# Expected outcome per actor, by the kind of URL.
KINDS = {
    "public": dict.fromkeys(ACTORS, OK),
    "signed_in": {"anonymous": LOGIN, "learner": OK, "outsider": OK, "owner": OK, "other_instructor": OK},
    "own": {"anonymous": LOGIN, "learner": OK, "outsider": 404, "owner": 404, "other_instructor": 404},
    "member": {"anonymous": LOGIN, "learner": OK, "outsider": 404, "owner": 404, "other_instructor": 404},
    "instructors": {"anonymous": LOGIN, "learner": 403, "outsider": 403, "owner": OK, "other_instructor": OK},
    "instructor_of": {"anonymous": LOGIN, "learner": 403, "outsider": 403, "owner": OK, "other_instructor": 404},
    # Only the class's own instructor, and nobody else learns that the class exists.
    "class_owner": {"anonymous": LOGIN, "learner": 404, "outsider": 404, "owner": OK, "other_instructor": 404},
    # An image of a learner's private set: whoever may not see the set is told it does not exist.
    "image": {"anonymous": 404, "learner": OK, "outsider": 404, "owner": 404, "other_instructor": 404},
    # A link from an email that is no one's (a bad token): its "does not work" page, for anyone.
    "bad_link": dict.fromkeys(ACTORS, 400),
    # A page that needs what a launch left in the session: without it, refused (for visitors: sign in).
    "signed_in_bad_link": {"anonymous": LOGIN, "learner": 400, "outsider": 400, "owner": 400, "other_instructor": 400},
    # For the site's staff (Django's admin users), whom the admin's login asks for.
    "staff": dict.fromkeys(ACTORS, "admin login"),
}

# name: (kind, method, args from the world, POST data from the world)
URLS = {
    "home": ("public", "get", lambda w: [], None),
    "health": ("public", "get", lambda w: [], None),
    "signup": ("public", "get", lambda w: [], None),
    "password_reset": ("public", "get", lambda w: [], None),
    # A link that is no user's: the "link does not work" page, for anyone.
    "password_reset_confirm": ("public", "get", lambda w: ["MA", "not-a-token"], None),
    "login": ("public", "get", lambda w: [], None),
    "start_attempt": ("signed_in", "post", lambda w: [w["question_set"].pk], lambda w: {}),
    "attempt_list": ("signed_in", "get", lambda w: [], None),
    "browse": ("signed_in", "get", lambda w: [], None),
    "library": ("signed_in", "get", lambda w: [], None),
    "import_content": ("signed_in", "get", lambda w: [], None),
    "import_preview": ("own", "get", lambda w: [w["pending_import"].pk], None),
    "import_history": ("signed_in", "get", lambda w: [], None),
    # LTI: the keys are public; a login, launch or welcome without what a platform sends is refused.
    "lti_jwks": ("public", "get", lambda w: [], None),
    "lti_login": ("bad_link", "get", lambda w: ["6f1c1b8e-0000-4000-8000-000000000000"], None),
    "lti_launch": ("bad_link", "post", lambda w: [], lambda w: {"state": "state-x", "id_token": "not.a.jwt"}),
    "lti_welcome": ("bad_link", "get", lambda w: [], None),
    "lti_deep_link": ("signed_in_bad_link", "get", lambda w: [], None),
    "lti_configuration": ("staff", "get", lambda w: [], None),
    "lti_dynamic_registration": ("bad_link", "get", lambda w: ["not-a-token"], None),
    "preview_item": ("signed_in", "post", lambda w: [], lambda w: {"stem": "**Which?**", "markup": "markdown"}),
    "share_set": ("own", "post", lambda w: [w["private_set"].pk], lambda w: {"visibility": "everyone"}),
    "share_deck": ("own", "post", lambda w: [w["private_deck"].pk], lambda w: {"visibility": "everyone"}),
    "download_set": ("own", "get", lambda w: [w["private_set"].pk, "json"], None),
    "download_deck": ("own", "get", lambda w: [w["private_deck"].pk, "csv"], None),
    # The editor: the learner's own set and deck, and their items.
    "edit_set": ("own", "get", lambda w: [w["private_set"].pk], None),
    "new_question": ("own", "get", lambda w: [w["private_set"].pk], None),
    "duplicate_set": ("own", "post", lambda w: [w["private_set"].pk], lambda w: {}),
    "rename_set": ("own", "post", lambda w: [w["private_set"].pk], lambda w: {"title": "Renamed"}),
    "delete_set": ("own", "get", lambda w: [w["private_set"].pk], None),
    "edit_question": ("own", "get", lambda w: [w["own_question"].pk], None),
    "move_question": ("own", "post", lambda w: [w["own_question"].pk], lambda w: {"direction": "down"}),
    "delete_question": ("own", "get", lambda w: [w["own_question"].pk], None),
    "edit_deck": ("own", "get", lambda w: [w["private_deck"].pk], None),
    "new_card": ("own", "get", lambda w: [w["private_deck"].pk], None),
    "duplicate_deck": ("own", "post", lambda w: [w["private_deck"].pk], lambda w: {}),
    "rename_deck": ("own", "post", lambda w: [w["private_deck"].pk], lambda w: {"title": "Renamed"}),
    "delete_deck": ("own", "get", lambda w: [w["private_deck"].pk], None),
    "edit_card": ("own", "get", lambda w: [w["own_card"].pk], None),
    "add_image": ("own", "post", lambda w: ["cards", w["own_card"].pk], lambda w: {"image": png_upload(), "alt": "A square", "target": "front"}),
    "media_file": ("image", "get", lambda w: [w["image"].name], None),
    "move_card": ("own", "post", lambda w: [w["own_card"].pk], lambda w: {"direction": "down"}),
    "delete_card": ("own", "get", lambda w: [w["own_card"].pk], None),
    "attempt": ("own", "get", lambda w: [w["attempt"].pk], None),
    "attempt_question": ("own", "get", lambda w: [w["attempt"].pk, 1], None),
    "attempt_results": ("own", "get", lambda w: [w["finished"].pk], None),
    "flag_question": ("own", "post", lambda w: [w["attempt"].pk, 1], lambda w: {"flagged": "1"}),
    "attempt_summary": ("own", "get", lambda w: [w["attempt"].pk], None),
    # GET asks "Submit all and finish?"; POST submits.
    "attempt_submit": ("own", "get", lambda w: [w["attempt"].pk], None),
    "deck": ("signed_in", "get", lambda w: [w["deck"].pk], None),
    "study_deck": ("signed_in", "get", lambda w: [w["deck"].pk], None),
    "drill": ("signed_in", "get", lambda w: [w["deck"].pk], None),
    "card_info": ("signed_in", "get", lambda w: [w["deck"].cards.first().pk], None),
    "review_due": ("signed_in", "get", lambda w: [], None),
    "review_answer": ("own", "get", lambda w: [w["review"].pk], None),
    "undo": ("signed_in", "post", lambda w: [], lambda w: {"session": "review"}),
    "retake_mistakes": ("signed_in", "post", lambda w: [], lambda w: {}),
    "study_settings": ("signed_in", "get", lambda w: [], None),
    "workload_estimate": ("signed_in", "get", lambda w: [], None),
    "exam_plan": ("signed_in", "get", lambda w: [], None),
    "mock_exam": ("signed_in", "get", lambda w: [], None),
    "optimise_schedule": ("signed_in", "post", lambda w: [], lambda w: {}),
    "my_classes": ("signed_in", "get", lambda w: [], None),
    "join_class": ("signed_in", "get", lambda w: [], None),
    "join_class_with_code": ("signed_in", "get", lambda w: [w["classroom"].join_code], None),
    "learner_assignment": ("member", "get", lambda w: [w["assignment"].pk], None),
    "start_assignment": ("member", "post", lambda w: [w["assignment"].pk], lambda w: {}),
    "teach_home": ("instructors", "get", lambda w: [], None),
    "create_classroom": ("instructors", "post", lambda w: [], lambda w: {"name": "New"}),
    "new_pool": ("instructors", "get", lambda w: [], None),
    "classroom": ("instructor_of", "get", lambda w: [w["classroom"].pk], None),
    "new_join_code": ("instructor_of", "post", lambda w: [w["classroom"].pk], lambda w: {}),
    # GET asks for confirmation, POST removes.
    "remove_learner": ("instructor_of", "get", lambda w: [w["classroom"].pk, w["learner"].pk], None),
    # GET asks for confirmation, POST archives; restore is POST only.
    "archive_classroom": ("instructor_of", "get", lambda w: [w["classroom"].pk], None),
    "restore_classroom": ("instructor_of", "post", lambda w: [w["classroom"].pk], lambda w: {}),
    "rename_classroom": ("instructor_of", "post", lambda w: [w["classroom"].pk], lambda w: {"name": "Renamed"}),
    "new_assignment": ("instructor_of", "get", lambda w: [w["classroom"].pk], None),
    "gradebook": ("instructor_of", "get", lambda w: [w["classroom"].pk], None),
    "sync_roster": ("instructor_of", "post", lambda w: [w["classroom"].pk], lambda w: {}),
    "class_mock_exam": ("instructor_of", "get", lambda w: [w["classroom"].pk], None),
    "class_calibration": ("instructor_of", "get", lambda w: [w["classroom"].pk], None),
    "gradebook_csv": ("instructor_of", "get", lambda w: [w["classroom"].pk], None),
    "responses_csv": ("instructor_of", "get", lambda w: [w["classroom"].pk], None),
    "pool": ("instructor_of", "get", lambda w: [w["pool"].pk], None),
    "pool_add": ("instructor_of", "post", lambda w: [w["pool"].pk], lambda w: {"question": []}),
    "pool_entry": (
        "instructor_of", "post", lambda w: [w["pool"].pk, w["pool_entry"].pk],
        lambda w: {"action": "down"},
    ),
    "assignment": ("instructor_of", "get", lambda w: [w["assignment"].pk], None),
    "edit_assignment": ("instructor_of", "get", lambda w: [w["assignment"].pk], None),
    "copy_assignment": ("instructor_of", "get", lambda w: [w["assignment"].pk], None),
    # GET asks for confirmation, POST archives (the world's assignment has attempts).
    "delete_assignment": ("instructor_of", "get", lambda w: [w["assignment"].pk], None),
    "restore_assignment": ("instructor_of", "post", lambda w: [w["assignment"].pk], lambda w: {}),
    "preview_assignment": ("instructor_of", "get", lambda w: [w["assignment"].pk], None),
    # Assigned, so GET says by what and goes back to the pool (302).
    "delete_pool": ("instructor_of", "get", lambda w: [w["pool"].pk], None),
    "pool_answer_key": ("instructor_of", "get", lambda w: [w["pool"].pk], None),
    "delete_override": ("instructor_of", "post", lambda w: [w["assignment"].pk, w["override"].pk], lambda w: {}),
    "learner_attempts": ("instructor_of", "get", lambda w: [w["assignment"].pk, w["learner"].pk], None),
    "item_analysis": ("instructor_of", "get", lambda w: [w["assignment"].pk], None),
    # GET asks for confirmation; POST excludes, and include (undo) is POST only.
    "exclude_question": ("instructor_of", "get", lambda w: [w["assignment"].pk, w["assigned_question"].pk], None),
    "include_question": ("instructor_of", "post", lambda w: [w["assignment"].pk, w["assigned_question"].pk], lambda w: {}),
    "instructor_attempt_review": ("instructor_of", "get", lambda w: [w["assigned_attempt"].pk], None),
    "exam_settings": ("signed_in", "post", lambda w: [], lambda w: {"exam_date": "2099-01-31", "target_retention": "90"}),
    "topic_quiz": ("signed_in", "post", lambda w: [w["topic"].pk], lambda w: {}),
    "card_history": ("signed_in", "get", lambda w: [], None),
    "download_history": ("signed_in", "get", lambda w: [], None),
    # The account page and its forms
    "account_settings": ("signed_in", "get", lambda w: [], None),
    "change_email": ("signed_in", "post", lambda w: [], lambda w: {"email": "", "password": PASSWORD}),
    "send_verification": ("signed_in", "post", lambda w: [], lambda w: {}),
    "password_change": ("signed_in", "get", lambda w: [], None),
    "reminder_settings": ("signed_in", "post", lambda w: [], lambda w: {"reminder_hour": "18"}),
    "sign_out_device": ("signed_in", "post", lambda w: ["0" * 20], lambda w: {}),
    "sign_out_other_devices": ("signed_in", "post", lambda w: [], lambda w: {}),
    "download_my_data": ("signed_in", "get", lambda w: [], None),
    "delete_account": ("signed_in", "get", lambda w: [], None),
    "hand_over_class": ("class_owner", "post", lambda w: [w["classroom"].pk], lambda w: {"username": w["other_instructor"].username}),
    # Links in emails: they work without signing in; the token says whose account they act on.
    "verify_email": ("bad_link", "get", lambda w: ["not-a-token"], None),
    "undo_email_change": ("bad_link", "get", lambda w: ["not-a-token"], None),
    "unsubscribe": ("public", "get", lambda w: [unsubscribe_token(w["learner"], "reviews")], None),
}

# Pages that are also the target of their own form (GET shows it, POST submits it); every
# other page is GET-only and must say so.
PAGES_WITH_A_FORM = {
    "signup", "password_reset", "password_reset_confirm", "login", "attempt_question", "study_deck", "review_due", "drill", "study_settings", "join_class",
    "join_class_with_code", "new_pool", "pool", "new_assignment", "assignment", "import_content", "import_preview", "import_history", "lti_login", "lti_welcome", "lti_deep_link",
    "new_question", "edit_question", "delete_question", "delete_set", "new_card", "edit_card", "delete_card", "delete_deck",
    "remove_learner", "archive_classroom", "edit_assignment", "copy_assignment", "delete_assignment", "delete_pool", "exclude_question",
    "mock_exam", "class_mock_exam", "attempt_submit", "password_change", "undo_email_change", "unsubscribe", "verify_email",
    "delete_account",
}


def png_upload():
    return SimpleUploadedFile("square.png", image_bytes(), content_type="image/png")


def app_url_names():
    """Every named URL of our own apps (Django's admin and auth views are theirs to test)."""
    names = set()

    def walk(patterns, ours):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                # A module's include, or a group of patterns within one (a list: its module's).
                module = getattr(pattern.urlconf_module, "__name__", None)
                walk(pattern.url_patterns, module.startswith("quiz.") if module is not None else ours)
            elif isinstance(pattern, URLPattern) and ours and pattern.name:
                names.add(pattern.name)

    walk(get_resolver().url_patterns, False)
    return names


def test_every_url_has_an_entry():
    names = app_url_names()
    # Grouped by prefix, nested as deep as the teaching pages: all found.
    assert {"home", "attempt_question", "edit_card", "item_analysis", "pool_entry"} <= names and len(names) >= 90
    missing = names - set(URLS)
    assert not missing, f"add these URLs to the permission matrix: {sorted(missing)}"


@pytest.fixture
def world(db):
    owner = make_instructor("owner")
    other_instructor = make_instructor("other_instructor")
    learner, outsider = make_user("learner"), make_user("outsider")
    classroom = make_classroom(owner, learners=[learner])
    make_classroom(other_instructor, name="Elsewhere", learners=[outsider])
    question_set = make_question_set(questions=2)
    topic = Topic.objects.create(name="Networking")
    topic.questions.add(*question_set.questions.all())
    pool = make_pool(owner, question_set.questions.all())
    assignment = make_assignment(classroom, pool, opens_at=classroom.created_at.replace(year=2020),
                                 due_at=classroom.created_at.replace(year=2099))
    deck = make_deck(cards=2)
    finished = start_attempt(learner, make_question_set(questions=1))
    finished.finish()
    review_question = make_question_set(questions=1).questions.get()
    scheduling.rate(user=learner, kind=MemoryState.Kind.QUESTION, item=review_question, rating=1, source="review")
    return {
        "owner": owner, "other_instructor": other_instructor, "learner": learner, "outsider": outsider,
        "classroom": classroom, "question_set": question_set, "topic": topic, "pool": pool, "assignment": assignment,
        # Named once: a fuzzed "remove" may take it out of the pool, and then its URL must answer 404.
        "pool_entry": pool.entries.order_by("pk").first(),
        "assigned_question": question_set.questions.order_by("pk").first(),
        "deck": deck, "attempt": start_attempt(learner, question_set), "finished": finished,
        "review": ReviewLog.objects.get(user=learner),
        "override": AssignmentOverride.objects.create(assignment=assignment, learner=learner, max_attempts=3),
        # The learner's own content, and an import they have not applied yet.
        "private_set": (private_set := make_question_set("Learner's set", owner=learner)),
        "private_deck": (private_deck := make_deck("Learner's deck", owner=learner)),
        "own_question": private_set.questions.order_by("pk").first(),
        "own_card": private_deck.cards.order_by("pk").first(),
        "image": make_image(private_set),
        "pending_import": stage_import(owner=learner, files=[("notes", b"::q:: Which? {=a ~b}\n")]),
        "assigned_attempt": Attempt.objects.create_with_slots(
            user=learner, questions=question_set.questions.all(), feedback="immediate",
            rng=__import__("random"), assignment=assignment,
        ),
    }


def client_for(world, actor):
    client = Client()
    if actor != "anonymous":
        client.force_login(world[actor])
    return client


@pytest.mark.parametrize("actor", ACTORS)
@pytest.mark.parametrize("name", sorted(URLS))
def test_permission_matrix(world, name, actor):
    kind, method, args, data = URLS[name]
    url = reverse(name, args=args(world))
    client = client_for(world, actor)

    response = getattr(client, method)(url, data(world) if data else {})

    expected = KINDS[kind][actor]
    if expected == LOGIN:
        assert response.status_code == 302 and response.url.startswith(reverse("login")), response.status_code
    elif expected == "admin login":
        assert response.status_code == 302 and response.url.startswith(reverse("admin:login")), response.status_code
    elif isinstance(expected, set):
        assert response.status_code in expected, response.status_code
        if response.status_code == 302:
            assert not response.url.startswith(reverse("login"))
    else:
        assert response.status_code == expected


@pytest.mark.parametrize("name", sorted(n for n, spec in URLS.items() if spec[1] == "post"))
def test_actions_refuse_get(world, name):
    kind, _, args, _ = URLS[name]
    client = client_for(world, "owner" if kind.startswith("instructor") else "learner")

    assert client.get(reverse(name, args=args(world))).status_code == 405


@pytest.mark.parametrize(
    "name", sorted(n for n, spec in URLS.items() if spec[1] == "get" and n not in PAGES_WITH_A_FORM)
)
def test_pages_refuse_post(world, name):
    kind, _, args, _ = URLS[name]
    client = client_for(world, "owner" if kind.startswith("instructor") else "learner")

    assert client.post(reverse(name, args=args(world))).status_code == 405


# --- No input produces a 500 ------------------------------------------------------------------

POST_URLS = sorted(n for n, spec in URLS.items() if spec[1] == "post" or n in PAGES_WITH_A_FORM)


@pytest.mark.parametrize("charset", ["utf-16", "utf-32", "no-such-charset"])
@pytest.mark.parametrize("name", POST_URLS)
def test_a_body_in_another_charset_is_a_400_never_a_500(world, name, charset):
    spec = URLS[name]
    client = Client(enforce_csrf_checks=True, raise_request_exception=False)
    client.force_login(world["owner" if spec[0].startswith("instructor") else "learner"])
    url = reverse(name, args=spec[2](world))
    before = Attempt.objects.count(), ReviewLog.objects.count()

    # generic() sends the bytes as they are (post() would re-encode them in the charset).
    body = "a=b".encode("utf-16")
    response = client.generic("POST", url, body, content_type=f"application/x-www-form-urlencoded; charset={charset}")

    assert response.status_code == 400
    assert (Attempt.objects.count(), ReviewLog.objects.count()) == before


@pytest.mark.parametrize("name", ["pool_add", "pool_entry"])
@pytest.mark.parametrize("target", ["foo", "//evil.example/", "https://evil.example/x", "javascript:alert(1)"])
def test_a_next_that_is_not_a_path_on_this_site_goes_back_to_the_page(world, name, target):
    kind, _, args, data = URLS[name]
    client = client_for(world, "owner")

    response = client.post(reverse(name, args=args(world)), {**data(world), "next": target})

    assert response.status_code == 302 and response["Location"] == world["pool"].get_absolute_url()
