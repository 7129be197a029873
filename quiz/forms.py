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
