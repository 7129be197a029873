"""Admin for fixing content by hand and looking into learners' attempts.

Content normally arrives through `import_questions`; the admin is for small corrections and
support questions, so history (source documents, attempts, scheduling state and the review
log) is shown read-only: editing it would rewrite what a learner did.
"""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.forms.models import BaseInlineFormSet

from .lib.content_version import content_changed
from .models import (
    Assignment,
    AssignmentOverride,
    Attempt,
    AttemptSlot,
    Card,
    Choice,
    Classroom,
    Deck,
    Enrollment,
    MemoryState,
    PoolQuestion,
    Question,
    QuestionPool,
    QuestionSet,
    ReviewLog,
    ScheduleFit,
    SourceDocument,
    Topic,
    User,
)
from .models.kinds import kind_problem


class ContentAdmin(admin.ModelAdmin):
    """Admin of content, classes or assignments: what every learner's dashboard may show, so
    every change made here renews the content version (quiz.lib.content_version)."""

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        content_changed()

    def delete_model(self, request, obj):
        super().delete_model(request, obj)
        content_changed()

    def delete_queryset(self, request, queryset):
        super().delete_queryset(request, queryset)
        content_changed()


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    # Not fsrs_parameters: py-fsrs refuses numbers outside its bounds, so only a fit may set them.
    study_fields = ("time_zone", "new_cards_per_day", "exam_date", "target_retention", "desired_retention")
    fieldsets = DjangoUserAdmin.fieldsets + (
        ("Role", {"fields": ("is_instructor",)}),
        ("Study preferences", {"fields": study_fields}),
    )
    add_fieldsets = DjangoUserAdmin.add_fieldsets + (("Role", {"fields": ("is_instructor", "time_zone")}),)
    list_display = ("username", "email", "is_instructor", "time_zone", "is_staff")
    list_filter = DjangoUserAdmin.list_filter + ("is_instructor",)


@admin.register(SourceDocument)
class SourceDocumentAdmin(ContentAdmin):
    list_display = ("file_name", "kind", "title", "imported_at")
    list_filter = ("kind",)
    search_fields = ("file_name", "title")
    readonly_fields = ("file_name", "kind", "title", "checksum", "imported_at")

    def has_add_permission(self, request):
        # Source documents describe an import; making one by hand would describe nothing.
        return False


class ChoiceInlineFormSet(BaseInlineFormSet):
    """The choices the question's kind asks for (one right answer, choose N, ...), checked here
    with the importers' rule so the admin shows a message, not a 500."""

    def clean(self):
        super().clean()
        if any(self.errors):
            return
        kept = [form.cleaned_data for form in self.forms if form.cleaned_data and not form.cleaned_data.get("DELETE")]
        choices = [
            {"text": data.get("text", ""), "correct": bool(data.get("is_correct")), "weight": data.get("weight")}
            for data in sorted(kept, key=lambda data: data.get("position") or 0)
        ]
        question = self.instance
        if problem := kind_problem(question.kind, choices, partial_credit=question.partial_credit):
            raise ValidationError(f"{problem[0].upper()}{problem[1:]}.")


class ChoiceInline(admin.TabularInline):
    model = Choice
    formset = ChoiceInlineFormSet
    fields = ("position", "text", "is_correct", "weight")
    extra = 0


@admin.register(Question)
class QuestionAdmin(ContentAdmin):
    # The models order by *_id (no join by default); people read the list by set title.
    ordering = ("question_set__title", "position")
    list_display = ("key", "short_stem", "question_set", "position", "updated_at")
    list_filter = ("question_set", "topics")
    list_select_related = ("question_set",)
    search_fields = ("key", "stem", "explanation", "choices__text")
    readonly_fields = ("updated_at",)
    filter_horizontal = ("topics",)
    inlines = [ChoiceInline]

    @admin.display(description="stem")
    def short_stem(self, question):
        return str(question)


