"""Responses shared by every view: a page or its HTMX partial, leaving a fragment for a full
page, and the same-site "next" address a form may return to."""

from django.shortcuts import redirect, render
from django.utils.cache import patch_vary_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.http import push_url as push_url_header


def render_page(request, template, partial, context, *, status=200, push_url=None):
    """The whole page, or only its `partial` (a django-template-partials name) for an HTMX request.

    One URL serves both, so the response varies on the HX-Request header: a cache must never
    hand a fragment to a plain page load, or the page to an HTMX swap. `push_url` puts the
    page's own address in the browser's history after a swap (not on errors)."""
    name = f"{template}#{partial}" if request.htmx and partial else template
    response = render(request, name, context, status=status)
    patch_vary_headers(response, ("HX-Request",))
    if request.htmx and push_url and status == 200:
        push_url_header(response, push_url)
    return response


def navigate(request, url):
    """Go to a full page: HTMX must leave the fragment it is swapping and load the page."""
    response = HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    patch_vary_headers(response, ("HX-Request",))
    return response


def safe_next(request, value, default):
    """`value` if it is a path on this site, else `default`. Only paths: `redirect()` would try
    to reverse a bare word as a URL name, and an outside address would be an open redirect."""
    if value and value.startswith("/") and url_has_allowed_host_and_scheme(value, allowed_hosts={request.get_host()}):
        return value
    return default
