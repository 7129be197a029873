"""The home page: what to do now (assigned work first), the library with the learner's best scores and
a way to resume, then progress; and the library page's search."""

import random
import re
from datetime import timedelta

from django.urls import reverse, set_script_prefix
from django.utils import timezone

from quiz.context_processors import header_links
from quiz.models import Assignment, Attempt, Classroom, Question, Visibility
from tests.class_factories import make_assignment, make_classroom, make_pool, take
from tests.factories import make_deck, make_question_set, make_topic, start_attempt
from tests.helpers import HTMX, answer_all, count_queries, rate_item
from tests.test_dashboard import AUTH, HOME_QUERIES


def test_anonymous_visitors_see_the_sets_and_an_invitation(client, question_set):
    html = client.get(reverse("home")).content.decode()

    assert "Networking basics" in html
    assert "3 questions" in html
    assert reverse("signup") in html
    assert reverse("start_attempt", args=[question_set.pk]) not in html


def test_a_learner_sees_their_best_score_and_a_start_button(learner_client, learner, question_set):
    answer_all(start_attempt(learner, question_set), right=1)
    answer_all(start_attempt(learner, question_set), right=2)
    answer_all(start_attempt(learner, question_set), right=0)

    html = learner_client.get(reverse("home")).content.decode()

    assert "Best score: <strong>2/3</strong>" in html
    assert reverse("start_attempt", args=[question_set.pk]) in html


def test_a_learner_with_an_open_attempt_gets_a_resume_link(learner_client, learner, question_set):
    attempt = start_attempt(learner, question_set)

    html = learner_client.get(reverse("home")).content.decode()

    assert f'href="{reverse("attempt", args=[attempt.pk])}"' in html
    assert "Resume" in html


def test_another_learners_scores_are_not_shown(learner_client, other_learner, question_set):
    answer_all(start_attempt(other_learner, question_set))
    start_attempt(other_learner, question_set)

    response = learner_client.get(reverse("home"))
    html = response.content.decode()

    assert response.status_code == 200 and question_set.title in html  # the set is listed...
    assert "Best score" not in html  # ...without the other learner's score
    assert "Resume" not in html


def test_decks_are_listed(client, db):
    make_deck("Memory cards")
    make_question_set("Other")

    assert "Memory cards" in client.get(reverse("home")).content.decode()


def test_the_lists_show_a_page_at_a_time(learner_client, db):
    for n in range(25):
        make_question_set(f"Set {n:02d}", questions=1)

    first = learner_client.get(reverse("home")).content.decode()
    second = learner_client.get(reverse("home") + "?sets=2").content.decode()
    nonsense = learner_client.get(reverse("home") + "?sets=²").content.decode()

    assert first.count('class="card set-card"') == 20 and 'href="?sets=2"' in first
    assert second.count('class="card set-card"') == 5 and "Set 24" in second and 'href="?sets=3"' not in second
    assert nonsense.count('class="card set-card"') == 20  # an unreadable page number is the first page


# --- What to do now, the library and progress, in that order ---------------------------------

def soon(days=0, hours=0):
    return timezone.now() + timedelta(days=days, hours=hours)


def open_assignment(teacher, learner, title, **rules):
    """An assignment open since an hour ago, due in `due_days`, in a class `learner` is in."""
    classroom = Classroom.objects.filter(owner=teacher).first() or make_classroom(teacher, learners=[learner])
    pool = make_pool(teacher, make_question_set(questions=2).questions.all(), title=title)
    return make_assignment(classroom, pool, opens_at=soon(hours=-1), due_at=soon(days=rules.pop("due_days", 3)), **rules)


def next_steps(html):
    """The kinds of the "What to do now" steps, in order."""
    return re.findall(r'<li class="next-step" data-kind="(\w+)">', html)


def study_now(html):
    """The element that is "Study now": the first step's button or link."""
    return re.search(r'<(?:a|button)[^>]*data-testid="study-now"[^>]*>[^<]*<', html).group(0)


def test_the_home_leads_with_what_to_do_then_the_library_then_progress(learner_client, learner, teacher):
    open_assignment(teacher, learner, "Week 1 quiz")
    make_deck("Memory cards")

    html = learner_client.get(reverse("home")).content.decode()

    headings = ["What to do now", "Your library", "Your progress"]
    positions = [html.index(f">{heading}</h2>") for heading in headings]
    assert positions == sorted(positions)
    assert html.index("Week 1 quiz") < html.index("Your library")
    assert html.index('id="sets-heading"') < html.index("Your progress")


