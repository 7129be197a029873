"""Every form of the app, grouped by area: accounts and settings, answering and rating, classes,
the instructor's pool builder and assignments, history filters and the exam date. One's own
content (the editor, the import page, sharing) has its forms in quiz.editor.forms.
Forms convert as well as validate: a join code becomes its Classroom, minutes a timedelta."""

from datetime import date, timedelta
from zoneinfo import available_timezones

from confusable_homoglyphs import confusables
from django import forms
from django.contrib.auth.forms import PasswordResetForm, UserCreationForm
from django.contrib.auth.hashers import check_password
from django.core.validators import MaxValueValidator, MinValueValidator
from django.utils import timezone

from quiz.lib.days import start_of_day
from quiz.models import Assignment, Attempt, Classroom, QuestionPool, QuestionSet, Topic, User
from quiz.models.kinds import SEVERAL_PICKS, TYPED, QuestionKind, picks_problem, typed_problem
from quiz.models.users import RETENTION_RANGE


def id_from_form(text):
    """A database id typed into a form, or None: ASCII digits of a sane length only
    ("²".isdigit() is true, and int() refuses it; a 30-digit number overflows the column)."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= 12 else None


# --- Accounts, answering and rating -----------------------------------------------------------

class PercentField(forms.IntegerField):
    """A share the database stores as 0.85, typed and shown as the percentage people say, 85.
    A share typed as such ("0.85", as these fields took before) is read as that share: no
    percentage this field accepts is below 1, so the two never meet."""

    def __init__(self, *, limits=RETENTION_RANGE, **kwargs):
        low, high = (round(limit * 100) for limit in limits)
        kwargs.setdefault("help_text", f"A percentage from {low} to {high}.")
        super().__init__(min_value=low, max_value=high, widget=forms.NumberInput(attrs={"step": "1"}), **kwargs)

    def prepare_value(self, value):
        return round(value * 100) if isinstance(value, float) else value

    def to_python(self, value):
        text = str(value or "").strip().rstrip("%").strip()
        try:
            share = float(text) if text else None
        except ValueError:
            share = None
        if share is not None and 0 < share < 1 and share * 100 == round(share * 100):
            text = str(round(share * 100))
        return super().to_python(text)

    def clean(self, value):
        number = super().clean(value)
        return None if number is None else number / 100


EMAIL_HELP = ("Optional. Only used for a link if you forget your password, and for the reminders you turn on, "
              "once you confirm the address with the link we send to it.")


def clean_account_email(form):
    """The email a form gives its user, if any: a valid address (the field checked that),
    trimmed, its domain in lower case, and not another account's in any letter case. The
    database enforces the same (user_email_unique_when_given); this says so in words."""
    email = User.objects.normalize_email(form.cleaned_data.get("email", "").strip())
    if email and User.objects.filter(email__iexact=email).exclude(pk=form.instance.pk).exists():
        raise forms.ValidationError(
            "Another account already uses this email address. If it is yours, log in to it or reset its password."
        )
    return email


# The regions of the IANA names people live in ("Europe/Paris"); the other names (legacy aliases
# such as "US/Eastern", "Etc/GMT+5") are listed last, under "Other".
ZONE_REGIONS = ("Africa", "America", "Antarctica", "Asia", "Atlantic", "Australia", "Europe", "Indian", "Pacific")


def time_zone_choices():
    """The time zones grouped by region, each named by its place ("Argentina / Buenos Aires"),
    UTC first: a select of about 600 names a person can scan."""
    groups = {region: [] for region in (*ZONE_REGIONS, "Other")}
    for name in sorted(available_timezones()):
        region, _, place = name.partition("/")
        if region in ZONE_REGIONS and place:
            groups[region].append((name, place.replace("_", " ").replace("/", " / ")))
        elif name != "UTC":
            groups["Other"].append((name, name.replace("_", " ")))
    return [("UTC", "UTC"), *((region, zones) for region, zones in groups.items() if zones)]


class TimeZoneField(forms.ChoiceField):
    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", "Daily limits reset at your midnight.")
        super().__init__(choices=time_zone_choices, **kwargs)


class SignUpForm(UserCreationForm):
    # Not required: a script or an old page that sends none signs up in UTC, as before.
    time_zone = TimeZoneField(initial="UTC", label="Time zone", required=False)

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email", "time_zone")
        labels = {"email": "Email"}
        help_texts = {"email": EMAIL_HELP}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:  # app.js puts the browser's zone in place of UTC; a re-shown form keeps the choice
            self.fields["time_zone"].widget.attrs["data-browser-zone"] = "UTC"

    def clean_time_zone(self):
        return self.cleaned_data["time_zone"] or "UTC"

    clean_email = clean_account_email

    def clean_username(self):
        username = super().clean_username()
        # "lеarnA" with a Cyrillic "е" passes for "learnA" on screen: refuse names that mix
        # scripts with look-alike letters, so nobody can pose as another learner or instructor.
        if username and confusables.is_dangerous(username):
            raise forms.ValidationError(
                "This name mixes letters from different alphabets that look alike; use one alphabet."
            )
        return username


class StartAttemptForm(forms.Form):
    feedback = forms.ChoiceField(choices=Attempt.Feedback.choices, required=False)

    def clean_feedback(self):
        return self.cleaned_data["feedback"] or Attempt.Feedback.IMMEDIATE


PICK_A_CHOICE = "Pick one of the choices."


class ShownChoiceForm(forms.Form):
    """The numbers of the choices picked, as shown on screen: 1 to the number of choices. One
    pick (single answer, true/false: `cleaned_data["choice"]` is a number) or several (choose N,
    select all that apply: a sorted list), counted as the kind asks ("Choose two.").

    Numbers rather than database ids: ids follow the source document's order and would undo
    the shuffle. Anything but shown numbers, written as the form sends them, is a validation
    error, never an answer. Checked in `clean_choice`, not by a ChoiceField: giving one its
    choices rebuilt the field and its widget on every answer and every question page.
    """

    # Every `choice` value sent (checkboxes send one each): MultipleHiddenInput reads the list.
    choice = forms.Field(widget=forms.MultipleHiddenInput, error_messages={"required": PICK_A_CHOICE})
    # A typed answer (short answer, number): `cleaned_data["choice"]` is then its text, and its
    # problems are reported on `choice` too, so every caller reads one field.
    answer = forms.CharField(required=False, strip=False)

    def __init__(self, *args, choices, kind=QuestionKind.SINGLE, options=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.shown, self.kind, self.options = choices, kind, options
        self.fields["choice"].required = kind not in TYPED and kind != QuestionKind.MATCHING

    def clean(self):
        cleaned = super().clean()
        if self.kind == QuestionKind.MATCHING:
            # A select per item, `pair_1`, `pair_2`, ...: the number of the option picked for each.
            texts = [self.data.get(f"pair_{n}", "") for n in range(1, len(self.shown) + 1)]
            picks = [int(text) if text.isascii() and text.isdigit() and len(text) <= 4 else 0 for text in texts]
            if problem := picks_problem(self.kind, self.shown, picks, self.options):
                self.add_error("choice", forms.ValidationError(problem, code="pairs"))
            else:
                cleaned["choice"] = picks
        elif self.kind in TYPED:
            typed = cleaned.get("answer") or ""
            if problem := typed_problem(self.kind, typed):
                self.add_error("choice", forms.ValidationError(problem, code="typed"))
            else:
                cleaned["choice"] = typed
        return cleaned

    def clean_choice(self):
        if self.kind in TYPED or self.kind == QuestionKind.MATCHING:
            return None
        texts = self.cleaned_data["choice"]
        # ASCII digits only: int() also reads " 2", "+1", "1_0" and "١" as numbers.
        if not all(text.isascii() and text.isdigit() and len(text) <= 4 and 1 <= int(text) <= len(self.shown) for text in texts):
            raise forms.ValidationError(PICK_A_CHOICE, code="invalid_choice")
        picks = sorted({int(text) for text in texts})
        if problem := picks_problem(self.kind, self.shown, picks):
            raise forms.ValidationError(problem, code="pick_count")
        return picks if self.kind in SEVERAL_PICKS else picks[0]


class AnswerForm(ShownChoiceForm):
    """A quiz question's answer: the numbers picked among the slot's choices as shown. It only
    validates what a POST sent: the question page lists the slot's `answer_options`, so showing
    a question builds no form."""

    def __init__(self, slot, *args, **kwargs):
        super().__init__(*args, choices=slot.shown_choices, kind=slot.kind, options=slot.shown_options, **kwargs)


class FlagForm(forms.Form):
    """Flag a question for review, or take the flag off: the state wanted, not a toggle, so a
    double click or a second tab cannot undo it."""

    flagged = forms.TypedChoiceField(coerce=lambda value: value == "1", choices=[("1", "flag"), ("0", "unflag")])


# Longer than this is not thinking time: the learner walked away (Anki caps at 60 s by default).
MAX_REVIEW_MS = 10 * 60 * 1000


class RatingForm(forms.Form):
    """A flashcard rating: which card the page showed, Again/Hard/Good/Easy, time taken."""

    item = forms.IntegerField(min_value=1)
    rating = forms.TypedChoiceField(coerce=int, choices=[(n, n) for n in range(1, 5)])
    duration_ms = forms.IntegerField(min_value=0, required=False)

    def clean_duration_ms(self):
        duration = self.cleaned_data["duration_ms"]
        return None if duration is None else min(duration, MAX_REVIEW_MS)


class ReviewAnswerForm(ShownChoiceForm):
    """A due question answered in a review session: the item and the number of the choice as shown."""

    item = forms.IntegerField(min_value=1)


class DrillAnswerForm(forms.Form):
    """A drill answer: the session's token for the statement shown (never the card's id)."""

    token = forms.CharField(max_length=64)
    answer = forms.ChoiceField(choices=[("myth", "Myth"), ("fact", "Fact")])


class StudySettingsForm(forms.ModelForm):
    time_zone = TimeZoneField()
    new_cards_per_day = forms.IntegerField(min_value=0, max_value=9999, label="New cards per day")
    desired_retention = PercentField(
        label="Desired retention (%)",
        help_text="The chance of recalling an item when it comes due, from 70 to 97. Higher means more reviews.",
    )

    class Meta:
        model = User
        fields = ("time_zone", "new_cards_per_day", "desired_retention")


class EmailForm(forms.ModelForm):
    """The account's address, on the account page, after the current password (a session left
    open must not be enough to move the account's resets elsewhere): a new address is unverified
    until its link is followed (quiz.accounts.emails.set_email); an empty one removes it."""

    password = forms.CharField(label="Your password", strip=False,
                               widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}))

    class Meta:
        model = User
        fields = ("email",)  # the password is checked, never written
        labels = {"email": "Email"}
        help_texts = {"email": EMAIL_HELP + " Leave it empty to remove your address."}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.account_password = self.instance.password
        if not self.instance.has_usable_password():  # an account made by an LMS launch has none to type
            del self.fields["password"]

    clean_email = clean_account_email

    def clean(self):
        cleaned = super().clean()
        if self.is_bound and "email" not in self.data:  # a form that sent no address removes nothing
            self.add_error("email", "Type the new address, or leave the field empty to remove it.")
        if "password" in self.fields and not check_password(cleaned.get("password") or "", self.account_password):
            self.add_error("password", "That is not your password.")
        return cleaned


class VerifiedEmailPasswordResetForm(PasswordResetForm):
    """Django's reset form, sending the reset link only to a verified address: an address someone
    typed into an account but never confirmed may be anyone's, and must not receive that account's
    reset link. An unverified one gets the verification link instead, saying to ask again once
    confirmed (accounts made before verification existed are not locked out). The page after is
    the same either way, as for an unknown address."""

    def get_users(self, email):
        return (user for user in super().get_users(email) if user.email_verified_at is not None)

    def save(self, *args, request=None, **kwargs):
        super().save(*args, request=request, **kwargs)
        from quiz.accounts.emails import send_verification

        unverified = User.objects.filter(email__iexact=self.cleaned_data["email"], is_active=True,
                                         email_verified_at__isnull=True)
        for user in unverified:
            send_verification(user, request, for_reset=True)


# --- Classes and teaching ---------------------------------------------------------------------

class JoinClassForm(forms.Form):
    code = forms.CharField(max_length=16, label="Class code")

    def clean_code(self):
        code = self.cleaned_data["code"].strip().upper().replace(" ", "").replace("-", "")
        classroom = Classroom.objects.filter(join_code=code).first()
        if classroom is None:
            raise forms.ValidationError("No class has that code. Check it with your instructor.")
        if classroom.archived_at:
            raise forms.ValidationError(f"{classroom.name} is archived: it takes no new learners. Ask your instructor.")
        return classroom


class ClassroomForm(forms.ModelForm):
    class Meta:
        model = Classroom
        fields = ("name",)


class QuestionPoolForm(forms.ModelForm):
    class Meta:
        model = QuestionPool
        fields = ("title", "draw_count")
        labels = {"draw_count": "Random questions per attempt"}


class BankFilterForm(forms.Form):
    """Filters for the question bank in the question-pool builder (all optional)."""

    question_set = forms.ModelChoiceField(queryset=QuestionSet.objects.none(), required=False, label="Source set")
    topic = forms.ModelChoiceField(queryset=Topic.objects.all(), required=False)
    q = forms.CharField(required=False, max_length=200, label="Search")

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["question_set"].queryset = QuestionSet.objects.visible_to(user)
        self.fields["topic"].queryset = Topic.objects.visible_to(user)

    def filter(self, questions):
        if not self.is_valid():
            return questions.none()
        data = self.cleaned_data
        if data["question_set"]:
            questions = questions.filter(question_set=data["question_set"])
        if data["topic"]:
            questions = questions.filter(topics=data["topic"])
        if data["q"]:
            questions = questions.filter(stem__icontains=data["q"])
        return questions


class LocalDateTimeField(forms.DateTimeField):
    """A datetime-local input read in the instructor's own time zone, within years 1900-9998
    (at the edges of the calendar, converting between time zones overflows)."""

    widget = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")
    input_formats = ["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"]
    out_of_range = "Enter a date between the years 1900 and 9998."

    def to_python(self, value):
        try:
            moment = super().to_python(value)
        except OverflowError:
            raise forms.ValidationError(self.out_of_range) from None
        if moment is not None and not 1900 <= moment.year <= 9998:
            raise forms.ValidationError(self.out_of_range)
        return moment


class MinutesField(forms.IntegerField):
    """Minutes typed by a person, converted to a timedelta (empty = no limit)."""

    def __init__(self, **kwargs):
        super().__init__(min_value=1, max_value=24 * 60, required=False, **kwargs)

    def prepare_value(self, value):
        if isinstance(value, timedelta):
            return int(value.total_seconds() // 60)
        return value

    def clean(self, value):
        minutes = super().clean(value)
        return None if minutes is None else timedelta(minutes=minutes)


class AssignmentForm(forms.ModelForm):
    opens_at = LocalDateTimeField(label="Opens")
    due_at = LocalDateTimeField(label="Due")
    time_limit = MinutesField(label="Time limit (minutes)")
    max_attempts = forms.IntegerField(
        min_value=1, max_value=100, required=False, label="Attempts allowed", help_text="Empty = unlimited"
    )

    class Meta:
        model = Assignment
        fields = ("pool", "title", "opens_at", "due_at", "time_limit", "max_attempts", "grading", "shuffle",
                  "feedback_timing")
        labels = {"pool": "Question pool", "max_attempts": "Attempts allowed", "feedback_timing": "Show feedback and answers"}
        help_texts = {
            "feedback_timing": "“After the due date” keeps your own questions out of learners' practice until "
            "then; questions from the shared library or shared by others stay open to practise.",
        }

    def __init__(self, *args, owner, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["pool"].queryset = owner.question_pools.all()
        self.fields["title"].required = False
        if self.instance.pk is None and not self.is_bound and "pool" not in self.initial:
            # The only pool there is is the one meant: chosen already, one step fewer.
            pools = list(owner.question_pools.values_list("pk", flat=True)[:2])
            if len(pools) == 1:
                self.initial["pool"] = pools[0]

    @staticmethod
    def default_dates(now):
        """A new assignment opens now and is due a week later at the same time of day on the
        instructor's clock (an aware datetime plus days keeps its wall time across a DST change)."""
        local = timezone.localtime(now)
        return {"opens_at": local, "due_at": local + timedelta(days=7)}

    def clean(self):
        data = super().clean()
        if data.get("opens_at") and data.get("due_at") and data["due_at"] <= data["opens_at"]:
            self.add_error("due_at", "The due date must be after the opening date.")
        if not data.get("title") and data.get("pool"):
            data["title"] = data["pool"].title
        if data.get("pool") and not data["pool"].entries.exists():
            self.add_error("pool", "This question pool has no questions yet: add some before assigning it.")
        return data


