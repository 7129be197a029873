"""Give a user the instructor role (or take it back), so they can run classes.

Instructors are ordinary accounts with a flag: they keep their own study history."""

from django.core.management.base import BaseCommand, CommandError

from quiz.models import User


class Command(BaseCommand):
    help = "Grant (or with --revoke, remove) the instructor role for USERNAME."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--revoke", action="store_true", help="remove the role instead")

    def handle(self, *args, username, revoke, **options):
        user = User.objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No user named {username!r}.")
        user.is_instructor = not revoke
        user.save(update_fields=["is_instructor"])
        verb = "is no longer" if revoke else "is now"
        self.stdout.write(f"{username} {verb} an instructor.")
