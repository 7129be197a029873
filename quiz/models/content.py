"""Study content: source documents, question sets with their questions and choices, and
flashcard decks with their cards, and the topics that tag them."""

import functools

from django.db import connection, models
from django.db.models import Count, Exists, OuterRef, Q, Subquery, Value
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone

from .kinds import QuestionKind
from .users import User


class TopicQuerySet(models.QuerySet):
    def visible_to(self, user):
        """Topics of content `user` may see: a name tagging only someone's private items is theirs."""
        questions = Question.objects.visible_to(user).filter(topics=OuterRef("pk"))
        cards = Card.objects.filter(deck__in=Deck.objects.visible_to(user), topics=OuterRef("pk"))
        return self.filter(Exists(questions) | Exists(cards))


class Topic(models.Model):
    """A tag on questions and cards ("NVLink", "Parallelism"), for mastery by topic and focused study.
    Names are shared by everyone's content; which topics a user is shown follows what they may see."""

    name = models.CharField(max_length=100, unique=True)

    objects = TopicQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name


class Visibility(models.TextChoices):
    """Who may see and study a set or deck someone owns. Content without an owner is the shared
    library (what `import_questions` and the admin maintain): every signed-in user sees it."""

    PRIVATE = "private", "Only me"
    CLASSES = "classes", "Learners in my classes"
    EVERYONE = "everyone", "Every signed-in user"


class OwnedContentQuerySet(models.QuerySet):
    def visible_to(self, user):
        """What `user` may see and study: the library, their own content, what its owner shares
        with everyone, and what the instructor of one of their classes shares with their classes.
        Visitors see the library only."""
        library = Q(owner__isnull=True)
        if not user.is_authenticated:
            return self.filter(library)
        from .classes import Enrollment

        # A class archived by its instructor no longer shares their content with its learners.
        taught_by_owner = Enrollment.objects.filter(
            learner=user, classroom__owner=OuterRef("owner"), classroom__archived_at__isnull=True
        )
        return self.filter(
            library
            | Q(owner=user)
            | Q(visibility=Visibility.EVERYONE)
            | (Q(visibility=Visibility.CLASSES) & Exists(taught_by_owner))
        )

    def owned_by(self, user):
        return self.filter(owner=user) if user.is_authenticated else self.none()


class OwnedContent(models.Model):
    """An owner (none for the library) and who else may see it. Owned content is private until
    its owner shares it; the library is visible to everyone (a database rule keeps it so)."""

    # PROTECT: an account with content learners studied cannot take their history with it.
    owner = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.PROTECT, related_name="owned_%(class)ss"
    )
    visibility = models.CharField(max_length=8, choices=Visibility.choices, default=Visibility.PRIVATE)

    class Meta:
        abstract = True

    @classmethod
    def ownership_constraints(cls, name):
        return [
            models.CheckConstraint(
                condition=Q(owner__isnull=False) | Q(visibility=Visibility.EVERYONE), name=f"{name}_library_is_shared"
            ),
            models.CheckConstraint(condition=Q(visibility__in=Visibility.values), name=f"{name}_visibility_known"),
        ]

    @property
    def is_library(self):
        return self.owner_id is None

    def save(self, *args, **kwargs):
        if self.owner_id is None:
            self.visibility = Visibility.EVERYONE  # the library is everyone's, whatever the default
        super().save(*args, **kwargs)


class SourceDocument(models.Model):
    """A plain-text document that content was imported from, identified by its file name among
    its owner's documents (the library's, or one user's: two users may both import "notes.csv")."""

    class Kind(models.TextChoices):
        QUIZ = "quiz", "Multiple-choice quiz"
        DECK = "deck", "Flashcard deck"

    owner = models.ForeignKey(User, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    file_name = models.CharField(max_length=255)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    title = models.CharField(max_length=255)
    checksum = models.CharField(max_length=64, help_text="SHA-256 of the document's bytes")
    imported_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["file_name"], condition=Q(owner__isnull=True), name="source_library_file"),
            models.UniqueConstraint(
                fields=["owner", "file_name"], condition=Q(owner__isnull=False), name="source_owner_file"
            ),
        ]

    def __str__(self):
        return self.file_name


