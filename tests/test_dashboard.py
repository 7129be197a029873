"""The dashboard: numbers checked against a history worked out by hand, on a fixed clock."""

import re
from datetime import UTC, date, datetime, timedelta
from unittest import mock

import pytest
from django.urls import reverse

from quiz.lib.numbers import percent_of
from quiz.models import Attempt, MemoryState, ReviewLog
from quiz.progress.activity import daily_activity, streak
from quiz.progress.charts import forecast_chart, heatmap
from quiz.progress.mastery import memory_summary
from quiz.study import scheduling, workload
from tests.factories import make_deck, make_question_set, make_topic, make_user, start_attempt
from tests.helpers import AUTH, answer_all, answer_at, count_queries, rate_item

# 22:00 on Tuesday 14 January in New York (UTC-5): already the 15th in UTC.
NOW = datetime(2025, 1, 15, 3, 0, tzinfo=UTC)
Kind = MemoryState.Kind


@pytest.fixture
def clock():
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        yield NOW


@pytest.fixture
def new_yorker(db):
    return make_user("nina", time_zone="America/New_York")


def dashboard(client, user):
    client.force_login(user)
    response = client.get(reverse("home"))
    assert response.status_code == 200
    return response


def test_the_streak_counts_days_in_the_learners_time_zone(new_yorker):
    deck = make_deck(cards=3)
    cards = list(deck.cards.all())
    rate_item(new_yorker, cards[0], 3, datetime(2025, 1, 15, 1, 0, tzinfo=UTC))  # 14 Jan, 20:00 local
    rate_item(new_yorker, cards[1], 3, datetime(2025, 1, 14, 4, 0, tzinfo=UTC))  # 13 Jan, 23:00 local
    rate_item(new_yorker, cards[2], 3, datetime(2025, 1, 12, 23, 30, tzinfo=UTC))  # 12 Jan, 18:30 local

    activity = daily_activity(user=new_yorker, now=NOW)
    today = NOW.astimezone(new_yorker.zone).date()

    # In UTC the days would be the 15th, 14th and 12th: a streak of 2. Locally it is 3.
    assert sorted(activity) == [datetime(2025, 1, d).date() for d in (12, 13, 14)]
    assert streak(activity, today) == 3


def test_a_streak_survives_until_the_end_of_today_and_then_breaks(new_yorker):
    card = make_deck(cards=1).cards.get()
    rate_item(new_yorker, card, 3, datetime(2025, 1, 14, 4, 0, tzinfo=UTC))  # 13 Jan local: yesterday
    activity = daily_activity(user=new_yorker, now=NOW)

    assert streak(activity, datetime(2025, 1, 14).date()) == 1
    assert streak(activity, datetime(2025, 1, 15).date()) == 0


def test_accuracy_and_recall_by_set_deck_and_topic(learner):
    question_set = make_question_set("Networking", questions=2)
    q1, q2 = question_set.questions.all()
    card = make_deck("Memory", cards=1).cards.get()
    nvlink = make_topic("NVLink")
    q1.topics.add(nvlink)
    card.topics.add(nvlink)
    day = timedelta(days=1)
    rate_item(learner, q1, 3, NOW - 10 * day)
    rate_item(learner, q1, 1, NOW - 5 * day)
    rate_item(learner, q2, 3, NOW - 5 * day)
    rate_item(learner, q2, 3, NOW - 4 * day)
    rate_item(learner, card, 3, NOW - 2 * day)

    summary = memory_summary(user=learner, now=NOW)

    [networking] = summary.sets
    assert (networking.answers, networking.correct) == (4, 3)
    assert networking.accuracy == 0.75
    # Recall a week ahead, over the questions past their learning steps; the others are "learning".
    memories = MemoryState.objects.filter(kind=Kind.QUESTION)
    learnt = [m for m in memories if m.phase == MemoryState.Phase.REVIEW]
    expected = [scheduling.retrievability(m, NOW + timedelta(days=7)) for m in learnt]
    assert (networking.items, networking.learning) == (2, 2 - len(learnt))
    assert networking.recall == (pytest.approx(sum(expected) / len(learnt)) if learnt else None)
    [topic] = summary.topics
    assert (topic.name, topic.answers, topic.correct, topic.items) == ("NVLink", 3, 2, 2)


