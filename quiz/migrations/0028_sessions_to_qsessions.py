"""Sessions move from the app's own table (quiz.UserSession) to django-qsessions', which names
the user the same way. Every unexpired session comes along as it is, so nobody is signed out by
the upgrade; the session data needs no change (both engines' stores are named SessionStore,
which is what Django signs the data with)."""

from itertools import islice

from django.db import migrations
from django.utils import timezone

BATCH = 2000


def move_sessions(apps, schema_editor):
    UserSession = apps.get_model("quiz", "UserSession")
    Session = apps.get_model("qsessions", "Session")
    rows = UserSession.objects.filter(expire_date__gt=timezone.now()).order_by("pk").iterator(chunk_size=BATCH)
    now = timezone.now()
    while batch := list(islice(rows, BATCH)):
        Session.objects.bulk_create(
            Session(session_key=row.session_key, session_data=row.session_data, expire_date=row.expire_date,
                    user_id=row.user_id, created_at=now, updated_at=now)
            for row in batch
        )


def move_sessions_back(apps, schema_editor):
    UserSession = apps.get_model("quiz", "UserSession")
    Session = apps.get_model("qsessions", "Session")
    rows = Session.objects.order_by("pk").iterator(chunk_size=BATCH)
    while batch := list(islice(rows, BATCH)):
        UserSession.objects.bulk_create(
            UserSession(session_key=row.session_key, session_data=row.session_data, expire_date=row.expire_date,
                        user_id=row.user_id)
            for row in batch
        )
    Session.objects.all().delete()


class Migration(migrations.Migration):

    dependencies = [
        ("quiz", "0027_memory_question_first"),
        ("qsessions", "0002_session_created_at"),
    ]

    operations = [
        migrations.RunPython(move_sessions, move_sessions_back),
        migrations.DeleteModel(name="UserSession"),
    ]