class QuestionInline(admin.TabularInline):
    """Questions are edited on their own page (with their choices); here they are only listed."""

    model = Question
    fields = ("position", "key", "stem")
    readonly_fields = fields
    show_change_link = True
    can_delete = False
    extra = 0

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(QuestionSet)
class QuestionSetAdmin(ContentAdmin):
    list_display = ("title", "source", "question_count", "created_at")
    list_select_related = ("source",)
    search_fields = ("title", "source__file_name")
    inlines = [QuestionInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(question_count=Count("questions"))

    @admin.display(ordering="question_count")
    def question_count(self, question_set):
        return question_set.question_count


class CardInline(admin.TabularInline):
    model = Card
    fields = ("position", "key", "front", "back", "misconception", "correction")
    extra = 0


@admin.register(Deck)
class DeckAdmin(ContentAdmin):
    list_display = ("title", "source", "card_count", "created_at")
    list_select_related = ("source",)
    search_fields = ("title", "source__file_name")
    inlines = [CardInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(card_count=Count("cards"))

    @admin.display(ordering="card_count")
    def card_count(self, deck):
        return deck.card_count


@admin.register(Card)
class CardAdmin(ContentAdmin):
    ordering = ("deck__title", "position")
    list_display = ("key", "short_front", "deck", "position", "updated_at")
    list_filter = ("deck", "topics")
    list_select_related = ("deck",)
    search_fields = ("key", "front", "back", "misconception", "correction")
    readonly_fields = ("updated_at",)
    filter_horizontal = ("topics",)

    @admin.display(description="front")
    def short_front(self, card):
        return str(card)


class ReadOnlyAdmin(admin.ModelAdmin):
    """A record of what happened: viewable, never added, edited or deleted by hand (the change
    page renders without a save button and a POST to it is refused)."""

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class AttemptSlotInline(admin.TabularInline):
    """What the learner saw and answered: a record, so nothing here is editable."""

    model = AttemptSlot
    fields = ("position", "question", "stem", "kind", "chosen_index", "chosen_numbers", "credit", "is_correct", "answered_at", "seconds_spent")
    readonly_fields = fields
    can_delete = False
    extra = 0

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("question")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Attempt)
class AttemptAdmin(ReadOnlyAdmin):
    # Not deletable either: an attempt is a learner's graded history. Removing a learner's data
    # altogether is deleting their account (their attempts go with it).
    list_display = ("user", "display_title", "feedback", "started_at", "finished_at", "correct_count", "score", "question_count")
    list_filter = ("feedback", "finished_at", "question_set")
    list_select_related = ("user", "question_set")
    search_fields = ("user__username", "title", "question_set__title")
    date_hierarchy = "started_at"
    inlines = [AttemptSlotInline]

    @admin.display(description="quiz", ordering="question_set__title")
    def display_title(self, attempt):
        return attempt.display_title


@admin.register(MemoryState)
class MemoryStateAdmin(ReadOnlyAdmin):
    list_display = ("user", "kind", "item_label", "phase", "due", "last_review", "reps", "lapses", "last_rating")
    list_filter = ("kind", "phase", "last_rating")
    list_select_related = ("user", "card", "question")
    search_fields = ("user__username", "card__front", "question__stem")
    raw_id_fields = ("user", "card", "question")
    date_hierarchy = "due"

    @admin.display(description="item")
    def item_label(self, memory):
        return str(memory.item)


@admin.register(ReviewLog)
class ReviewLogAdmin(ReadOnlyAdmin):
    # No deleting single reviews either: undo restores the memory state from the log, so a
    # hole in the log would make the scheduler's history inconsistent.
    list_display = ("user", "rating", "source", "kind", "reviewed_at", "released_at", "due_after", "was_new",
                    "duration_ms")
    list_filter = ("rating", "source", "memory__kind", "was_new")
    list_select_related = ("user", "memory")
    search_fields = ("user__username",)
    raw_id_fields = ("user", "memory", "chosen_choice")
    date_hierarchy = "reviewed_at"

    @admin.display(description="kind", ordering="memory__kind")
    def kind(self, review):
        return review.memory.get_kind_display()


@admin.register(ScheduleFit)
class ScheduleFitAdmin(ReadOnlyAdmin):
    list_display = ("user", "fitted_at", "review_count", "outcome")
    list_filter = ("outcome",)
    search_fields = ("user__username",)
    raw_id_fields = ("user",)


@admin.register(Topic)
class TopicAdmin(ContentAdmin):
    """Topics tag questions and cards for mastery by topic; tag them from a question or card."""

    list_display = ("name",)
    search_fields = ("name",)


# --- Classes and assignments (issue 5) ---------------------------------------------------------------

class EnrollmentInline(admin.TabularInline):
    model = Enrollment
    ordering = ("learner__username",)
    extra = 0
    raw_id_fields = ("learner",)


@admin.register(Classroom)
class ClassroomAdmin(ContentAdmin):
    list_display = ("name", "owner", "join_code", "created_at")
    list_select_related = ("owner",)
    search_fields = ("name", "join_code", "owner__username")
    raw_id_fields = ("owner",)
    inlines = [EnrollmentInline]


class PoolQuestionInline(admin.TabularInline):
    model = PoolQuestion
    extra = 0
    raw_id_fields = ("question",)
    ordering = ("position",)


@admin.register(QuestionPool)
class QuestionPoolAdmin(ContentAdmin):
    list_display = ("title", "owner", "draw_count", "created_at")
    list_select_related = ("owner",)
    search_fields = ("title", "owner__username")
    raw_id_fields = ("owner",)
    inlines = [PoolQuestionInline]


class AssignmentOverrideInline(admin.TabularInline):
    model = AssignmentOverride
    extra = 0
    raw_id_fields = ("learner",)


@admin.register(Assignment)
class AssignmentAdmin(ContentAdmin):
    list_display = ("title", "classroom", "opens_at", "due_at", "time_limit", "max_attempts", "grading")
    list_select_related = ("classroom",)
    list_filter = ("grading", "feedback_timing")
    search_fields = ("title", "classroom__name")
    raw_id_fields = ("classroom", "pool")
    inlines = [AssignmentOverrideInline]
