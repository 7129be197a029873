"""One question of an attempt, as the learner saw it, and their answer."""

from datetime import timedelta
from decimal import Decimal

from django.db import models
from django.db.models import Exists, OuterRef, Q

from quiz.lib.numbers import percent_of, points

from .content import Choice, Markup, Question
from .kinds import (
    SEVERAL_PICKS,
    TYPED,
    QuestionKind,
    credit_for,
    credit_of,
    matching_credit,
    options_of,
    pick_instruction,
    typed_credit,
)


def shuffled(items, rng):
    return rng.sample(items, k=len(items))


class SlotQuerySet(models.QuerySet):
    def set_flag(self, *, user, attempt_id, position, flagged):
        """Flag (or unflag) a question of the learner's own open attempt: one UPDATE, which
        says by its count whether there was such a question to flag (0: not theirs, no such
        position, or the attempt is finished)."""
        return self.filter(
            attempt_id=attempt_id, attempt__user=user, attempt__finished_at__isnull=True, position=position
        ).update(flagged=flagged)

    def with_exclusion_flag(self):
        """Annotate `is_excluded`: the instructor excluded the slot's question from its assignment."""
        from .classes import ExcludedQuestion

        excluded = ExcludedQuestion.objects.filter(assignment=OuterRef("attempt__assignment"), question=OuterRef("question"))
        return self.annotate(is_excluded=Exists(excluded))


