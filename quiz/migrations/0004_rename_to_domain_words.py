"""Names that say what they mean: an instructor's QuizSet is a QuestionPool, the FSRS log row a
ReviewLog (py-fsrs's own name) and an AttemptQuestion an AttemptSlot. Renames only: every row
stays where it is."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

RENAMED = {"quizset": "questionpool", "quizsetquestion": "poolquestion", "review": "reviewlog",
           "attemptquestion": "attemptslot"}
VERBOSE = {"questionpool": "question pool", "poolquestion": "pool question", "reviewlog": "review log",
           "attemptslot": "attempt slot"}


def rename_permissions(apps, schema_editor):
    """RenameModel renames the content type but not its permissions: carry `change_quizset`
    and the others over to the new names, so users and groups granted them keep their access."""
    Permission = apps.get_model("auth", "Permission")
    holders = [
        (apps.get_model("quiz", "User")._meta.get_field("user_permissions").remote_field.through, "user_id"),
        (apps.get_model("auth", "Group")._meta.get_field("permissions").remote_field.through, "group_id"),
    ]
    for old, new in RENAMED.items():
        for action in ("add", "change", "delete", "view"):
            old_permission = Permission.objects.filter(content_type__app_label="quiz", codename=f"{action}_{old}").first()
            if old_permission is None:
                continue
            new_permission = Permission.objects.filter(content_type__app_label="quiz", codename=f"{action}_{new}").first()
            if new_permission is None:
                old_permission.codename, old_permission.name = f"{action}_{new}", f"Can {action} {VERBOSE[new]}"
                old_permission.save(update_fields=["codename", "name"])
                continue
            # Both exist (post_migrate made the new one earlier): move every grant, drop the old.
            for through, holder in holders:
                for grant in through.objects.filter(permission_id=old_permission.pk):
                    through.objects.get_or_create(**{holder: getattr(grant, holder)}, permission_id=new_permission.pk)
            old_permission.delete()


class Migration(migrations.Migration):
    dependencies = [("quiz", "0003_slot_scheduled_at"), ("auth", "0012_alter_user_first_name_max_length")]

    operations = [
        migrations.RenameModel("QuizSet", "QuestionPool"),
        migrations.RenameModel("QuizSetQuestion", "PoolQuestion"),
        migrations.RenameModel("Review", "ReviewLog"),
        migrations.RenameModel("AttemptQuestion", "AttemptSlot"),
        # The constraint names the old field; SQLite rebuilds the table, so it goes first.
        migrations.RemoveConstraint(model_name="poolquestion", name="quizset_question_unique"),
        migrations.RenameField("poolquestion", "quiz_set", "pool"),
        migrations.RenameField("assignment", "quiz_set", "pool"),
        migrations.RenameIndex("questionpool", new_name="pool_owner", old_name="quizset_owner"),
        migrations.AlterModelOptions(name="poolquestion", options={"ordering": ["pool", "position"]}),
        migrations.AddConstraint(
            model_name="poolquestion",
            constraint=models.UniqueConstraint(fields=("pool", "question"), name="pool_question_unique"),
        ),
        migrations.AlterField(
            model_name="poolquestion",
            name="question",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT, related_name="pool_entries", to="quiz.question"
            ),
        ),
        migrations.AlterField(
            model_name="questionpool",
            name="owner",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="question_pools", to=settings.AUTH_USER_MODEL
            ),
        ),
        migrations.AlterField(
            model_name="user",
            name="is_instructor",
            field=models.BooleanField(default=False, help_text="May create classes, question pools and assignments"),
        ),
        migrations.RunPython(rename_permissions, migrations.RunPython.noop),
    ]
