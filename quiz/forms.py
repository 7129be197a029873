from django import forms
from django.contrib.auth.forms import UserCreationForm

from .models import Attempt, Choice, User


class SignUpForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)


class StartAttemptForm(forms.Form):
    feedback = forms.ChoiceField(choices=Attempt.Feedback.choices, required=False)

    def clean_feedback(self):
        return self.cleaned_data["feedback"] or Attempt.Feedback.IMMEDIATE


class AnswerForm(forms.Form):
    """Validates a submitted choice against the slot and converts it to the Choice row.

    Only the choices this slot showed are accepted, so a choice id from another question
    (or made up) is a validation error, never an answer.
    """

    choice = forms.TypedChoiceField(coerce=int, error_messages={"required": "Pick one of the choices."})

    def __init__(self, slot, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.slot = slot
        self.fields["choice"].choices = [(pk, pk) for pk in slot.choice_order]

    def clean_choice(self):
        choice_id = self.cleaned_data["choice"]
        for choice in self.slot.question.choices.all():
            if choice.pk == choice_id:
                return choice
        raise forms.ValidationError("That choice is no longer part of this question.")
