"""The health check a load balancer or an uptime monitor polls: 200 when this server can reach
its database, 503 when it cannot."""

from django.db import DatabaseError, connection
from django.http import JsonResponse
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