class QuestionSetQuerySet(OwnedContentQuerySet):
    def with_progress_for(self, user, *, held=None):
        """Annotate each set with its question count and, for a signed-in user, their
        best finished score, the id of an attempt they can resume, how many of its questions
        an assignment holds back from their practice (`held_count`) and until when at the
        latest (`held_until`). One query. `held`: `Question.objects.held_back_ids`, when the
        page has read it."""
        from .attempts import Attempt
        from .classes import Assignment

        current = Q(questions__retired_at__isnull=True)
        sets = self.annotate(question_count=Count("questions", filter=current, distinct=True))
        if not user.is_authenticated:
            return sets
        mine = Attempt.objects.filter(user=user, question_set=OuterRef("pk"))
        best = mine.filter(finished_at__isnull=False).order_by("-score", "-finished_at")
        sets = sets.annotate(
            best_correct=Subquery(best.values("score")[:1]),  # points: a share for a partly right answer
            best_total=Subquery(best.values("question_count")[:1]),
            open_attempt_id=Subquery(mine.filter(finished_at__isnull=True).values("pk")[:1]),
        )
        now = timezone.now()
        if held is not None and not held:  # nothing held: no subqueries to plan
            return sets.annotate(held_count=Value(0), held_until=Value(None, output_field=models.DateTimeField()))
        if held is None:
            held = Question.objects.held_back_from(user, now).values("pk")
        holding = Assignment.objects.holding_back(learner=user, question=None, now=now).filter(
            pool__entries__question__question_set=OuterRef("pk")
        )
        return sets.annotate(
            held_count=Count("questions", filter=current & Q(questions__pk__in=held), distinct=True),
            held_until=Subquery(holding.order_by("-held_until").values("held_until")[:1]),
        )

    def matching(self, text):
        """Sets whose title, or a topic of one of their current questions, contains `text`
        (any letter case): the library's search. An Exists, so a set tagged twice is listed once."""
        tagged = Question.objects.current().filter(question_set=OuterRef("pk"), topics__name__icontains=text)
        return self.filter(Q(title__icontains=text) | Exists(tagged)) if text else self


class QuestionSet(OwnedContent):
    title = models.CharField(max_length=255)
    source = models.OneToOneField(
        SourceDocument, null=True, blank=True, on_delete=models.SET_NULL, related_name="question_set"
    )
    created_at = models.DateTimeField(default=timezone.now)

    objects = QuestionSetQuerySet.as_manager()

    class Meta:
        ordering = ["title", "pk"]
        constraints = OwnedContent.ownership_constraints("question_set")

    def __str__(self):
        return self.title

    @property
    def practice_held(self):
        """Every current question of the set is held back from the learner's practice by an
        assignment (read `with_progress_for`): there is nothing to start until `held_until`."""
        return 0 < self.question_count <= getattr(self, "held_count", 0)


class Markup(models.TextChoices):
    """How an item's texts are written, so each shows as its author meant (quiz.content.markup):
    plain text shows as typed; Markdown (CommonMark with tables and code blocks) and HTML (from
    Anki, Moodle or GIFT's [html]) are rendered and sanitised when shown. The stored text stays as
    written. One value for all of an item's texts: a question's stem, choices and explanation, a
    card's faces, misconception and correction."""

    PLAIN = "plain", "Plain text"
    MARKDOWN = "markdown", "Markdown"
    HTML = "html", "HTML"


class RetirableQuerySet(models.QuerySet):
    def current(self):
        """Items not retired: what new attempts, study, pools, the bank and exports draw from."""
        return self.filter(retired_at__isnull=True)

    def retired(self):
        return self.filter(retired_at__isnull=False)

    def in_use(self):
        """Items something refers to, which deleting would take from it: learners' memories,
        and for questions also attempt slots (answered or not) and question pools."""
        from .memory import MemoryState

        used = Exists(MemoryState.objects.filter(**{self.model._meta.model_name: OuterRef("pk")}))
        if self.model is Question:
            from .classes import PoolQuestion
            from .slots import AttemptSlot

            used |= Exists(AttemptSlot.objects.filter(question=OuterRef("pk")))
            used |= Exists(PoolQuestion.objects.filter(question=OuterRef("pk")))
        return self.filter(used)


class Retirable(models.Model):
    """An item its owner deleted after learners used it: kept (with their answers and reviews
    pointing at it) but offered to nobody any more."""

    retired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def is_retired(self):
        return self.retired_at is not None


