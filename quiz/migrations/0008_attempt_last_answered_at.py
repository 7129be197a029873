"""The time of an attempt's last answer, kept on the attempt so the answer path need not
count it from the slots."""

from django.db import migrations, models
from django.db.models import Max, OuterRef, Subquery


def fill_from_the_slots(apps, schema_editor):
    """Attempts answered before this column existed: their last answer's time, from the slots."""
    Attempt = apps.get_model("quiz", "Attempt")
    Slot = apps.get_model("quiz", "AttemptSlot")
    last = Slot.objects.filter(attempt=OuterRef("pk")).order_by().values("attempt").annotate(last=Max("answered_at"))
    Attempt.objects.update(last_answered_at=Subquery(last.values("last")[:1]))


class Migration(migrations.Migration):

    dependencies = [
        ('quiz', '0007_one_open_attempt_per_purpose'),
    ]

    operations = [
        migrations.AddField(
            model_name='attempt',
            name='last_answered_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(fill_from_the_slots, migrations.RunPython.noop),
    ]
