"""Checking a launch. pylti1p3 checks the state against the login that started it, the id_token's
signature against the platform's key set, its issuer and audience (a registered client), expiry,
that the nonce was issued, the deployment, the message type and version and their claims. This
adds what a bad or replayed launch must not get past: a deployment the administrator did not
register is refused (django-lti would record it, inactive: a write), an id_token is accepted once
(its nonce kept, LtiNonce), and only while fresh."""

from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone
from lti_tool.models import LtiDeployment, LtiLaunch
from lti_tool.utils import DjangoToolConfig
from pylti1p3.contrib.django import DjangoCacheDataStorage, DjangoMessageLaunch
from pylti1p3.deployment import Deployment
from pylti1p3.exception import LtiException

from ..models import LtiNonce

# An id_token issued longer ago than this is refused, whatever its own expiry says: its nonce is
# kept this long, so a replay is always found.
MAX_AGE = timedelta(hours=1)
NONCES_KEPT = timedelta(days=1)
LAUNCHES = DjangoCacheDataStorage  # where pylti1p3 keeps checked launches: the site's cache, shared by its servers


class RegisteredDeploymentsOnly(DjangoToolConfig):
    """django-lti's tool configuration, except for a deployment id the administrator did not
    register (or switched off): refused, not recorded."""

    def find_deployment(self, iss, deployment_id):
        return self._registered(registration__issuer=iss, deployment_id=deployment_id)

    def find_deployment_by_params(self, iss, deployment_id, client_id, *args, **kwargs):
        return self._registered(registration__issuer=iss, registration__client_id=client_id, deployment_id=deployment_id)

    def _registered(self, **lookups):
        if self.registration_uuid is not None:
            lookups["registration__uuid"] = self.registration_uuid
        self.deployment = LtiDeployment.objects.filter(registration__is_active=True, is_active=True, **lookups).first()
        return Deployment().set_deployment_id(self.deployment.deployment_id) if self.deployment else None


def validated_launch(request):
    """The LtiLaunch of the id_token `request` posts, checked; raises LtiException saying what
    is wrong. Writes nothing."""
    message_launch = DjangoMessageLaunch(request, RegisteredDeploymentsOnly(), launch_data_storage=LAUNCHES())
    message_launch.validate()
    launch = LtiLaunch(message_launch)
    issued_at = launch.get_claim("iat")
    if not isinstance(issued_at, (int, float)) or issued_at < (timezone.now() - MAX_AGE).timestamp():
        raise LtiException("the launch is too old: start it again from the course")
    return launch


def stored_launch(request, launch_id):
    """The launch `launch_id`, as pylti1p3 kept it when validated_launch checked it (a day)."""
    return DjangoMessageLaunch.from_cache(launch_id, request, RegisteredDeploymentsOnly(), launch_data_storage=LAUNCHES())


def use_nonce(launch, *, now=None):
    """Keep the launch's nonce (in the caller's transaction); raises LtiException when it was
    used already: the same launch posted twice."""
    now = now or timezone.now()
    LtiNonce.objects.filter(used_at__lt=now - NONCES_KEPT).delete()
    try:
        with transaction.atomic():
            LtiNonce.objects.create(issuer=launch.get_claim("iss"), nonce=launch.get_claim("nonce"), used_at=now)
    except IntegrityError:
        raise LtiException("this launch was used already: start it again from the course") from None
