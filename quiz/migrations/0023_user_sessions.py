"""Sessions move to quiz.UserSession, whose row names its user. The sessions of the old table
come along, so no one is signed out by the upgrade."""

from itertools import islice

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.utils import timezone

BATCH = 2000


def move_sessions(apps, schema_editor):
    """Unexpired sessions move to the new table, each naming its user; the old table is emptied
    (moved, not copied: a rollback must not bring back a session signed out since)."""
    from django.contrib.auth import SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    codec = SessionStore()  # signs with the salt the sessions were saved with (its class name)
    OldSession = apps.get_model("sessions", "Session")
    UserSession = apps.get_model("quiz", "UserSession")
    User = apps.get_model("quiz", "User")
    rows = OldSession.objects.filter(expire_date__gt=timezone.now()).order_by("pk").iterator(chunk_size=BATCH)
    while batch := list(islice(rows, BATCH)):
        named = {old.pk: codec.decode(old.session_data).get(SESSION_KEY) for old in batch}
        ids = {int(value) for value in named.values() if str(value).isdigit()}
        existing = {str(pk) for pk in User.objects.filter(pk__in=ids).values_list("pk", flat=True)}
        UserSession.objects.bulk_create(
            UserSession(
                session_key=old.session_key, session_data=old.session_data, expire_date=old.expire_date,
                user_id=int(named[old.pk]) if named[old.pk] is not None else None,
            )
            for old in batch
            # A session signed in to an account that is gone (or unreadable) signs no one in: dropped.
            if named[old.pk] is None or str(named[old.pk]) in existing
        )
    OldSession.objects.all().delete()


def move_sessions_back(apps, schema_editor):
    OldSession = apps.get_model("sessions", "Session")
    rows = apps.get_model("quiz", "UserSession").objects.order_by("pk").iterator(chunk_size=BATCH)
    while batch := list(islice(rows, BATCH)):
        OldSession.objects.bulk_create(
            OldSession(session_key=row.session_key, session_data=row.session_data, expire_date=row.expire_date)
            for row in batch
        )


class Migration(migrations.Migration):

    dependencies = [
        ('quiz', '0022_attemptslot_flagged'),
        ('sessions', '0001_initial'),
    ]

    operations = [
        migrations.CreateModel(
            name='UserSession',
            fields=[
                ('session_key', models.CharField(max_length=40, primary_key=True, serialize=False, verbose_name='session key')),
                ('session_data', models.TextField(verbose_name='session data')),
                ('expire_date', models.DateTimeField(db_index=True, verbose_name='expire date')),
                ('user', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='sessions', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'session',
                'verbose_name_plural': 'sessions',
                'abstract': False,
            },
        ),
        migrations.RunPython(move_sessions, move_sessions_back),
    ]
