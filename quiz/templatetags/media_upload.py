"""The editor's "Add an image" form (templates/library/_media_upload.html)."""

from django import template

from quiz.editor.images import ImageForm

register = template.Library()


@register.simple_tag(takes_context=True)
def image_form(context):
    """The form the page was given (refused, with its errors), else an empty one for the item,
    its ids apart from those of any other editor open on the page."""
    form = context.get("image_form") or ImageForm(item=context["item"])
    form.auto_id = f"{context.get('editor_id', 'editor')}-image-%s"
    return form
