"""Study content: reading quiz, flashcard, export and other tools' documents into the database, and writing
the database back out as JSON.

Nine document formats, told apart by their content rather than their file name:

* a quiz (quiz_format.py): a title line, then blocks of `Question N: stem`, `- choice` lines
  (one ending in `(Correct answer)`, in any letter case), a `Correct answer: ...` line, one
  explanation line and, optionally, a `Topics: a, b` line. A document is a quiz when a
  `Question N:` line is followed by a choice line, so a flashcard whose front happens to
  start with "Question 1:" stays a flashcard;
* a flashcard deck (deck_format.py): a title paragraph, then blank-line separated paragraphs
  in groups of four (question, answer, misconception, correction); a question paragraph may
  start with a `Topics: a, b` line;
* an export file (json_format.py): the JSON that export.py writes, which may hold many sets
  and decks;
* the formats people already have: Moodle GIFT (gift_format.py), Moodle XML
  (moodle_xml_format.py) and Aiken (aiken_format.py) quizzes, CSV/TSV tables with a header row (tabular_format.py) and Anki plain-text exports
  (anki_format.py). What they cannot hold is skipped with a warning naming its line;
* Anki packages (apkg_format.py): a .apkg or .colpkg, a zip told by its bytes and read by Anki's
  own code in a child process (apkg_reader.py), one deck per Anki deck, cards keyed by note guid
  and card ordinal, cloze notes as one card per number (cloze.py); its review history is imported
  with the learner's consent (apkg_history.py). Read only: no writer.

Every parser is a pure function from text to ParsedDocuments; next to it, a pure writer turns
export.py's plain data for one set or deck back into that format (export_one picks it), so that
exporting, importing into an empty database and exporting again gives the same bytes.

reading.py tells the formats apart and parses a document into the dataclasses of
documents.py without touching the database; sync.py saves a parsed document, matching rows by
stable keys so that fixing a typo updates a row in place and learners' attempts survive;
importing.py parses every file first and saves them all in one transaction, so one bad file
changes nothing. Every problem is reported as `FILE:LINE: what is wrong`, the format editors
and terminals turn into links. Nothing here prints or exits: the management commands own the
user interface.
"""

from .documents import ContentError, ExportError
from .export import ExportedFile, export_content, export_json, export_one, formats_for
from .importing import Report, import_documents
from .reading import parse_document, read_document
from .sync import Outcome, save_document

__all__ = [
    "ContentError", "ExportError", "ExportedFile", "Outcome", "Report", "export_content", "export_json", "export_one",
    "formats_for", "import_documents", "parse_document", "read_document", "save_document",
]