class QuestionQuerySet(RetirableQuerySet):
    def visible_to(self, user):
        return self.filter(question_set__in=QuestionSet.objects.visible_to(user))

    def held_back_from(self, user, now):
        """The questions `user` may not practise now: those of an assignment of theirs whose
        answers they may not see yet (`Assignment.objects.holding_back`), whoever owns them.
        Practising them with feedback would give the answers away."""
        from .classes import Assignment

        return self.filter(Exists(Assignment.objects.holding_back(learner=user, question=OuterRef("pk"), now=now)))

    def held_back_ids(self, user, now):
        """The ids of the questions held back from `user` now, read once: a page whose several
        queries leave them out passes this list to each, instead of a subquery each (joins
        through classes and pools that the database would plan again in every one of them).
        Short: at most the questions of the learner's assignments still before their due date."""
        return list(self.held_back_from(user, now).values_list("pk", flat=True))

    def practisable_by(self, user, now, *, held=None):
        """Less what is held back from `user` now (`held`: `held_back_ids`, when already read)."""
        return self.exclude(pk__in=self.model.objects.held_back_from(user, now).values("pk") if held is None else held)

    def count_held_back_from(self, user, now):
        """{"total": how many questions, "held": how many of them are held back from `user` now}, in one query."""
        held = Q(pk__in=self.model.objects.held_back_from(user, now).values("pk"))
        return self.aggregate(total=Count("pk"), held=Count("pk", filter=held))

    def holding_assignment(self, user, now):
        """Of the assignments that hold some of these questions back from `user` now, the one
        that holds them longest (its `held_until` says until when), or None: what a page names
        when it says why a quiz left questions out or could not start."""
        from .classes import Assignment

        holding = Assignment.objects.holding_back(learner=user, question=None, now=now)
        return holding.filter(pool__entries__question__in=self).order_by("-held_until", "pk").first()


class Question(Retirable):
    Kind = QuestionKind  # single answer, choose N, select all that apply, true/false (quiz.models.kinds)

    question_set = models.ForeignKey(QuestionSet, on_delete=models.CASCADE, related_name="questions")
    # Stable across edits of the text ("Question 3" stays q3), so re-importing updates in place
    # and keeps every attempt that refers to the question.
    key = models.CharField(max_length=64)
    position = models.PositiveIntegerField()
    stem = models.TextField()
    explanation = models.TextField(blank=True)
    kind = models.CharField(max_length=16, choices=QuestionKind.choices, default=QuestionKind.SINGLE)
    # Select all that apply: credit from each picked choice's weight (Moodle's multiple answer)
    # rather than all-or-nothing.
    partial_credit = models.BooleanField(default=False)
    # Short answer: whether letter case matters when a typed answer is compared (Moodle's usecase).
    case_sensitive = models.BooleanField(default=False)
    markup = models.CharField(max_length=8, choices=Markup.choices, default=Markup.PLAIN)
    topics = models.ManyToManyField(Topic, blank=True, related_name="questions")
    updated_at = models.DateTimeField(auto_now=True)

    objects = QuestionQuerySet.as_manager()

    class Meta:
        ordering = ["question_set_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["question_set", "key"], name="question_key_unique_in_set"),
            models.CheckConstraint(condition=Q(kind__in=QuestionKind.values), name="question_kind_known"),
            models.CheckConstraint(condition=Q(markup__in=Markup.values), name="question_markup_known"),
            models.CheckConstraint(
                condition=Q(partial_credit=False) | Q(kind__in=[QuestionKind.SELECT_ALL, QuestionKind.MATCHING]),
                name="question_partial_credit_kinds",
            ),
        ]

    def __str__(self):
        return self.stem[:80]

    @property
    def correct_choice(self):
        return next((choice for choice in self.choices.all() if choice.is_correct), None)

    @property
    def right_choices(self):
        return [choice for choice in self.choices.all() if choice.is_correct]


class Choice(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="choices")
    text = models.TextField()
    is_correct = models.BooleanField(default=False)
    position = models.PositiveIntegerField()
    # Under partial credit, the share of the question's mark picking it earns (-1 to 1; Moodle's
    # `%50`/`%-50`); empty: the default +1/k for a right choice, -1/k for a wrong one.
    weight = models.DecimalField(max_digits=8, decimal_places=7, null=True, blank=True)
    # A numerical question's accepted value (in `text`) is right within this much either side.
    tolerance = models.DecimalField(max_digits=20, decimal_places=10, null=True, blank=True)
    # A matching question's item (in `text`) pairs with this option; a choice without text is an
    # extra option that pairs with nothing.
    match = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["question_id", "position"]
        # How many choices are right depends on the question's kind (quiz.models.kinds.kind_problem,
        # which the importers and the editor apply); the weight stays a share of one mark.
        constraints = [
            models.CheckConstraint(condition=Q(weight__isnull=True) | Q(weight__gte=-1, weight__lte=1), name="choice_weight_range"),
        ]

    def __str__(self):
        return self.text[:80]

    @classmethod
    def id_if_still_there(cls, pk):
        """`pk` if that choice still exists, else NULL, as SQL for an UPDATE: a slot's snapshot
        keeps the ids of choices that an import may have deleted since. Plain SQL: the ORM's
        Subquery for it cost twice as much to build as the answer's whole UPDATE takes to run."""
        return RawSQL(_choice_still_there(), (pk,), output_field=_CHOICE_ID)


