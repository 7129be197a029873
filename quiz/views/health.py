"""The health check a load balancer or an uptime monitor polls (200 when this server can reach
its database, 503 when it cannot), and the bare page `make bench` compares every page with."""

from django.contrib.auth.decorators import login_required
from django.db import DatabaseError, connection
from django.http import HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe


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