def test_answers_older_than_thirty_days_leave_accuracy_but_not_recall(learner):
    question = make_question_set(questions=1).questions.get()
    rate_item(learner, question, 1, NOW - timedelta(days=31))

    [mastery] = memory_summary(user=learner, now=NOW).sets

    assert mastery.answers == 0 and mastery.accuracy is None
    assert mastery.items == 1 and mastery.learning == 1 and mastery.recall is None  # an Again: still learning


def test_weakest_comes_first(learner):
    strong = make_deck("Strong", cards=1).cards.get()
    weak = make_deck("Weak", cards=1).cards.get()
    rate_item(learner, strong, 4, NOW - timedelta(days=1))
    rate_item(learner, weak, 1, NOW - timedelta(days=1))

    assert [m.name for m in memory_summary(user=learner, now=NOW).decks] == ["Weak", "Strong"]


def test_the_forecast_counts_due_items_per_local_day(new_yorker, clock):
    deck = make_deck(cards=4)
    cards = list(deck.cards.all())
    for card, due in zip(cards, [NOW - timedelta(hours=1), NOW + timedelta(hours=1), NOW + timedelta(days=3), NOW + timedelta(days=12)]):
        MemoryState.objects.create(user=new_yorker, kind=Kind.CARD, card=card, due=due, phase=2, stability=5, last_review=NOW - timedelta(days=5))

    summary = memory_summary(user=new_yorker, now=NOW)
    chart = forecast_chart(summary, NOW.astimezone(new_yorker.zone).date())

    assert summary.due_now == 1
    # NOW + 1h is 23:00 on the 14th in New York: still today, next to the overdue one.
    assert [row["count"] for row in chart["rows"][:4]] == [2, 0, 0, 1]
    assert (chart["week_total"], chart["month_total"]) == (3, 4)


def test_the_page_shows_the_hand_computed_numbers(client, new_yorker, clock):
    deck = make_deck("Memory", cards=3)
    cards = list(deck.cards.all())
    rate_item(new_yorker, cards[0], 3, datetime(2025, 1, 15, 1, 0, tzinfo=UTC))
    rate_item(new_yorker, cards[1], 1, datetime(2025, 1, 15, 2, 0, tzinfo=UTC))
    rate_item(new_yorker, cards[2], 3, datetime(2025, 1, 14, 4, 0, tzinfo=UTC))

    html = dashboard(client, new_yorker).content.decode()

    assert '<span class="stat-number" data-testid="streak">2</span>' in html
    counts = heatmap_counts(html)
    assert counts[date(2025, 1, 14)] == 2  # two reviews on the 14th, local time
    assert counts[date(2025, 1, 13)] == 1
    assert sum(counts.values()) == 3
    assert "3 reviews on 2 days" in html
    assert "<td>2025-01-14</td><td>2</td><td>1</td><td>50%</td>" in html  # accuracy table


def test_the_heatmap_is_53_weeks_of_days_ending_today(new_yorker):
    grid = heatmap({}, new_yorker, NOW, NOW.astimezone(new_yorker.zone).date())
    days = len(grid["values"].split(","))

    assert grid["first"].weekday() == 0
    assert grid["first"] + timedelta(days=days - 1) == date(2025, 1, 14)
    assert 52 * 7 < days <= 53 * 7
    assert [shade["level"] for shade in grid["levels"]] == [0]
    assert grid["levels"][0]["path"].count("z") == days  # one empty square per day, all in one path


def heatmap_counts(html):
    """{date: count} from the heatmap's data attributes, as its tooltips read them."""
    svg = re.search(r'<svg class="heatmap"[^>]*data-first="([\d-]+)" data-values="([\d,]+)"', html)
    first = date.fromisoformat(svg.group(1))
    return {first + timedelta(days=n): int(value) for n, value in enumerate(svg.group(2).split(","))}


