"""Names that say what they mean: an instructor's QuizSet is a QuestionPool, the FSRS log row a
ReviewLog (py-fsrs's own name) and an AttemptQuestion an AttemptSlot. Renames only: every row
stays where it is."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("quiz", "0003_slot_scheduled_at")]

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
    ]
