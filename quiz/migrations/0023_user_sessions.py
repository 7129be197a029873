"""Sessions move to quiz.UserSession, whose row names its user. The sessions of the old table
come along, so no one is signed out by the upgrade."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.utils import timezone


def copy_sessions(apps, schema_editor):
    from django.contrib.auth import SESSION_KEY
    from django.contrib.sessions.backends.base import SessionBase

    OldSession = apps.get_model("sessions", "Session")
    UserSession = apps.get_model("quiz", "UserSession")
    user_ids = set(apps.get_model("quiz", "User").objects.values_list("pk", flat=True))
    codec = SessionBase()
    batch = []
    for old in OldSession.objects.filter(expire_date__gt=timezone.now()).iterator(chunk_size=2000):
        user_id = codec.decode(old.session_data).get(SESSION_KEY)
        known = user_id is not None and str(user_id).isdigit() and int(user_id) in user_ids
        batch.append(UserSession(session_key=old.session_key, session_data=old.session_data,
                                 expire_date=old.expire_date, user_id=int(user_id) if known else None))
        if len(batch) == 2000:
            UserSession.objects.bulk_create(batch)
            batch = []
    UserSession.objects.bulk_create(batch)


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
        migrations.RunPython(copy_sessions, migrations.RunPython.noop),
    ]
