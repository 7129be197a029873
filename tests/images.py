"""Images made in code for the tests of quiz.content.media: real files of each format, and the
ones the checks must refuse."""

import io

from PIL import Image

from quiz.content.media import save_image


def image_bytes(format="PNG", size=(8, 6), color=(200, 30, 30), mode="RGB", **options):
    buffer = io.BytesIO()
    Image.new(mode, size, color).save(buffer, format, **options)
    return buffer.getvalue()


def exif_with_gps():
    """EXIF naming a camera and a GPS position, turned a quarter (orientation 6)."""
    exif = Image.Exif()
    exif[0x010F] = "Secret Camera Co"
    exif[0x0112] = 6
    exif[0x8825] = {1: "N", 2: (48.0, 51.0, 29.0), 3: "E", 4: (2.0, 17.0, 40.0)}
    return exif.tobytes()


def make_image(container, alt="A red square", **options):
    """A stored image (MediaFile) of a set or deck."""
    return save_image(container, image_bytes(**options), alt)
