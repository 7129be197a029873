"""Study content: reading documents into the database and exporting it as JSON.

Everything still lives in `sync`, moved here unchanged from quiz/importer.py; the following
commits split it by responsibility. Callers import from the package, not its modules.
"""

from .documents import ContentError
from .export import export_content, export_json
from .reading import parse_document, read_document
from .sync import import_documents
