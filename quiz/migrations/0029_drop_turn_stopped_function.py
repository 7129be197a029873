"""The answer is now one ordinary transaction whose refusals are refused updates, not database
errors, so PostgreSQL's quiz_turn_stopped function (migration 0026) is dropped. Reversing this
migration creates it again, as 0026 did."""

import importlib

from django.db import migrations

created = importlib.import_module("quiz.migrations.0026_turn_stopped_function")


class Migration(migrations.Migration):
    dependencies = [("quiz", "0028_sessions_to_qsessions")]

    operations = [
        migrations.RunPython(created.run_on_postgresql(created.DROP), created.run_on_postgresql(created.CREATE)),
    ]