class AttemptSlot(models.Model):
    """One question of an attempt, exactly as the learner saw it, and their answer.

    The stem and the choices (text, right or wrong, in the shuffled order) are copied when the
    attempt starts, so editing the source later never changes what a past attempt shows or
    how it was graded. The answer lives on the slot: one question of one attempt has at most
    one answer.
    """

    # No index of its own: the unique (attempt, position) and (attempt, question) indexes begin
    # with it. With a third one, PostgreSQL picked it for "this attempt's slot at a position"
    # and for "another open slot, from the end", then filtered and sorted the whole attempt.
    attempt = models.ForeignKey("quiz.Attempt", on_delete=models.CASCADE, related_name="slots", db_index=False)
    question = models.ForeignKey(Question, on_delete=models.PROTECT, related_name="slots")
    position = models.PositiveIntegerField()
    stem = models.TextField()
    # The question's kind and its choices as they were when the attempt started.
    kind = models.CharField(max_length=16, choices=QuestionKind.choices, default=QuestionKind.SINGLE)
    partial_credit = models.BooleanField(default=False)
    case_sensitive = models.BooleanField(default=False)
    shown_choices = models.JSONField(help_text='[{"id", "text", "correct", "weight"?}] in the order shown')
    # A matching question's options in the order shown (its items are `shown_choices`, with their "match").
    shown_options = models.JSONField(null=True, blank=True)
    # The answer: one pick (single answer, true/false) or several (choose N, select all), 1-based as shown.
    chosen_index = models.PositiveSmallIntegerField(null=True, blank=True, help_text="1-based, as shown")
    chosen_numbers = models.JSONField(null=True, blank=True, help_text="[1-based numbers, as shown] for several picks")
    # A typed answer (short answer, number), as the learner typed it; `chosen_choice` is then the
    # accepted answer it matched, if any.
    typed_answer = models.TextField(null=True, blank=True)
    # The live choice picked (one pick only), for statistics across attempts; the snapshot above is the record.
    chosen_choice = models.ForeignKey(Choice, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # The share of the question's mark earned (0 to 1); right means full credit.
    credit = models.DecimalField(max_digits=5, decimal_places=4, null=True, blank=True)
    is_correct = models.BooleanField(null=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    seconds_spent = models.PositiveIntegerField(null=True, blank=True)
    # When this answer entered the spaced-repetition queue: only once the learner may see its
    # feedback (right away, at the end of the attempt, or after the assignment's due date).
    scheduled_at = models.DateTimeField(null=True, blank=True)
    # "Flag for review": the learner's own reminder to come back to this question before
    # submitting (as in Moodle). It says nothing about the answer and never affects the score.
    flagged = models.BooleanField(default=False)

    objects = SlotQuerySet.as_manager()

    class Meta:
        ordering = ["attempt_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["attempt", "position"], name="slot_position_unique"),
            models.UniqueConstraint(fields=["attempt", "question"], name="slot_question_unique"),
            # An answer is its time, the pick and its grade together: never a part of one.
            models.CheckConstraint(
                condition=Q(
                    answered_at__isnull=True, chosen_index__isnull=True, chosen_numbers__isnull=True,
                    typed_answer__isnull=True, is_correct__isnull=True, credit__isnull=True,
                )
                | (
                    Q(answered_at__isnull=False, is_correct__isnull=False, credit__isnull=False)
                    & (Q(chosen_index__isnull=False) | Q(chosen_numbers__isnull=False) | Q(typed_answer__isnull=False))
                ),
                name="slot_answer_complete",
            ),
        ]
        indexes = [
            models.Index(fields=["question", "answered_at"], name="slot_question_answered"),
            # What catch-up scans: answers not yet in the memory queue. Partial, so its size
            # is what is pending, not the whole history.
            models.Index(
                fields=["attempt"],
                condition=Q(answered_at__isnull=False, scheduled_at__isnull=True),
                name="slot_pending_release",
            ),
        ]

    def __str__(self):
        return f"{self.attempt_id} #{self.position}"

    @classmethod
    def shown_to_learner(cls, attempt, position, question, rng):
        choices = list(question.choices.all())
        # True stays before False, as on the exam; a typed question's accepted answers keep their order.
        if question.kind not in (QuestionKind.TRUE_FALSE, *TYPED):
            choices = shuffled(choices, rng)
        options = None
        if question.kind == QuestionKind.MATCHING:  # the items, and every option shuffled apart from them
            options = shuffled(options_of([{"match": choice.match} for choice in choices]), rng)
            choices = [choice for choice in choices if choice.text]
        return cls(
            shown_options=options,
            attempt=attempt,
            question=question,
            position=position,
            stem=question.stem,
            kind=question.kind,
            partial_credit=question.partial_credit,
            case_sensitive=question.case_sensitive,
            shown_choices=[snapshot_of(choice, question.partial_credit, question.kind, question.markup) for choice in choices],
        )

    @property
    def is_typed(self):
        return self.kind in TYPED

    def typed_credit(self, typed):
        """(credit, the number of the accepted answer matched or None) for a typed answer."""
        return typed_credit(self.kind, self.shown_choices, typed, case_sensitive=self.case_sensitive)

    @property
    def typed_review(self):
        """A typed answer's feedback: each accepted answer with its credit and tolerance, and
        which one the learner's answer matched (`chosen_choice_id` holds its id)."""
        _, number = self.typed_credit(self.typed_answer or "")
        return accepted_review(self.shown_choices, matched_id=self.shown_choices[number - 1]["id"] if number else None)

    @property
    def several_picks(self):
        return self.kind in SEVERAL_PICKS

    @property
    def picks(self):
        """The learner's picks, 1-based as shown: [] before answering."""
        if self.chosen_numbers is not None:
            return list(self.chosen_numbers)
        return [] if self.chosen_index is None else [self.chosen_index]

    @property
    def instruction(self):
        """"Choose two." or "Select all that apply." (None for one pick): all it says of the answer."""
        return pick_instruction(self.kind, self.shown_choices)

    @property
    def matching_rows(self):
        """A matching question's form: (number, item, [(option number, text, picked)]) per item, the
        saved picks selected; nothing says which option is right."""
        if self.kind != QuestionKind.MATCHING:
            return []
        picks = self.chosen_numbers or []
        return [
            (n, item["text"], [(k, option, n <= len(picks) and picks[n - 1] == k) for k, option in enumerate(self.shown_options, start=1)])
            for n, item in enumerate(self.shown_choices, start=1)
        ]

    @property
    def matching_review(self):
        """Each pair after answering: the item, the option picked, whether right, the right option."""
        picks = self.chosen_numbers or []
        return matching_review(self.shown_choices, self.shown_options, picks)

    def credit_for(self, picks):
        if self.kind == QuestionKind.MATCHING:
            return matching_credit(self.shown_choices, self.shown_options, picks, partial_credit=self.partial_credit)
        return credit_for(self.kind, self.shown_choices, picks, partial_credit=self.partial_credit)

    @property
    def choice_order(self):
        return [choice["id"] for choice in self.shown_choices]

    @property
    def markup(self):
        """How the stem and choices were written when the attempt started (`markup_of`)."""
        return markup_of(self.shown_choices)

    @property
    def choice_texts(self):
        """What the question page shows before answering: texts only, nothing about correctness."""
        return [choice["text"] for choice in self.shown_choices]

    @property
    def answer_options(self):
        """The question page's choices before feedback: (number, text, ticked) for each as shown,
        the saved answer ticked (deferred feedback lets the learner change it), nothing about
        correctness."""
        picks = set(self.picks)
        return [(number, c["text"], number in picks) for number, c in enumerate(self.shown_choices, start=1)]

    @property
    def review(self):
        """The choices as shown, with the learner's picks and the right ones, for feedback."""
        return review_of(self.shown_choices, self.picks, several=self.several_picks)

    @property
    def correct_number(self):
        return next(n for n, c in enumerate(self.shown_choices, start=1) if c["correct"])

    @property
    def credit_percent(self):
        return percent_of(self.credit)

    @property
    def is_partly_right(self):
        return self.credit is not None and 0 < self.credit < 1

    @property
    def is_answered(self):
        return self.answered_at is not None

    @property
    def time_spent(self):
        return None if self.seconds_spent is None else timedelta(seconds=self.seconds_spent)


def snapshot_of(choice, partial_credit, kind=QuestionKind.SINGLE, markup=Markup.PLAIN):
    """A choice as a slot keeps it: its weight only where it counts (partial credit, or an
    accepted answer's credit), a numerical answer's tolerance, and how its question's texts
    are written unless plain (`markup_of`)."""
    shown = {"id": choice.pk, "text": choice.text, "correct": choice.is_correct}
    if markup != Markup.PLAIN:
        shown["markup"] = markup
    if partial_credit or kind in TYPED:
        shown["weight"] = None if choice.weight is None else str(choice.weight)
    if kind == QuestionKind.NUMERICAL:
        shown["tolerance"] = f"{(choice.tolerance or Decimal(0)).normalize():f}"
    if kind == QuestionKind.MATCHING:
        shown["match"] = choice.match
    return shown


def markup_of(shown_choices):
    """The markup of a question's snapshot (models.Markup). A slot has no column for it, so it
    travels with each choice's text, and only when not plain: snapshots taken before markup
    existed, all plain, read as plain."""
    return next((choice["markup"] for choice in shown_choices if "markup" in choice), Markup.PLAIN)


def matching_review(items, options, picks):
    return [
        {
            "item": item["text"], "picked": options[pick - 1] if pick else None, "right_option": item["match"],
            "right": bool(pick) and options[pick - 1] == item["match"],
        }
        for item, pick in zip(items, list(picks) + [None] * (len(items) - len(picks)))
    ]


def accepted_review(answers, matched_id=None):
    """The accepted answers of a typed question for feedback: text, credit %, tolerance, matched."""
    return [
        {
            "text": answer["text"], "credit": percent_of(credit_of(answer)), "matched": answer["id"] == matched_id,
            "tolerance": answer["tolerance"] if Decimal(answer.get("tolerance") or 0) else None,
        }
        for answer in answers
    ]


def review_of(choices, picks, *, several=False):
    """Each choice as shown for feedback: picked or not, right or not, and for the kinds with
    several picks (`several`) also a wrong pick (`wrong_pick`) or a right one missed (`missed`)."""
    picked = set(picks)
    return [
        {
            "number": number, "text": c["text"], "correct": c["correct"], "chosen": number in picked,
            "wrong_pick": several and number in picked and not c["correct"],
            "missed": several and c["correct"] and number not in picked,
        }
        for number, c in enumerate(choices, start=1)
    ]


def score_by_topic(slots):
    """[(topic name, right, counted)] over the slots' questions, by name: each slot counts
    once for each of its question's topics, with its credit (1 if right, a share if partly right);
    an unanswered one counts as not right, one the
    instructor excluded not at all. The slots must come with `question__topics` prefetched
    (one query for the whole list) and, in an assignment, annotated `with_exclusion_flag`."""
    totals = {}
    for slot in slots:
        if getattr(slot, "is_excluded", False):
            continue
        for topic in slot.question.topics.all():
            right, counted = totals.get(topic.name, (0, 0))
            totals[topic.name] = (right + (slot.credit or 0), counted + 1)
    ordered = sorted(totals.items(), key=lambda item: item[0].lower())
    return [(name, points(right), counted) for name, (right, counted) in ordered]
