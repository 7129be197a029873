"""Rebuild fixtures/seed.json from fixtures/sources/*.txt.

The seed must be exactly what a fresh import of the sources exports (a test checks this), so
rather than converting the text by a second route, the script imports the sources into a
throwaway in-memory SQLite database and exports it. Run with `python -m scripts.build_fixture`.
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "fixtures" / "sources"
SEED = ROOT / "fixtures" / "seed.json"


def main():
    # Set before Django reads its settings, so the real database is never opened.
    os.environ["DATABASE_URL"] = "sqlite://:memory:"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studyapp.settings")
    sys.path.insert(0, str(ROOT))
    os.chdir(ROOT)

    import django

    django.setup()
    from django.core.management import call_command

    from quiz.content import export_json, import_documents

    call_command("migrate", verbosity=0, interactive=False)
    call_command("createcachetable")  # content writes announce themselves there (quiz.lib.content_changes)
    # Relative paths, so warnings name the files as a person would type them.
    report = import_documents(sorted(path.relative_to(ROOT) for path in SOURCES.glob("*.txt")))
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    SEED.write_text(export_json(), encoding="utf-8")
    print(f"wrote {SEED.relative_to(ROOT)}: {len(report.outcomes)} documents")


if __name__ == "__main__":
    main()
