"""'Download my data': one streamed archive of everything the app keeps about the learner."""

from django.contrib.auth.decorators import login_required
from django.http import StreamingHttpResponse
from django.utils import timezone
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_GET

from quiz.accounts.export import archive, file_name
from quiz.study.catch_up import catch_up_learner


# GET only: a HEAD would cost the server the whole archive for headers alone.
@require_GET
@login_required
def download_my_data(request):
    """The signed-in learner's archive (`quiz.accounts.export`), written as it downloads."""
    now = timezone.now()
    catch_up_learner(request.user, now=now)  # an attempt whose time ran out is saved as finished, with its score
    response = StreamingHttpResponse(
        archive(request.user, now=now, current_session_key=request.session.session_key), content_type="application/zip"
    )
    response["Content-Disposition"] = content_disposition_header(True, file_name(request.user, now))
    return response
