"""A learner's signed-in devices: the sessions django-qsessions keeps with their user, browser and
address. Settings lists them and signs out any or all others; a password change or reset signs out
the others too.

A device is named on pages by a keyed hash of its session key, never the key itself: a session key
is a password for the session, and pages end up in browser histories and screenshots."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.utils import timezone
from django.utils.crypto import salted_hmac
from qsessions.models import Session

# The session is written at most this often just to say the device was seen (a write on every
# page would cost every page a query); "last seen" is as precise as this.
SEEN_EVERY = timedelta(minutes=5)
SEEN_KEY = "seen"


def device_id(session_key):
    return salted_hmac("quiz.accounts.devices", session_key).hexdigest()[:20]


@dataclass(frozen=True)
class Device:
    id: str
    browser: str
    address: str
    signed_in_at: datetime | None
    last_seen: datetime
    current: bool


def sessions_of(user, *, now=None):
    return Session.objects.filter(user=user, expire_date__gt=now or timezone.now())


def devices_of(user, current_key):
    """The user's live sessions, this one first, then the most recently seen."""
    devices = [
        Device(device_id(session.session_key), session.device or "Unknown browser", session.ip or "unknown",
               session.created_at, session.updated_at, session.session_key == current_key)
        for session in sessions_of(user).only("session_key", "user_agent", "ip", "created_at", "updated_at")
    ]
    return sorted(devices, key=lambda device: (not device.current, -device.last_seen.timestamp()))


def sign_out(user, device, current_key):
    """Sign out one of the user's other devices; False if there is no such device (or it is this one)."""
    for session in sessions_of(user).exclude(session_key=current_key).only("session_key"):
        if device_id(session.session_key) == device:
            Session.objects.filter(pk=session.pk).delete()  # the queryset's delete also clears a cached copy
            return True
    return False


def sign_out_others(user, current_key):
    """Sign out every device but this one; returns how many."""
    count, _ = Session.objects.filter(user=user).exclude(session_key=current_key).delete()
    return count


def sign_out_everywhere(user):
    Session.objects.filter(user=user).delete()


def note_seen(session, *, now=None):
    """Mark the session seen now if the last mark is older than SEEN_EVERY (one write, rarely)."""
    moment = (now or timezone.now()).timestamp()
    if moment - session.get(SEEN_KEY, 0) >= SEEN_EVERY.total_seconds():
        session[SEEN_KEY] = moment