# What id_if_still_there gives every answer: the same SQL, worked out once for the database the
# app runs on, and one output field (making a field for each answer was a third of the time
# building the expression took).
_CHOICE_ID = models.BigIntegerField()


@functools.cache
def _choice_still_there():
    quote = connection.ops.quote_name
    table, column = quote(Choice._meta.db_table), quote(Choice._meta.pk.column)
    return f"SELECT {column} FROM {table} WHERE {column} = %s"


def points_of(slots):
    """A correlated subquery adding up `slots`' credit (usable in annotate and update, 0 when none)."""
    total = slots.order_by().values(group=Value(1)).annotate(points=models.Sum("credit")).values("points")
    return Coalesce(Subquery(total[:1]), Value(0), output_field=models.DecimalField(max_digits=9, decimal_places=4))


def count_of(queryset):
    """A correlated subquery counting `queryset`'s rows (usable in annotate, 0 when none)."""
    counted = queryset.order_by().values(group=Value(1)).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted[:1]), 0)


class DeckQuerySet(OwnedContentQuerySet):
    def with_counts_for(self, user, now=None):
        """Annotate card_count and, for a signed-in learner, the studied count and the due ones
        (MemoryStateQuerySet.due) split as learning and review, each a correlated subquery on the
        indexed memory table (one query in all)."""
        decks = self.annotate(card_count=count_of(Card.objects.current().filter(deck=OuterRef("pk"))))
        if not user.is_authenticated:
            return decks
        from .memory import MemoryState

        now = now or timezone.now()
        mine = MemoryState.objects.filter(user=user, kind=MemoryState.Kind.CARD, card__deck=OuterRef("pk"))
        return decks.annotate(
            # Of current cards only, so `new_count` (cards minus studied) stays right after a retirement.
            studied_count=count_of(mine.filter(card__retired_at__isnull=True)),
            learning_count=count_of(mine.due(now).in_learning()),
            review_count=count_of(mine.due(now).in_review()),
        )

    def matching(self, text):
        """Decks whose title, or a topic of one of their current cards, contains `text`."""
        tagged = Card.objects.current().filter(deck=OuterRef("pk"), topics__name__icontains=text)
        return self.filter(Q(title__icontains=text) | Exists(tagged)) if text else self


class Deck(OwnedContent):
    title = models.CharField(max_length=255)
    source = models.OneToOneField(
        SourceDocument, null=True, blank=True, on_delete=models.SET_NULL, related_name="deck"
    )
    created_at = models.DateTimeField(default=timezone.now)

    objects = DeckQuerySet.as_manager()

    class Meta:
        ordering = ["title", "pk"]
        constraints = OwnedContent.ownership_constraints("deck")

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        return reverse("deck", args=[self.pk])

    @property
    def new_count(self):
        return self.card_count - self.studied_count

    @property
    def due_count(self):
        """Cards due now (with_counts_for): learning steps and reviews."""
        return self.learning_count + self.review_count


class Card(Retirable):
    deck = models.ForeignKey(Deck, on_delete=models.CASCADE, related_name="cards")
    key = models.CharField(max_length=64)
    position = models.PositiveIntegerField()
    front = models.TextField()
    back = models.TextField()
    misconception = models.TextField(blank=True)
    correction = models.TextField(blank=True)
    markup = models.CharField(max_length=8, choices=Markup.choices, default=Markup.PLAIN)
    # A cloze card (Anki's {{c1::answer}} markers in `front`): the number it asks. A cloze note
    # makes one card per number, each with its own memory; `back` holds the note's extra text.
    cloze = models.PositiveSmallIntegerField(null=True, blank=True)
    topics = models.ManyToManyField(Topic, blank=True, related_name="cards")
    updated_at = models.DateTimeField(auto_now=True)

    objects = RetirableQuerySet.as_manager()

    class Meta:
        ordering = ["deck_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["deck", "key"], name="card_key_unique_in_deck"),
            models.CheckConstraint(condition=Q(markup__in=Markup.values), name="card_markup_known"),
        ]

    def __str__(self):
        return self.front[:80]

    def myth_readable_by(self, user, memories):
        """May `user` read this card's misconception outside studying? It tells which "Myth or
        fact?" statement is the myth, so only its deck's owner, or a learner who has rated the
        card at least once (`memories`: theirs of this card, read anyway by the caller)."""
        return self.deck.owner_id == user.pk or any(memory.last_review is not None for memory in memories)