def test_a_learner_never_sees_another_learners_numbers(client, learner, other_learner, clock):
    question_set = make_question_set("Bobs set", questions=2)
    deck = make_deck("Bobs deck", cards=2)
    for question in question_set.questions.all():
        rate_item(other_learner, question, 1, NOW - timedelta(days=1))
        rate_item(other_learner, question, 1, NOW - timedelta(hours=1))
    rate_item(other_learner, deck.cards.first(), 3, NOW - timedelta(days=1))

    html = dashboard(client, learner).content.decode()

    assert '<span class="stat-number" data-testid="streak">0</span>' in html
    assert '<span class="stat-number" data-testid="due-total">0</span>' in html
    # Nothing of theirs to chart: one sentence says what will appear, with no empty charts or lists.
    assert 'data-testid="no-progress"' in html
    assert 'data-testid="heatmap"' not in html and "Bobs set</span>" not in html
    assert "most-missed" not in html
    assert memory_summary(user=learner, now=NOW).sets == []


def test_most_missed_questions_and_believed_myths_link_to_retake_and_drill(client, learner, clock):
    question_set = make_question_set(questions=2)
    q1, q2 = question_set.questions.all()
    deck = make_deck(cards=1)
    card = deck.cards.get()
    rate_item(learner, q1, 1, NOW - timedelta(days=3))
    rate_item(learner, q1, 1, NOW - timedelta(days=2))
    rate_item(learner, q2, 3, NOW - timedelta(days=3))
    rate_item(learner, q2, 1, NOW - timedelta(days=2))
    rate_item(learner, q2, 3, NOW - timedelta(days=1))
    scheduling.rate(user=learner, kind=Kind.MYTH, item=card, rating=1, source=ReviewLog.Source.DRILL, now=NOW)

    summary = memory_summary(user=learner, now=NOW)
    html = dashboard(client, learner).content.decode()

    assert [(p.key, p.answers, p.wrong) for p in summary.missed] == [(q1.pk, 2, 2), (q2.pk, 3, 1)]
    assert [(p.key, p.believed_now) for p in summary.myths] == [(card.pk, True)]
    assert reverse("retake_mistakes") in html
    assert reverse("drill", args=[deck.pk]) in html


def test_a_myth_believed_while_still_learning_it_is_listed_with_each_time_counted(client, learner, clock):
    deck = make_deck(cards=1)
    card = deck.cards.get()
    # Again in the learning phase is no FSRS lapse, yet each one is a time the myth was believed.
    for minutes, rating in ((40, 1), (30, 1), (20, 1), (10, 3)):
        scheduling.rate(
            user=learner, kind=Kind.MYTH, item=card, rating=rating, source=ReviewLog.Source.DRILL,
            now=NOW - timedelta(minutes=minutes),
        )

    summary = memory_summary(user=learner, now=NOW)
    html = dashboard(client, learner).content.decode()

    assert [(p.key, p.wrong, p.believed_now) for p in summary.myths] == [(card.pk, 3, False)]
    assert "believed 3 times" in html


def test_study_now_goes_to_due_reviews_then_the_weakest_deck(client, learner, clock):
    deck = make_deck("Only deck", cards=2)
    html = dashboard(client, learner).content.decode()
    assert f'href="{reverse("study_deck", args=[deck.pk])}" data-testid="study-now"' in html

    rate_item(learner, deck.cards.first(), 1, NOW - timedelta(days=1))
    html = dashboard(client, learner).content.decode()
    assert f'href="{reverse("review_due")}" data-testid="study-now"' in html


