"""The learner's history: "My attempts" (filtered), the review of one attempt, flashcard
history and "Download my history" as CSV.

Every page here shows only the signed-in learner's own rows, and none shows whether an
answer was right while its attempt's answers are hidden (`Attempt.answers_visible`).
"""

from datetime import UTC, date, datetime, time, timedelta

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db.models import Exists, OuterRef
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET

from .csv_export import csv_download
from .models import Attempt, AttemptSlot, MemoryState, QuestionSet, ReviewLog
from .views import _get_attempt_for_user


@login_required
def attempt_results(request, attempt_id):
    attempt = _get_attempt_for_user(request, attempt_id)
    if not attempt.is_finished:
        return redirect(attempt)
    now = timezone.now()
    visible = attempt.answers_visible(now)
    slots = attempt.slots.select_related("question")
    if visible:
        slots = slots.annotate(later_right=Exists(_later_right_answers(request.user)))
    context = {"attempt": attempt, "slots": slots, "visible": visible}
    return render(request, "quiz/attempt_results.html", context)


def _later_right_answers(user):
    """Right answers to the slot's question after the slot was answered, anywhere (a later
    attempt, a review session). Answers in attempts that hide them write no ReviewLog, so none
    of these tells what is still hidden."""
    return ReviewLog.objects.filter(
        user=user,
        memory__question=OuterRef("question"),
        reviewed_at__gt=OuterRef("answered_at"),
        rating__gt=ReviewLog.Rating.AGAIN,
    )


# Midnight of a day in the learner's time zone, and of the day after, must be a datetime in
# UTC too: 0001-01-01 in Tokyo or the day after 9999-12-31 is not (OverflowError, a 500).
EARLIEST_DAY, LATEST_DAY = date(1900, 1, 1), date(9998, 12, 31)
OUT_OF_RANGE = f"Pick a date between {EARLIEST_DAY.isoformat()} and {LATEST_DAY.isoformat()}."


def _day_field(label):
    return forms.DateField(
        required=False,
        label=label,
        widget=forms.DateInput(attrs={"type": "date", "min": EARLIEST_DAY.isoformat(), "max": LATEST_DAY.isoformat()}),
        validators=[
            MinValueValidator(EARLIEST_DAY, message=OUT_OF_RANGE),
            MaxValueValidator(LATEST_DAY, message=OUT_OF_RANGE),
        ],
    )


class AttemptFilterForm(forms.Form):
    """The filters of "My attempts", from the query string; dates are the learner's days."""

    question_set = forms.ModelChoiceField(
        QuestionSet.objects.all(), required=False, empty_label="All sets", label="Set"
    )
    start = _day_field("From")
    end = _day_field("To")

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("start") and cleaned.get("end") and cleaned["end"] < cleaned["start"]:
            raise forms.ValidationError("The “To” date is before the “From” date.")
        return cleaned

    def filter(self, attempts, zone):
        data = self.cleaned_data
        if data.get("question_set"):
            attempts = attempts.filter(question_set=data["question_set"])
        if data.get("start"):
            attempts = attempts.filter(started_at__gte=datetime.combine(data["start"], time.min, tzinfo=zone))
        if data.get("end"):
            next_day = datetime.combine(data["end"] + timedelta(days=1), time.min, tzinfo=zone)
            attempts = attempts.filter(started_at__lt=next_day)
        return attempts


@require_GET
@login_required
def attempt_list(request):
    attempts = Attempt.objects.for_user(request.user).select_related("question_set")
    filters = {key: value for key, value in request.GET.items() if key != "page"}
    form = AttemptFilterForm(filters or None)
    status = 200
    if filters:
        if form.is_valid():
            attempts = form.filter(attempts, request.user.zone)
        else:
            attempts, status = attempts.none(), 400
    page = Paginator(attempts, settings.QUIZ_PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {"page": page, "form": form, "now": timezone.now(), "query": query.urlencode()}
    return render(request, "quiz/attempt_list.html", context, status=status)


@require_GET
@login_required
def card_history(request):
    """Every flashcard the learner has studied, with its review count, lapses and next due
    date; each links to the card's own page (its reviews with rating, interval and recall then)."""
    memories = (
        MemoryState.objects.filter(user=request.user, kind=MemoryState.Kind.CARD)
        .select_related("card__deck")
        .order_by("-last_review", "pk")
    )
    page = Paginator(memories, settings.QUIZ_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "quiz/history_cards.html", {"page": page})


CSV_COLUMNS = [
    "record", "when_utc", "item_kind", "set_or_deck", "item_key", "item_text", "attempt_id", "position",
    "chosen", "correct", "rating", "seconds", "source",
]


@require_GET
@login_required
def download_history(request):
    """The learner's answers (one row per answered quiz slot) then reviews (flashcards, review
    sessions, drill), streamed in chunks. Review rows written by quiz answers are left out:
    they are the answers above, and their rating would tell what a hidden attempt hides."""
    return csv_download("my-study-history.csv", _history_rows(request.user, timezone.now()))


def _history_rows(user, now):
    yield CSV_COLUMNS
    answers = (
        AttemptSlot.objects.filter(attempt__user=user, answered_at__isnull=False)
        .select_related("attempt__question_set", "question")
        .order_by("answered_at", "pk")
    )
    for slot in answers.iterator(chunk_size=2000):
        attempt = slot.attempt
        visible = attempt.answers_visible(now)
        yield [
            "answer", _utc(slot.answered_at), "question", attempt.display_title, slot.question.key, slot.stem,
            attempt.pk, slot.position, slot.chosen_index,
            ("yes" if slot.is_correct else "no") if visible else "hidden",
            "", slot.seconds_spent if slot.seconds_spent is not None else "", "quiz",
        ]
    reviews = (
        ReviewLog.objects.filter(user=user)
        .exclude(source=ReviewLog.Source.QUIZ)
        .select_related("memory__card__deck", "memory__question__question_set", "chosen_choice")
        .order_by("reviewed_at", "pk")
    )
    for review in reviews.iterator(chunk_size=2000):
        memory = review.memory
        item = memory.question if memory.kind == MemoryState.Kind.QUESTION else memory.card
        parent = item.question_set.title if memory.kind == MemoryState.Kind.QUESTION else item.deck.title
        text = item.stem if memory.kind == MemoryState.Kind.QUESTION else (
            item.misconception if memory.kind == MemoryState.Kind.MYTH else item.front
        )
        seconds = "" if review.duration_ms is None else round(review.duration_ms / 1000, 1)
        yield [
            "review", _utc(review.reviewed_at), memory.kind, parent, item.key, text, "", "",
            review.chosen_choice.text if review.chosen_choice else review.answer,
            "yes" if review.rating > ReviewLog.Rating.AGAIN else "no",
            review.get_rating_display(), seconds, review.source,
        ]


def _utc(moment):
    return moment.astimezone(UTC).isoformat(timespec="seconds")
