"""Reminder switches in Settings, and the one-click unsubscribe link every reminder carries."""

from django.http import Http404


def reminder_settings(request):
    raise Http404  # built in quiz.accounts.reminders


def unsubscribe(request, token):
    raise Http404
