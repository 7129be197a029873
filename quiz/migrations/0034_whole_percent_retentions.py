from django.db import migrations
from django.db.models import F
from django.db.models.functions import Round


def round_to_whole_percents(apps, schema_editor):
    """Retentions are typed as whole percentages now (quiz.forms.PercentField), which shows 0.875
    as 88: round them once, so the next unrelated save of Settings does not change one silently."""
    User = apps.get_model("quiz", "User")
    User.objects.update(
        desired_retention=Round(F("desired_retention"), 2), target_retention=Round(F("target_retention"), 2)
    )


class Migration(migrations.Migration):
    dependencies = [("quiz", "0033_one_retention_range")]

    operations = [migrations.RunPython(round_to_whole_percents, migrations.RunPython.noop)]
