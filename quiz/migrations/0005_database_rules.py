"""The database holds the rules: check constraints on answers, ratings, scores, overrides and
the target retention; no single-column index a composite one already leads with; default
orderings without joins; a partial index for answers pending release.

Rows that the old admin let through would make a new check fail, so they are mended first,
each in the way that keeps what a learner did: a target retention is brought into its range,
an override whose due date is not after its opening keeps its due date and drops the opening,
a score above the question count is capped, an answer recorded in part is completed from its
slot (or, with no pick at all, left unanswered), and a rating outside 1-4 becomes the nearest.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models
from django.db.models import F, Q


def mend_rows_the_checks_would_refuse(apps, schema_editor):
    User = apps.get_model("quiz", "User")
    User.objects.filter(target_retention__lt=0.7).update(target_retention=0.7)
    User.objects.filter(target_retention__gt=0.99).update(target_retention=0.99)
    Override = apps.get_model("quiz", "AssignmentOverride")
    Override.objects.filter(opens_at__isnull=False, due_at__isnull=False, due_at__lte=F("opens_at")).update(opens_at=None)
    Attempt = apps.get_model("quiz", "Attempt")
    Attempt.objects.filter(correct_count__gt=F("question_count")).update(correct_count=F("question_count"))
    Slot = apps.get_model("quiz", "AttemptSlot")
    partial = Q(answered_at__isnull=True) | Q(chosen_index__isnull=True) | Q(is_correct__isnull=True)
    answered = Q(answered_at__isnull=False) | Q(chosen_index__isnull=False) | Q(is_correct__isnull=False)
    for slot in Slot.objects.filter(partial & answered).select_related("attempt"):
        if slot.chosen_index is None or not 1 <= slot.chosen_index <= len(slot.shown_choices):
            slot.answered_at = slot.is_correct = slot.chosen_index = None
        else:
            slot.is_correct = bool(slot.shown_choices[slot.chosen_index - 1].get("correct"))
            slot.answered_at = slot.answered_at or slot.attempt.finished_at or slot.attempt.started_at
        slot.save(update_fields=["answered_at", "is_correct", "chosen_index"])
    for model, field in (("ReviewLog", "rating"), ("MemoryState", "last_rating")):
        rows = apps.get_model("quiz", model).objects
        rows.filter(**{f"{field}__lt": 1}).update(**{field: 1})
        rows.filter(**{f"{field}__gt": 4}).update(**{field: 4})


class Migration(migrations.Migration):

    dependencies = [
        ('auth', '0012_alter_user_first_name_max_length'),
        ('quiz', '0004_rename_to_domain_words'),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='attemptslot',
            options={'ordering': ['attempt_id', 'position']},
        ),
        migrations.AlterModelOptions(
            name='card',
            options={'ordering': ['deck_id', 'position']},
        ),
        migrations.AlterModelOptions(
            name='choice',
            options={'ordering': ['question_id', 'position']},
        ),
        migrations.AlterModelOptions(
            name='enrollment',
            options={'ordering': ['classroom_id', 'pk']},
        ),
        migrations.AlterModelOptions(
            name='poolquestion',
            options={'ordering': ['pool_id', 'position']},
        ),
        migrations.AlterModelOptions(
            name='question',
            options={'ordering': ['question_set_id', 'position']},
        ),
        migrations.AlterField(
            model_name='attempt',
            name='user',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='attempts', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AlterField(
            model_name='memorystate',
            name='user',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='memories', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AlterField(
            model_name='reviewlog',
            name='memory',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='reviews', to='quiz.memorystate'),
        ),
        migrations.AlterField(
            model_name='reviewlog',
            name='user',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='reviews', to=settings.AUTH_USER_MODEL),
        ),
        migrations.RunPython(mend_rows_the_checks_would_refuse, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name='attempt',
            index=models.Index(condition=models.Q(('deadline__isnull', False), ('finished_at__isnull', True)), fields=['user', 'deadline'], name='attempt_open_timed'),
        ),
        migrations.AddIndex(
            model_name='attemptslot',
            index=models.Index(condition=models.Q(('answered_at__isnull', False), ('scheduled_at__isnull', True)), fields=['attempt'], name='slot_pending_release'),
        ),
        migrations.AddConstraint(
            model_name='assignmentoverride',
            constraint=models.CheckConstraint(condition=models.Q(('opens_at__isnull', True), ('due_at__isnull', True), ('due_at__gt', models.F('opens_at')), _connector='OR'), name='override_due_after_open'),
        ),
        migrations.AddConstraint(
            model_name='attempt',
            constraint=models.CheckConstraint(condition=models.Q(('correct_count__lte', models.F('question_count'))), name='attempt_score_within_count'),
        ),
        migrations.AddConstraint(
            model_name='attemptslot',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('answered_at__isnull', True), ('chosen_index__isnull', True), ('is_correct__isnull', True)), models.Q(('answered_at__isnull', False), ('chosen_index__isnull', False), ('is_correct__isnull', False)), _connector='OR'), name='slot_answer_complete'),
        ),
        migrations.AddConstraint(
            model_name='memorystate',
            constraint=models.CheckConstraint(condition=models.Q(('last_rating__isnull', True), models.Q(('last_rating__gte', 1), ('last_rating__lte', 4)), _connector='OR'), name='memory_last_rating_range'),
        ),
        migrations.AddConstraint(
            model_name='reviewlog',
            constraint=models.CheckConstraint(condition=models.Q(('rating__gte', 1), ('rating__lte', 4)), name='review_rating_range'),
        ),
        migrations.AddConstraint(
            model_name='user',
            constraint=models.CheckConstraint(condition=models.Q(('target_retention__gte', 0.7), ('target_retention__lte', 0.99)), name='user_target_retention_range'),
        ),
    ]