def test_study_now_offers_assigned_work_before_due_reviews_and_self_study(learner_client, learner, teacher):
    later = open_assignment(teacher, learner, "Due later", due_days=5)
    sooner = open_assignment(teacher, learner, "Due sooner", due_days=2)
    open_assignment(teacher, learner, "Already done", due_days=1)
    take(Assignment.objects.get(title="Already done"), learner, [0, 0], start=timezone.now())
    deck = make_deck("Memory cards", cards=2)
    rate_item(learner, deck.cards.first(), 1, timezone.now() - timedelta(days=2))  # due again by now
    make_question_set("Untried set", questions=2)

    html = learner_client.get(reverse("home")).content.decode()

    # The two assignments to do (soonest due first), the due review, then self-study.
    assert next_steps(html)[:3] == ["assignment", "assignment", "review"]
    assert "Already done" not in html.split('data-testid="next-steps"')[1].split("</ol>")[0]
    assert html.index("Start assignment: Due sooner") < html.index("Start assignment: Due later")
    assert "Start assignment: Due sooner" in study_now(html)
    assert f'action="{reverse("start_assignment", args=[sooner.pk])}"' in html
    assert f'action="{reverse("start_assignment", args=[later.pk])}"' in html
    assert "quiz" in next_steps(html) and "deck" in next_steps(html)


def test_an_assignment_in_progress_is_resumed_and_a_timed_one_opens_its_page_first(learner_client, learner, teacher):
    timed = open_assignment(teacher, learner, "Timed test", due_days=1, time_limit=timedelta(minutes=10))
    started = open_assignment(teacher, learner, "Half done", due_days=2)
    attempt = Attempt.objects.create_with_slots(
        user=learner, questions=Question.objects.filter(pk__in=started.pool.entries.values("question")), feedback="immediate", rng=random, assignment=started
    )

    html = learner_client.get(reverse("home")).content.decode()

    assert next_steps(html)[:2] == ["assignment", "assignment"]
    timed_link = study_now(html)
    assert f'href="{reverse("learner_assignment", args=[timed.pk])}"' in timed_link and "Open timed assignment" in timed_link
    assert f'href="{reverse("attempt", args=[attempt.pk])}"' in html and "Resume assignment: Half done" in html


def test_a_newcomer_is_offered_the_first_quiz_in_one_click_and_told_what_progress_will_show(learner_client, db):
    first = make_question_set("A first set", questions=2)
    make_question_set("B second set", questions=2)
    make_deck("Memory cards")

    html = learner_client.get(reverse("home")).content.decode()

    assert next_steps(html)[0] == "quiz"
    assert "Start: A first set" in study_now(html)
    form = html.split('data-testid="next-steps"')[1].split("</form>")[0]
    assert f'<form method="post" action="{reverse("start_attempt", args=[first.pk])}"' in form
    # No empty charts or lists: a sentence says what will appear and where to start.
    assert 'data-testid="no-progress"' in html and "after your first quiz" in html
    assert "<svg" not in html
    assert 'data-testid="nothing-to-do"' not in html
    assert "{#" not in html and "{%" not in html  # no template comment or tag shown as text


def test_starting_the_suggested_quiz_takes_one_post(learner_client, learner, question_set):
    response = learner_client.post(reverse("start_attempt", args=[question_set.pk]))  # what the step's form sends

    attempt = Attempt.objects.get(user=learner)
    assert response.status_code == 302 and attempt.question_set == question_set and attempt.feedback == "immediate"


def test_with_nothing_to_study_the_empty_states_say_how_to_get_some(learner_client, db):
    html = learner_client.get(reverse("home")).content.decode()

    assert 'data-testid="nothing-to-do"' in html and reverse("join_class") in html
    assert 'data-testid="no-sets"' in html and 'data-testid="no-decks"' in html
    assert reverse("import_content") in html
    assert "<svg" not in html


def test_a_set_an_assignment_holds_back_is_not_suggested_for_practice(learner_client, learner, teacher):
    classroom = make_classroom(teacher, learners=[learner])
    held = make_question_set("Instructor's set", questions=2, owner=teacher, visibility=Visibility.CLASSES)
    make_assignment(classroom, make_pool(teacher, held.questions.all(), title="Graded later"),
                    opens_at=soon(days=-1), due_at=soon(days=3), feedback_timing=Assignment.FeedbackTiming.AFTER_DUE)

    html = learner_client.get(reverse("home")).content.decode()

    assert "Start assignment: Graded later" in study_now(html)
    assert f'action="{reverse("start_attempt", args=[held.pk])}"' not in html
    assert 'data-testid="practice-held"' in html


