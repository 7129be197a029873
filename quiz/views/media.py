"""Images of sets and decks, served only to those who may see them."""

from django.http import Http404


def media_file(request, name):
    raise Http404  # built in quiz.content.media
