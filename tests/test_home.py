"""The home page: question sets with the learner's best score and a way to resume."""

from django.urls import reverse

from tests.factories import make_deck, make_question_set, start_attempt
from tests.helpers import answer_all


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
