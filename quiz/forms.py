from zoneinfo import available_timezones

from django import forms
from django.contrib.auth.forms import UserCreationForm

from .models import Attempt, User


class SignUpForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)


class StartAttemptForm(forms.Form):
    feedback = forms.ChoiceField(choices=Attempt.Feedback.choices, required=False)

    def clean_feedback(self):
        return self.cleaned_data["feedback"] or Attempt.Feedback.IMMEDIATE


class AnswerForm(forms.Form):
    """Validates the number of the choice picked, as shown on screen (1, 2, 3...).

    Numbers rather than database ids: ids follow the source document's order and would undo
    the shuffle. Anything but a shown number is a validation error, never an answer.
    """

    choice = forms.TypedChoiceField(coerce=int, error_messages={"required": "Pick one of the choices."})

    def __init__(self, slot, *args, **kwargs):
        super().__init__(*args, **kwargs)
        numbers = range(1, len(slot.shown_choices) + 1)
        self.fields["choice"].choices = [(number, number) for number in numbers]


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


class ReviewAnswerForm(forms.Form):
    """A due question answered in a review session: the number of the choice as shown."""

    item = forms.IntegerField(min_value=1)
    choice = forms.TypedChoiceField(coerce=int, error_messages={"required": "Pick one of the choices."})

    def __init__(self, *args, choice_count, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["choice"].choices = [(n, n) for n in range(1, choice_count + 1)]


class DrillAnswerForm(forms.Form):
    item = forms.IntegerField(min_value=1)
    answer = forms.ChoiceField(choices=[("myth", "Myth"), ("fact", "Fact")])


def time_zone_choices():
    return [(name, name.replace("_", " ")) for name in sorted(available_timezones())]


class StudySettingsForm(forms.ModelForm):
    time_zone = forms.ChoiceField(choices=time_zone_choices, help_text="Daily limits reset at your midnight.")
    new_cards_per_day = forms.IntegerField(min_value=0, max_value=9999, label="New cards per day")

    class Meta:
        model = User
        fields = ("time_zone", "new_cards_per_day")


class JoinClassForm(forms.Form):
    code = forms.CharField(max_length=16, label="Class code")

    def clean_code(self):
        from .models import Classroom

        code = self.cleaned_data["code"].strip().upper().replace(" ", "").replace("-", "")
        classroom = Classroom.objects.filter(join_code=code).first()
        if classroom is None:
            raise forms.ValidationError("No class has that code. Check it with your instructor.")
        return classroom