def test_exam_day_recall_and_reviews_per_day(client, learner, clock):
    card = make_deck("Memory", cards=1).cards.get()
    rate_item(learner, card, 3, NOW - timedelta(days=20))
    MemoryState.objects.filter(user=learner).update(stability=2.0, phase=2, due=NOW + timedelta(days=1))
    client.force_login(learner)

    response = client.post(reverse("exam_settings"), {"exam_date": "2025-01-25", "target_retention": "0.9"})
    html = client.get(reverse("home")).content.decode()

    assert response.status_code == 302
    learner.refresh_from_db()
    assert learner.exam_date == datetime(2025, 1, 25).date()
    # One item, predicted under 90% on the 25th; the reviews a day come from the simulator,
    # loaded after the page (a link without JavaScript), never from a rule of thumb.
    assert "Without more study, 1 of the items you have studied would be below 90% recall by then." in html
    assert f'hx-get="{reverse("exam_plan")}" hx-trigger="load"' in html
    assert "reviews-per-day" not in html
    lazy = client.get(reverse("exam_plan"), headers={"HX-Request": "true"}).content.decode()
    plan = workload.exam_plan(learner, date(2025, 1, 15))
    assert lazy.lstrip().startswith('<p data-testid="exam-plan">')  # the summary alone, no page around it
    reviews = max(1, round(plan.reviews_per_day))
    assert f"<strong>{reviews} review{'s' if reviews != 1 else ''} a day</strong>" in lazy
    memory = MemoryState.objects.get(user=learner)
    exam_recall = scheduling.retrievability(memory, datetime(2025, 1, 25, tzinfo=UTC))
    assert f"<td>Memory</td><td>{percent_of(exam_recall)}%</td>" in html


def test_a_bad_exam_form_saves_nothing_and_says_why(client, learner):
    client.force_login(learner)

    response = client.post(reverse("exam_settings"), {"exam_date": "soon", "target_retention": "2"}, follow=True)

    learner.refresh_from_db()
    assert learner.exam_date is None and learner.target_retention == 0.9
    assert "Not saved." in response.content.decode()


@pytest.mark.parametrize("method", ["get", "put"])
def test_exam_settings_take_only_posts(client, learner, method):
    client.force_login(learner)
    assert getattr(client, method)(reverse("exam_settings")).status_code == 405


def test_anonymous_visitors_cannot_post_dashboard_actions(client, db):
    topic = make_topic("Anything")
    for url in (reverse("exam_settings"), reverse("topic_quiz", args=[topic.pk])):
        assert client.post(url)["Location"].startswith(reverse("login"))


def test_a_weak_topic_starts_a_quiz_of_its_questions(client, learner):
    question_set = make_question_set(questions=3)
    topic = make_topic("Parallelism")
    chosen = list(question_set.questions.all())[:2]
    topic.questions.add(*chosen)
    client.force_login(learner)

    response = client.post(reverse("topic_quiz", args=[topic.pk]))

    attempt = Attempt.objects.get(user=learner)
    assert response["Location"] == attempt.get_absolute_url()
    assert attempt.title == "Topic: Parallelism"
    assert [slot.question for slot in attempt.slots.order_by("position")] == chosen


def test_a_topic_with_cards_only_opens_a_deck_session(client, learner):
    deck = make_deck(cards=1)
    topic = make_topic("Memory")
    topic.cards.add(deck.cards.get())
    client.force_login(learner)

    assert client.post(reverse("topic_quiz", args=[topic.pk]))["Location"] == reverse("study_deck", args=[deck.pk])


def test_answers_still_hidden_count_as_study_but_tell_nothing_else(learner):
    question_set = make_question_set(questions=2)
    attempt = start_attempt(learner, question_set)
    Attempt.objects.filter(pk=attempt.pk).update(reveal_at=NOW + timedelta(days=7))
    attempt.refresh_from_db()
    for slot in attempt.slots.all():
        answer_at(attempt, slot, right=False, at=NOW - timedelta(hours=2))

    summary = memory_summary(user=learner, now=NOW)

    (day,) = daily_activity(user=learner, now=NOW).values()
    assert (day.held, day.reviews, day.correct, day.activity) == (2, 0, 0, 2)
    assert (summary.sets, summary.missed, summary.mistakes) == ([], [], 0)


# --- A fixed number of queries, whatever the history ----------------------------------------------

HOME_QUERIES = 15  # a learner's home without assignments, pinned query by query below