class CopyAssignmentForm(AssignmentForm):
    """A copy of an assignment: its pool and rules, new dates, into any of the owner's active classes."""

    classroom = forms.ModelChoiceField(queryset=None, label="Class")
    COPIED = ("pool", "title", "time_limit", "max_attempts", "grading", "shuffle", "feedback_timing")

    class Meta(AssignmentForm.Meta):
        fields = ("classroom", *AssignmentForm.Meta.fields)

    def __init__(self, *args, owner, **kwargs):
        super().__init__(*args, owner=owner, **kwargs)
        self.fields["classroom"].queryset = Classroom.objects.owned_by(owner).active()

    @classmethod
    def initial_from(cls, assignment, now):
        """The source's class, pool and rules, with dates as a new assignment's: open now, due in a week."""
        initial = {name: getattr(assignment, name) for name in cls.COPIED}
        return {**initial, "classroom": assignment.classroom_id, **cls.default_dates(now)}


class OverrideForm(forms.Form):
    learner = forms.ModelChoiceField(queryset=None)
    opens_at = LocalDateTimeField(label="Opens", required=False)
    due_at = LocalDateTimeField(label="Due", required=False)
    time_limit = MinutesField(label="Time limit (minutes)")
    max_attempts = forms.IntegerField(min_value=1, max_value=100, required=False, label="Attempts allowed")

    def __init__(self, *args, assignment, **kwargs):
        super().__init__(*args, **kwargs)
        self.assignment = assignment
        self.fields["learner"].queryset = User.objects.filter(enrollments__classroom=assignment.classroom)

    def clean(self):
        data = super().clean()
        opens = data.get("opens_at") or self.assignment.opens_at
        due = data.get("due_at") or self.assignment.due_at
        if due <= opens:
            self.add_error("due_at", "The due date must be after the opening date.")
        if not any(data.get(name) for name in ("opens_at", "due_at", "time_limit", "max_attempts")):
            raise forms.ValidationError("Change at least one rule for this learner.")
        return data


