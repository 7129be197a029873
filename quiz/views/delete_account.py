"""'Delete my account', and handing a class over to another instructor before it."""

from django.http import Http404


def delete_account(request):
    raise Http404


def hand_over_class(request, classroom_id):
    raise Http404