def _add_history(user, answers):
    """`answers` quiz-answer reviews spread over the last year, on a handful of items."""
    question_set = make_question_set(questions=5)
    deck = make_deck(cards=5)
    topic = make_topic(f"Topic {user.pk}")
    for question in question_set.questions.all():
        question.topics.add(topic)
        rate_item(user, question, 3, NOW - timedelta(days=2))
    for card in deck.cards.all():
        rate_item(user, card, 1, NOW - timedelta(days=2))
    memories = list(MemoryState.objects.filter(user=user))
    ReviewLog.objects.bulk_create(
        ReviewLog(
            user=user, memory=memories[n % len(memories)], source=ReviewLog.Source.STUDY, rating=1 + n % 4,
            reviewed_at=NOW - timedelta(minutes=53 * n), due_after=NOW,
        )
        for n in range(answers)
    )


def test_the_dashboard_runs_the_same_queries_with_10_and_10000_answers(
    client, learner, other_learner, clock, django_assert_num_queries
):
    counts = []
    for user, answers in ((learner, 10), (other_learner, 10_000)):
        client.force_login(user)
        _add_history(user, answers)
        client.get(reverse("home"))  # the first visit of the day stores the days that ended
        counts.append(count_queries(client, reverse("home"), ok=(200,)))

    assert counts[0] == counts[1]
    # Whether a timed attempt is to be closed or quiz answers whose feedback became visible are
    # to be scheduled (one query; none here); the questions an assignment holds back from the
    # learner now (read once as a list: a subquery in each query below took longer to build and
    # plan than they take to run); question sets with best score and open attempt; decks with
    # their counts; from the memory table: mastery by set, by deck and by topic, the mistakes
    # count, the most-missed questions, the believed myths, the due forecast; the days already
    # counted, today's reviews; answers still held back, by day; the learner's assignments
    # (their overrides are one more query when there are any)
    with django_assert_num_queries(AUTH + HOME_QUERIES):
        client.get(reverse("home"))


def test_days_follow_daylight_saving_time(new_yorker):
    card = make_deck(cards=1).cards.get()
    rate_item(new_yorker, card, 3, datetime(2024, 7, 1, 3, 30, tzinfo=UTC))  # 23:30 EDT (UTC-4) on 30 June
    rate_item(new_yorker, card, 3, datetime(2024, 12, 1, 4, 30, tzinfo=UTC))  # 23:30 EST (UTC-5) on 30 November

    assert sorted(daily_activity(user=new_yorker, now=NOW)) == [
        datetime(2024, 6, 30).date(), datetime(2024, 11, 30).date()
    ]


# --- Figures that mean something to a learner (issue 10) -------------------------------------------

def mastery_figures(html, slug):
    """The bar width and the figures line of the first row of one mastery group."""
    group = html.split(f'data-testid="mastery-{slug}"', 1)[1].split("</ul>", 1)[0]
    width = re.search(r'class="bar-fill" style="width: ([^"]+)"', group).group(1)
    figures = re.sub(r"\s+", " ", re.search(r'data-testid="mastery-figures">(.*?)</span></span>', group, re.S).group(1))
    return width, figures


def test_seven_wrong_answers_out_of_seven_never_show_full_recall(client, learner, clock):
    question_set = make_question_set("Networking", questions=7)
    answer_all(start_attempt(learner, question_set), right=0, now=NOW - timedelta(hours=1))

    html = dashboard(client, learner).content.decode()

    width, figures = mastery_figures(html, "sets")
    assert width == "0%"  # an empty bar, not a full one
    assert "100%" not in figures
    assert figures.startswith("learning · accuracy 0%")
    assert "7 questions, 7 learning" in figures
    assert "Recall in 7 days</strong>: the chance you'd remember an item a week from now" in re.sub(r"\s+", " ", html)


def test_learnt_items_show_their_recall_a_week_ahead_and_a_bar_that_matches(client, learner, clock):
    card = make_deck("Memory", cards=1).cards.get()
    rate_item(learner, card, 3, NOW - timedelta(days=20))
    MemoryState.objects.filter(user=learner).update(stability=10.0, phase=MemoryState.Phase.REVIEW)
    memory = MemoryState.objects.get(user=learner)
    expected = percent_of(scheduling.retrievability(memory, NOW + timedelta(days=7)))

    width, figures = mastery_figures(dashboard(client, learner).content.decode(), "decks")

    assert width == f"{expected}%" and figures.startswith(f"recall in 7 days {expected}%")
    assert expected < percent_of(scheduling.retrievability(memory, NOW))  # lower than "now"