# --- History ----------------------------------------------------------------------------------

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
        QuestionSet.objects.none(), required=False, empty_label="All sets", label="Set"
    )
    start = _day_field("From")
    end = _day_field("To")

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        # The sets the learner may see now: a private set's title is not listed to anyone else.
        self.fields["question_set"].queryset = QuestionSet.objects.visible_to(user)

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
            attempts = attempts.filter(started_at__gte=start_of_day(data["start"], zone))
        if data.get("end"):
            next_day = start_of_day(data["end"] + timedelta(days=1), zone)
            attempts = attempts.filter(started_at__lt=next_day)
        return attempts


# --- Dashboard ---------------------------------------------------------------------------------

class ExamForm(forms.ModelForm):
    exam_date = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), label="Exam date")
    target_retention = PercentField(
        label="Exam target (%)", help_text="The share of your bank to recall on exam day, from 70 to 97.",
    )

    class Meta:
        model = User
        fields = ("exam_date", "target_retention")


class MockExamForm(forms.Form):
    """A mock exam's rules: how many questions, how long, the pass mark (defaults in settings)."""

    questions = forms.IntegerField(min_value=1, max_value=200, label="Questions")
    minutes = forms.IntegerField(min_value=1, max_value=600, label="Time limit (minutes)")
    pass_percent = forms.IntegerField(min_value=1, max_value=100, label="Pass mark (%)")


class ExamBlueprintForm(MockExamForm):
    """A class's mock exam: the rules, and a weight (0-100) per topic of the instructor's bank.
    Leaving every weight at 0 draws in proportion to the bank, as a learner's own exam does."""

    def __init__(self, *args, topics, **kwargs):
        super().__init__(*args, **kwargs)
        self.topics = list(topics)
        for topic in self.topics:
            self.fields[self.weight_field(topic)] = forms.IntegerField(
                min_value=0, max_value=100, required=False, label=f"Weight of “{topic.name}”"
            )

    @staticmethod
    def weight_field(topic):
        return f"topic_{topic.pk}"

    def weight_fields(self):
        return [self[self.weight_field(topic)] for topic in self.topics]

    def topic_weights(self):
        weights = {str(t.pk): self.cleaned_data.get(self.weight_field(t)) or 0 for t in self.topics}
        return {topic: weight for topic, weight in weights.items() if weight}


class LibrarySearchForm(forms.Form):
    """The library's search: text to find in a set's or deck's title or its items' topics."""

    q = forms.CharField(max_length=100, required=False, strip=True, label="Search by name or topic")
