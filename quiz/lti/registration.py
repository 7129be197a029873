"""LTI Dynamic Registration: a platform registers the tool by itself, from a link the site's staff
creates on the configuration page. To be built."""


def registration_link(request):
    """The dynamic registration link staff give a platform's administrator, or None."""
    return None