def test_with_an_exam_ahead_recall_is_predicted_for_the_exam_day(client, learner, clock):
    card = make_deck("Memory", cards=1).cards.get()
    rate_item(learner, card, 3, NOW - timedelta(days=20))
    MemoryState.objects.filter(user=learner).update(stability=10.0, phase=MemoryState.Phase.REVIEW)
    learner.exam_date = date(2025, 2, 14)
    learner.save()
    memory = MemoryState.objects.get(user=learner)
    expected = percent_of(scheduling.retrievability(memory, datetime(2025, 2, 14, tzinfo=UTC)))

    html = dashboard(client, learner).content.decode()

    assert mastery_figures(html, "decks")[1].startswith(f"recall on exam day {expected}%")
    assert "on your exam day (Fri 14 Feb 2025)" in html


def test_a_deck_counts_its_cards_and_names_its_drill_statements_apart(client, learner, clock):
    deck = make_deck("Memory", cards=3)
    for card in deck.cards.all():
        rate_item(learner, card, 4, NOW - timedelta(days=3))  # Easy: past the learning steps
        for kind in (Kind.MYTH, Kind.FACT):
            rate_item(learner, card, 3, NOW - timedelta(days=2), kind=kind)
    client.post(reverse("exam_settings"), {"exam_date": "2025-01-25", "target_retention": "0.9"})  # logs nobody in
    learner.exam_date = date(2025, 1, 25)
    learner.save()

    [mastery] = memory_summary(user=learner, now=NOW).decks
    html = dashboard(client, learner).content.decode()

    assert (mastery.items, mastery.statements, mastery.learning) == (3, 6, 0)
    assert "3 cards · 6 myth-or-fact statements)" in mastery_figures(html, "decks")[1]
    assert "6 item" not in html
    exam_row = re.search(r"<tr><td>Memory</td>.*?</tr>", html, re.S).group(0)
    assert "of 3</td></tr>" in exam_row and "0 of 3 cards" in exam_row


def test_accuracy_rounds_half_up_on_the_dashboard(client, learner, clock):
    cards = list(make_deck("Memory", cards=8).cards.all())
    for number, card in enumerate(cards):
        rate_item(learner, card, 3 if number < 5 else 1, NOW - timedelta(days=1))  # 5 right of 8

    html = dashboard(client, learner).content.decode()

    assert "accuracy 63%" in mastery_figures(html, "decks")[1]  # 62.5 rounds up, not to even
    assert "<td>5</td><td>63%</td>" in html  # the accuracy table's share right


# --- Charts you can read -------------------------------------------------------------------------

def test_the_charts_have_axes_a_scale_a_legend_and_a_title_per_bar(client, learner, clock):
    card = make_deck("Memory", cards=1).cards.get()
    rate_item(learner, card, 3, NOW - timedelta(days=100))
    rate_item(learner, card, 1, NOW - timedelta(hours=2))

    html = dashboard(client, learner).content.decode()
    accuracy = re.search(r'<svg class="chart"[^>]*data-testid="accuracy-chart".*?</svg>', html, re.S).group(0)
    forecast = re.search(r'<svg class="chart"[^>]*data-testid="forecast-chart".*?</svg>', html, re.S).group(0)
    heat = re.search(r'<svg class="heatmap".*?</svg>', html, re.S).group(0)

    # The y-axis: 0 and 1 answer; the dates under the bars, today's last; the legend.
    assert re.findall(r'class="y-label"[^>]*>(\d+)<', accuracy) == ["0", "1"]
    assert re.findall(r'class="x-label"[^>]*>([^<]+)<', accuracy)[-1] == "15 Jan"
    assert '<text x="' in accuracy and ">right</text>" in accuracy and ">wrong</text>" in accuracy
    assert accuracy.count("<title>") == 30  # one per day (the chart's own has an id)
    assert "<title>Wed 15 Jan: 1 answer, 0 right, 1 wrong</title>" in accuracy
    assert ">next 7 days</text>" in forecast and ">later</text>" in forecast
    assert re.findall(r'class="x-label"[^>]*>([^<]+)<', forecast)[0] == "15 Jan"
    # The heatmap: month names above, weekday names beside, a scale, a title per studied day.
    months = re.findall(r'class="x-label"[^>]*>([^<]+)<', heat)
    assert "Oct" in months and "Jan ’25" in months
    assert ">Mon</text>" in heat and ">2 a day</text>" not in heat and ">1 a day</text>" in heat
    assert "<title>Week of 7 Oct 2024: 1 review or answer on 1 day</title>" in heat
    assert heat.count("<title>") == 53  # one per week column (the chart's own has an id)