def test_a_learner_with_history_sees_their_charts(learner_client, learner, question_set):
    answer_all(start_attempt(learner, question_set), right=2)

    html = learner_client.get(reverse("home")).content.decode()

    assert 'data-testid="accuracy-chart"' in html and 'data-testid="no-progress"' not in html
    assert next_steps(html)[0] in ("review", "quiz", "deck")


def test_the_menu_has_a_library_entry(learner_client, db):
    html = learner_client.get(reverse("home")).content.decode()

    nav = html.split('aria-label="Main"')[1].split("</nav>")[0]
    assert f'<a href="{reverse("browse")}">Library</a>' in nav
    assert f'<a href="{reverse("library")}">My content</a>' in nav


# --- The library page: search by name or topic --------------------------------------------------

def test_the_library_finds_sets_and_decks_by_title_or_topic(learner_client, db):
    by_title = make_question_set("NVLink basics", questions=1)
    by_topic = make_question_set("Interconnects", questions=2)
    make_topic("NVLink fabric").questions.add(*by_topic.questions.all())
    make_question_set("Storage", questions=1)
    deck = make_deck("Cards", cards=1)
    make_topic("nvlink").cards.add(deck.cards.get())

    html = learner_client.get(reverse("browse"), {"q": "nvlink"}).content.decode()

    assert "NVLink basics" in html and "Interconnects" in html and "Cards" in html
    assert "Storage" not in html
    assert html.count('class="card set-card"') == 2  # a set tagged twice is listed once
    assert by_title.title in html
    assert "{#" not in html and "{%" not in html


def test_the_search_never_finds_content_the_learner_may_not_see(learner_client, other_learner, learner):
    make_question_set("Bob's private notes", questions=1, owner=other_learner)
    hidden = make_question_set("Tagged privately", questions=1, owner=other_learner)
    make_topic("Secret topic").questions.add(hidden.questions.get())
    make_deck("Bob's deck", owner=other_learner)
    make_question_set("My private notes", questions=1, owner=learner)

    by_title = learner_client.get(reverse("browse"), {"q": "private notes"}).content.decode()
    by_topic = learner_client.get(reverse("browse"), {"q": "Secret"}).content.decode()
    decks = learner_client.get(reverse("browse"), {"q": "deck"}).content.decode()

    assert "My private notes" in by_title and "Bob&#x27;s private notes" not in by_title and "Bob" not in by_title
    assert "Tagged privately" not in by_topic and 'data-testid="no-sets-found"' in by_topic
    assert "Bob" not in decks and 'data-testid="no-decks-found"' in decks


def test_the_library_pages_keep_the_search(learner_client, db):
    for n in range(25):
        make_question_set(f"Routing {n:02d}", questions=1)
    make_question_set("Storage", questions=1)

    first = learner_client.get(reverse("browse"), {"q": "Routing"}).content.decode()
    second = learner_client.get(reverse("browse"), {"q": "Routing", "sets": "2"}).content.decode()

    assert first.count('class="card set-card"') == 20 and 'href="?q=Routing&amp;sets=2"' in first
    assert second.count('class="card set-card"') == 5 and "Routing 24" in second and "Storage" not in second


def test_an_htmx_search_returns_only_the_results(learner_client, db):
    make_question_set("Routing", questions=1)
    make_question_set("Storage", questions=1)

    response = learner_client.get(reverse("browse"), {"q": "rout"}, **HTMX)
    html = response.content.decode()

    assert html.lstrip().startswith('<div id="library-results"') and "<html" not in html
    assert "Routing" in html and "Storage" not in html
    assert "HX-Request" in response["Vary"] and response["HX-Push-Url"] == reverse("browse") + "?q=rout"


def test_a_search_too_long_is_refused_with_a_message(learner_client, db):
    make_question_set("Routing", questions=1)

    html = learner_client.get(reverse("browse"), {"q": "x" * 101}).content.decode()

    assert 'data-testid="search-error"' in html and "at most 100 characters" in html
    assert "Routing" in html  # nothing filtered


def test_the_home_search_goes_to_the_library(learner_client, db):
    html = learner_client.get(reverse("home")).content.decode()

    assert f'<form method="get" action="{reverse("browse")}" role="search"' in html


