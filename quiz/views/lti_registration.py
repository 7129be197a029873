"""LTI Dynamic Registration: the page a platform opens, from a link staff made on the configuration
page, to register the tool by itself (quiz.lti.registration says who may and what is checked).

The view is django-lti-dynamic-registration's DynamicRegistrationBaseView with each of its steps
overridden where the add-on's would not do here: its HTTP calls have no timeout and follow
redirects (an administrator's page would hang on a silent platform), its configuration check
reads the issuer without checking the addresses, it prints the platform's errors instead of
showing them, it saves the registration before the platform has answered (a failed exchange left
a registration behind), it drops the deployment id the platform answers with, and its success
page is an inline script, which this site's Content-Security-Policy blocks."""

from csp.decorators import csp_replace
from django.shortcuts import render
from django.views.decorators.clickjacking import xframe_options_exempt
from django.views.decorators.http import require_GET
from lti_dynamic_registration.views import DynamicRegistrationBaseView
from lti_tool.models import LtiRegistration

from quiz.lti import registration as dr

from .lti import _refused


class DynamicRegistration(DynamicRegistrationBaseView):
    """GET only: a HEAD (a link checker, a preview) must not register anything."""

    http_method_names = ["get"]
    tool_friendly_name = dr.TOOL_NAME

    def get(self, request, token):
        try:
            link = dr.opened_link(token)
            configuration = self.get_openid_config()
            registration = self.register_platform_in_tool(dr.platform_name(configuration), configuration)
            client_id, deployment_id = self.register_tool_in_platform(
                configuration, dr.tool_registration(request, registration))
            dr.record(registration, client_id=client_id, deployment_id=deployment_id, link=link)
        except dr.RegistrationRefused as error:
            return self.framed(_refused(request, str(error)), token)
        return self.framed(self.success_response(registration, deployment_id), token)

    def get_openid_config(self):
        """The platform's OpenID configuration, read with the registration token (when the
        platform gave one) and checked (quiz.lti.registration.checked_configuration)."""
        url = self.request.GET.get("openid_configuration")
        if not url:
            raise dr.RegistrationRefused(
                "this link is for your LMS's LTI Dynamic Registration: give it to the LMS "
                "(Moodle: Manage tools, Tool URL; Canvas: Developer Keys, LTI Registration), do not open it yourself")
        dr.platform_address(url, "configuration URL")
        configuration = dr.exchange("GET", url, token=self.registration_token, what="OpenID configuration")
        return dr.checked_configuration(url, configuration)

    def register_platform_in_tool(self, consumer_name, openid_config):
        """The platform's registration, NOT saved: the add-on saves it here, with a temporary client
        id, so that its UUID (in the login initiation URL the platform is told) exists before the
        platform answers. A UUID is made on the instance without saving it; the registration is
        saved with the platform's client id once it has answered (quiz.lti.registration.record),
        so a platform that fails leaves nothing behind and no database transaction is held open
        while it answers."""
        return LtiRegistration(
            name=consumer_name,
            issuer=openid_config["issuer"],
            auth_url=openid_config["authorization_endpoint"],
            token_url=openid_config["token_endpoint"],
            keyset_url=openid_config["jwks_uri"],
            audience=openid_config.get("authorization_server") or "",
            client_id="temporary-until-the-platform-answers",
            is_active=False,
        )

    def register_tool_in_platform(self, openid_config, tool_platform_registration):
        """The tool's registration posted to the platform's registration endpoint; returns the
        client id and the deployment id (None when the platform gives none) of its answer."""
        answer = dr.exchange("POST", openid_config["registration_endpoint"], token=self.registration_token,
                             what="registration endpoint", json_body=tool_platform_registration.to_dict())
        return dr.registered_ids(answer)

    def success_response(self, registration, deployment_id):
        """The page that tells the platform the registration is over: its script (a static file)
        posts the specification's close message to the window or frame that opened it."""
        context = {"registration": registration, "deployment_id": deployment_id}
        return render(self.request, "lti/registration_done.html", context)

    @property
    def registration_token(self):
        return self.request.GET.get("registration_token") or None

    def framed(self, response, token):
        """The platform shows this page in a frame (Moodle, Canvas) or a window of its own. The
        origin of its configuration URL may frame the answer to an authentic link (expired, used
        or not: the administrator must read why it failed); a made-up link's page is never framed."""
        origin = dr.frame_origin(self.request.GET.get("openid_configuration")) if dr.authentic(token) else None
        if origin is None:
            return response
        framing = xframe_options_exempt(csp_replace({"frame-ancestors": [origin]})(lambda request: response))
        return framing(self.request)


dynamic_registration = require_GET(DynamicRegistration.as_view())
