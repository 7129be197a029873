"""Deep linking: from the LMS's "add an activity" picker, an instructor chooses what the link opens
here: an assignment made from one of their pools (with its rules) in the course's class, a question
set to practise, or a deck. The LMS gets one LTI resource link back (a JWT signed with the tool's
key, which the LMS checks against its key set); launching it later opens that thing straight away.

The link names what it opens in its custom parameters, which the LMS sends back in every launch
(signed by the LMS): `assignment`, `set` or `deck`, an id here. They are checked at each launch
(targets.py): an assignment only in the class of the course it is launched from, a set or deck
only if the learner may see it. An assignment's link also asks the LMS for a gradebook column
(a line item, scored out of 100) and for the dates the LMS gives it: `available` and `due` are
LTI substitution variables that the LMS fills in at each launch.
"""

from pylti1p3.deep_link_resource import DeepLinkResource
from pylti1p3.lineitem import LineItem

from ..models import Deck, QuestionSet
from .launches import stored_launch

# What the LMS puts in the link's custom parameters at each launch: the activity's dates there.
DATE_VARIABLES = {"available": "$ResourceLink.available.startDateTime", "due": "$ResourceLink.submission.endDateTime"}
SCORE_MAXIMUM = 100
DEEP_LINKING_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"


def practice_choices(user):
    """([QuestionSet], [Deck]) the instructor may link for practice: those they may see, by title."""
    sets = QuestionSet.objects.visible_to(user).order_by("title", "pk").only("pk", "title")[:500]
    decks = Deck.objects.visible_to(user).order_by("title", "pk").only("pk", "title")[:500]
    return list(sets), list(decks)


def assignment_link(assignment, launch_url):
    item = LineItem().set_label(assignment.title).set_score_maximum(SCORE_MAXIMUM)
    item.set_resource_id(f"assignment-{assignment.pk}")
    return (DeepLinkResource().set_url(launch_url).set_title(assignment.title)
            .set_custom_params({"assignment": str(assignment.pk), **DATE_VARIABLES}).set_lineitem(item))


def practice_link(kind, container, launch_url):
    return DeepLinkResource().set_url(launch_url).set_title(container.title).set_custom_params({kind: str(container.pk)})


def response(request, launch_id, resources):
    """(the LMS's deep-link return URL, the signed response JWT) for `resources`."""
    stored = stored_launch(request, launch_id)
    settings = stored.get_launch_data()[DEEP_LINKING_SETTINGS]
    return settings["deep_link_return_url"], stored.get_deep_link().get_response_jwt(resources)
