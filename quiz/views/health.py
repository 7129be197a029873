"""The health check a load balancer or an uptime monitor polls (200 when this server can reach
its database, 503 when it cannot), and the two pages `make bench` sets the others against: the
bare page, and the answer's floor."""

from django.contrib.auth.decorators import login_required
from django.db import DatabaseError, connection
from django.http import HttpResponse, HttpResponseBadRequest, HttpResponseRedirect, JsonResponse
from django.utils import timezone
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST, require_safe

from quiz.lib.answer_floor import write_answer_floor
from quiz.lib.prepared import LARGEST


@require_safe
@never_cache
def health(request):
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        return JsonResponse({"status": "database unreachable"}, status=503)
    return JsonResponse({"status": "ok"})


@require_safe
@login_required
def bare(request):
    """The yardstick of `make bench`: a signed-in page that does nothing (session and user
    only). Mounted only when DJANGO_BENCHMARK is on."""
    return HttpResponse("ok", content_type="text/plain")


@require_POST
@login_required
def answer_floor(request, attempt_id, position):
    """What `make bench` sets the answer against: the same signed-in POST (its CSRF check
    included) making the rows an answer writes, with fixed values and nothing else: no read of
    the slot, no form, no FSRS, no ORM, plain SQL. It writes less than an answer (no chosen
    choice, never the attempt's score at its last question), so no answer that keeps what it
    writes can cost less: its ratio to the bare page is a ceiling for the answer's. Mounted
    only when DJANGO_BENCHMARK is on; it writes real rows, so only into a benchmark's database."""
    beyond = max(attempt_id, position) > LARGEST  # an id no column holds: an error in the database
    if beyond or not write_answer_floor(attempt_id, position, request.user.pk, timezone.now()):
        return HttpResponseBadRequest("No open question at that position of your open attempt.")
    return HttpResponseRedirect(request.path)
