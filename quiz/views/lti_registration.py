"""LTI Dynamic Registration (quiz.lti.registration): to be built."""

from django.views.decorators.http import require_safe

from .lti import _refused


@require_safe
def dynamic_registration(request, token):
    return _refused(request, "this registration link does not work")