def test_empty_charts_say_what_will_appear_and_how(client, learner, clock):
    # Studied once, two months ago, and not due for a long while: nothing to draw in the last
    # 30 days nor in the next 30, while the calendar has its one day.
    card = make_deck("Memory", cards=1).cards.get()
    rate_item(learner, card, 3, NOW - timedelta(days=60))
    MemoryState.objects.filter(user=learner).update(due=NOW + timedelta(days=90))

    html = dashboard(client, learner).content.decode()

    assert "<svg class=\"chart\"" not in html and "<svg class=\"heatmap\"" in html
    for testid in ("accuracy-empty", "forecast-empty"):
        assert f'data-testid="{testid}"' in html
    assert "Take a quiz or study a deck" in html


def test_a_learner_with_nothing_studied_sees_one_sentence_instead_of_empty_charts(client, learner, clock):
    html = dashboard(client, learner).content.decode()

    assert 'data-testid="no-progress"' in html
    assert "<svg class=\"chart\"" not in html and "<svg class=\"heatmap\"" not in html


def test_the_dashboard_stays_small_with_a_year_of_daily_study(client, learner, clock):
    card = make_deck("Memory", cards=1).cards.get()
    for day in range(365):
        rate_item(learner, card, 3, NOW - timedelta(days=day, hours=1))

    html = dashboard(client, learner).content.decode()

    heat = re.search(r'<svg class="heatmap".*?</svg>', html, re.S).group(0)
    assert heat.count("<path") == 2  # a year of squares in the shades' paths, not one element each
    assert "<title>Week of 13 Jan 2025: 3 reviews or answers on 3 days</title>" in heat
    # The whole page: 19 kB before the charts had axes, labels and a tooltip per bar and week, and
    # the home its "What to do now" and library; a tooltip per day would take it to 60 kB.
    assert len(html) < 40_000


def test_due_means_one_thing_on_the_dashboard_in_review_and_on_the_deck_page(client, learner):
    """Due: the next review at or before now, learning steps included, split as learning and review
    wherever a count shows (the testers saw "7 due now", "7 learning · 0 due" and "All caught up")."""
    from django.utils import timezone

    deck = make_deck("Memory", cards=4)
    learning_due, review_due, learning_later, _ = deck.cards.order_by("position")
    question = make_question_set("Routing", questions=1).questions.get()
    now = timezone.now()
    rate_item(learner, learning_due, 1, now - timedelta(hours=1))  # a step due since
    rate_item(learner, question, 1, now - timedelta(hours=1))  # a question answered wrong: due since
    rate_item(learner, review_due, 4, now - timedelta(days=60))  # a review due since
    rate_item(learner, learning_later, 1, now)  # a step due in a minute: not due yet
    client.force_login(learner)

    home = client.get(reverse("home")).content.decode()
    review = client.get(reverse("review_due")).content.decode()
    deck_page = client.get(reverse("deck", args=[deck.pk])).content.decode()

    assert '<span class="stat-number" data-testid="due-total">3</span> due now' in home
    assert "(2 learning · 1 review)" in home
    counts = {name: int(n) for name, n in re.findall(r'data-testid="left-(\w+)">(\d+)<', review)}
    assert counts == {"learning": 2, "review": 1}
    assert re.search(r'data-testid="learning-count">1<', deck_page) and re.search(r'data-testid="review-count">1<', deck_page)
    assert "2 due now" in deck_page  # the deck's cards only: the question is due in Review
