from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.views.decorators.http import require_safe


@require_safe
@login_required
def bare(request):
    """What `make bench` sets every page against: a signed-in page that does nothing but read
    its session and user."""
    return HttpResponse("ok", content_type="text/plain")
