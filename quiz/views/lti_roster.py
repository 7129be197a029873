"""A class's roster from its LMS course (Names and Role Provisioning Services): synced on demand."""

from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from .access import instructor_required, own_classroom_or_404


@require_POST
@instructor_required
def sync_roster(request, classroom_id):
    classroom = own_classroom_or_404(request, classroom_id)
    return redirect(classroom)  # to be built: quiz.lti.roster
