"""Give the LTI tool its first signing key, if it has none (make run and make serve call this).

Platforms fetch the tool's public keys from /.well-known/jwks.json to check what it signs (grade
and roster requests, deep-linking answers). Rotate them with django-lti's `manage.py rotate_keys`
(monthly, say): it adds a key that signs from then on and switches off keys older than a week,
which stay published until then, so what a platform is checking meanwhile still verifies.
"""

from django.core.management.base import BaseCommand
from lti_tool.models import Key


class Command(BaseCommand):
    help = "Create the LTI tool's first signing key if it has no active one."

    def handle(self, *args, **options):
        if Key.objects.active().exists():
            self.stdout.write("The LTI tool has its signing key.")
            return
        key = Key.objects.generate()
        self.stdout.write(f"Created the LTI tool's signing key {key}.")