# --- Query counts ---------------------------------------------------------------------------------

def test_the_library_runs_two_queries_however_many_sets(learner, learner_client, django_assert_num_queries):
    make_question_set(questions=1)
    few = count_queries(learner_client, reverse("browse") + "?q=Set")
    for n in range(30):
        make_topic(f"Topic {n}").questions.add(make_question_set(questions=2).questions.first())
        make_deck(cards=2)
    many = count_queries(learner_client, reverse("browse") + "?q=Set")

    assert few == many
    with django_assert_num_queries(AUTH + 2):  # one page of sets with progress; one of decks with counts
        learner_client.get(reverse("browse") + "?q=topic")


def test_the_home_runs_the_same_queries_with_many_sets_decks_and_assignments(learner, teacher, learner_client,
                                                                               django_assert_num_queries):
    open_assignment(teacher, learner, "Week 1")
    make_question_set(questions=1)
    learner_client.get(reverse("home"))  # the first visit of the day stores the days that ended
    few = count_queries(learner_client, reverse("home"))
    for n in range(30):
        answer_all(start_attempt(learner, make_question_set(questions=2)), right=1)
        make_deck(cards=2)
        open_assignment(teacher, learner, f"Week {n + 2}")
    learner_client.get(reverse("home"))
    many = count_queries(learner_client, reverse("home"))

    assert few == many
    # The HOME_QUERIES pinned query by query in test_dashboard.py, plus the learner's overrides and
    # attempts on their assignments (prefetched only when there are assignments). "What to do
    # now" adds none: it is worked out from the lists the page already reads.
    with django_assert_num_queries(AUTH + HOME_QUERIES + 2):
        learner_client.get(reverse("home"))


def _header_links(html):
    header = re.search(r'<header class="site-header">(.*?)</header>', html, re.S).group(1)
    return re.findall(r'(?:href|action)="([^"]+)"', header)


def test_the_header_links_to_each_page_for_learners_instructors_and_visitors(client, learner_client, teacher_client):
    learner_links = [reverse(name) for name in (
        "home", "home", "browse", "review_due", "library", "attempt_list", "my_classes", "study_settings", "logout",
    )]
    assert _header_links(learner_client.get(reverse("browse")).content.decode()) == learner_links
    teacher = _header_links(teacher_client.get(reverse("browse")).content.decode())
    assert teacher == [*learner_links[:7], reverse("teach_home"), *learner_links[7:]]
    assert _header_links(client.get(reverse("login")).content.decode()) == [
        reverse("home"), reverse("login"), reverse("signup"),
    ]


def test_the_header_links_follow_the_prefix_the_site_is_served_under():
    # Reversed once per process and prefix: a site mounted under /study/ links within it.
    assert header_links(None)["header_links"]["browse"] == "/browse/"
    set_script_prefix("/study/")
    try:
        assert header_links(None)["header_links"]["browse"] == "/study/browse/"
        assert 'href="/study/accounts/login/"' in header_links(None)["header_nav"]  # rendered once per prefix too
    finally:
        set_script_prefix("/")
    assert header_links(None)["header_links"]["browse"] == "/browse/"
    assert 'href="/accounts/login/"' in header_links(None)["header_nav"]


def test_every_page_loads_the_stylesheet_icon_and_scripts_after_the_htmx_config(client, learner_client):
    # Rendered once per process: the tags, in order, on a visitor's page and a learner's.
    for html in (client.get(reverse("login")).content.decode(), learner_client.get(reverse("browse")).content.decode()):
        head = html.split("</head>", 1)[0]
        order = [head.find(part) for part in (
            'name="htmx-config"', '<link rel="stylesheet" href="/static/css/app.', '<link rel="icon" href="/static/favicon.',
            '<script src="/static/django_htmx/htmx', '<script src="/static/js/app.',
        )]
        assert -1 not in order and order == sorted(order), order


def test_a_page_that_finds_no_view_still_knows_who_is_signed_in(learner_client, learner):
    # The user is read when the view is known; a 404 from the URLs alone reads it when asked.
    response = learner_client.get("/no-such-page/")

    assert response.status_code == 404
    assert learner.username in _header_links_html(response.content.decode())
    assert response["Cache-Control"] == "private, no-store"


def _header_links_html(html):
    return re.search(r'<header class="site-header">(.*?)</header>', html, re.S).group(1)
