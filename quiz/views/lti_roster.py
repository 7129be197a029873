"""A class's roster from its LMS course (Names and Role Provisioning Services): synced on demand."""

from django.contrib import messages
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from quiz.lti import roster

from .access import instructor_required, own_classroom_or_404


@require_POST
@instructor_required
def sync_roster(request, classroom_id):
    """Sync the class's roster from its LMS course now (quiz.lti.roster), back to the class's page
    with what came, or why nothing did."""
    classroom = own_classroom_or_404(request, classroom_id)
    try:
        synced = roster.sync_roster(classroom)
    except roster.NotLinked as error:
        messages.error(request, str(error))
    except roster.RosterError as error:
        messages.error(request, f"The roster was not synced: {error}. Nothing was changed.")
    else:
        messages.success(request, f"{synced}.")
    return redirect(classroom)
