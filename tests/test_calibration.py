"""Calibration: predicted recall against the share remembered, in bins, from one grouped query;
for a learner on Settings and for an instructor's class (only its learners' reviews of its
assigned questions) on a page of its own, computed at most once an hour per class."""

from datetime import datetime, timezone

import pytest
from django.urls import reverse

from quiz.models import MemoryState, ReviewLog
from quiz.progress.calibration import calibration, calibration_chart, class_calibration, class_reviews, learner_reviews
from tests.class_factories import make_assignment, make_classroom, make_instructor, make_pool
from tests.factories import make_deck, make_question_set, make_user
from tests.helpers import AUTH, logged_in

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=timezone.utc)
AGAIN, GOOD = ReviewLog.Rating.AGAIN, ReviewLog.Rating.GOOD


def log_reviews(user, item, predictions_and_ratings):
    """Review-log rows of one item with the given predicted recall (None: a first sight) and rating."""
    if hasattr(item, "question_set_id"):
        memory = MemoryState.objects.create(user=user, kind=MemoryState.Kind.QUESTION, question=item, due=NOW)
    else:
        memory = MemoryState.objects.create(user=user, kind=MemoryState.Kind.CARD, card=item, due=NOW)
    ReviewLog.objects.bulk_create(
        ReviewLog(user=user, memory=memory, source=ReviewLog.Source.STUDY, rating=rating, reviewed_at=NOW,
                  due_after=NOW, retrievability=predicted)
        for predicted, rating in predictions_and_ratings
    )


def test_each_review_falls_in_the_bin_of_its_prediction_with_the_share_not_rated_again(db, django_assert_num_queries):
    learner = make_user("lena")
    cards = make_deck(cards=2, owner=learner).cards.all()
    log_reviews(learner, cards[0], [(0.95, GOOD), (0.91, AGAIN), (0.93, GOOD), (0.99, GOOD), (None, AGAIN)])
    log_reviews(learner, cards[1], [(0.35, AGAIN), (0.31, GOOD), (1.0, GOOD)])

    with django_assert_num_queries(1):  # one grouped query, whatever the size of the log
        bins = calibration(learner_reviews(learner))

    assert len(bins) == 10
    top, low = bins[9], bins[3]
    assert (top.reviews, top.recalled) == (5, 4)  # 1.0 is in the top bin; the first sight in none
    assert top.predicted == pytest.approx((0.95 + 0.91 + 0.93 + 0.99 + 1.0) / 5)
    assert (low.reviews, low.recalled, low.actual) == (2, 1, 0.5)
    assert sum(b.reviews for b in bins) == 7


def test_the_chart_draws_a_dot_per_filled_bin_and_weighs_the_gap_by_reviews(db):
    learner = make_user("lena")
    card = make_deck(cards=1, owner=learner).cards.get()
    log_reviews(learner, card, [(0.9, GOOD), (0.9, AGAIN), (0.5, GOOD), (0.5, GOOD)])

    chart = calibration_chart(calibration(learner_reviews(learner)))

    assert [b.index for b in chart["bins"]] == [5, 9]
    assert [(point["x"], point["y"]) for point in chart["points"]] == [(100, 0), (180, 100)]
    assert chart["line_path"] == "M100 0L180 100"  # (0.5 predicted, all remembered), (0.9, half)
    assert chart["gap"] == pytest.approx((2 * 0.5 + 2 * 0.4) / 4)


def test_a_learner_sees_their_calibration_on_settings_and_only_their_own(db):
    learner, other = make_user("lena"), make_user("otto")
    log_reviews(learner, make_deck(cards=1, owner=learner).cards.get(), [(0.85, GOOD), (0.82, AGAIN)])
    log_reviews(other, make_deck(cards=1, owner=other).cards.get(), [(0.15, GOOD)] * 5)

    page = logged_in(learner).get(reverse("study_settings")).content.decode()

    assert "Over 2 reviews with a prediction" in page
    assert "80% to 90%" in page and "10% to 20%" not in page


def test_a_class_calibration_counts_only_its_learners_reviews_of_its_assigned_questions(db):
    teacher = make_instructor()
    inside, outsider = make_user("lena"), make_user("otto")
    classroom = make_classroom(teacher, learners=[inside])
    assigned, unassigned = make_question_set(questions=2).questions.all()
    # The question sits in two pools both assigned to the class: its reviews still count once.
    make_assignment(classroom, make_pool(teacher, [assigned]))
    make_assignment(classroom, make_pool(teacher, [assigned], title="Again"))
    log_reviews(inside, assigned, [(0.75, GOOD), (0.72, GOOD), (0.71, AGAIN)])
    log_reviews(inside, unassigned, [(0.25, GOOD)])  # not the instructor's to see
    log_reviews(outsider, assigned, [(0.45, GOOD)])  # not in the class
    log_reviews(inside, make_deck(cards=1, owner=inside).cards.get(), [(0.55, GOOD)])  # own flashcards

    bins = [b for b in calibration(class_reviews(classroom)) if b.reviews]

    assert [(b.index, b.reviews, b.recalled) for b in bins] == [(7, 3, 2)]
    page = logged_in(teacher).get(reverse("class_calibration", args=[classroom.pk])).content.decode()
    assert "Over 3 reviews with a prediction" in page


def test_a_class_calibration_is_computed_once_an_hour_and_the_class_page_reads_no_log(db, django_assert_num_queries):
    teacher, learner = make_instructor(), make_user("lena")
    classroom = make_classroom(teacher, learners=[learner])
    question = make_question_set(questions=1).questions.get()
    make_assignment(classroom, make_pool(teacher, [question]))
    log_reviews(learner, question, [(0.75, GOOD)])
    client = logged_in(teacher)
    client.get(reverse("class_calibration", args=[classroom.pk]))  # computes and caches it
    ReviewLog.objects.filter(user=learner).update(rating=AGAIN)

    with django_assert_num_queries(AUTH + 2):  # the classroom; the cached bins
        page = client.get(reverse("class_calibration", args=[classroom.pk])).content.decode()

    assert "<td>75%</td><td>100%</td>" in page  # remembered, as computed: not yet the change
    later = class_calibration(classroom, NOW.replace(year=2031))[0]
    assert [(b.reviews, b.recalled) for b in later if b.reviews] == [(1, 0)]  # the next hour reads the log again
    class_page = client.get(reverse("classroom", args=[classroom.pk])).content.decode()
    assert reverse("class_calibration", args=[classroom.pk]) in class_page
