"""Reads an Anki package with Anki's own backend, in a child process: run by apkg_format as

    python -I apkg_reader.py PACKAGE FOLDER MAX_FILE_BYTES

It opens an empty collection in FOLDER, imports the package into it with its scheduling (Anki's
importer reads every collection version Anki has written: collection.anki2, .anki21 and the
zstd-compressed .anki21b, in a .apkg or a .colpkg), and writes what apkg_format needs as plain
JSON to FOLDER/package.json; the package's media files are left in FOLDER/collection.media.

A child process because the package is untrusted and Anki's Rust code decompresses it: a file
past MAX_FILE_BYTES ends the child (RLIMIT_FSIZE), as do a runaway CPU or memory use, while the
parent also watches the folder's total size and the time (apkg_format.read_package). Anything
this script fails on is written to stderr and ends it with status 1. A script, not a module of
the package: it imports neither Django nor the app.
"""

import json
import os
import resource
import signal
import sys

CPU_SECONDS = 120
MEMORY_BYTES = 2 * 1024**3


def main(package, folder, max_file_bytes):
    # Python ignores SIGXFSZ (a write past the limit then fails with EFBIG, which Anki reports as
    # an I/O error of its own); by default the signal ends the process, which the parent reads as
    # "the package unpacks to more than the limit", whoever's write crossed it.
    signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
    resource.setrlimit(resource.RLIMIT_FSIZE, (max_file_bytes, max_file_bytes))
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 5))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

    collection = Collection(os.path.join(folder, "collection.anki2"))
    try:
        options = ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=False, merge_notetypes=False)
        collection.import_anki_package(ImportAnkiPackageRequest(package_path=package, options=options))
        content = read(collection)
        media = collection.media.dir()
    finally:
        collection.close()
    content["media"] = sorted(name for name in os.listdir(media) if os.path.isfile(os.path.join(media, name)))
    with open(os.path.join(folder, "package.json"), "w", encoding="utf-8") as out:
        json.dump(content, out, ensure_ascii=False)


def read(collection):
    """The collection as plain JSON data, every value of the type apkg_format expects: a package's
    SQLite columns may hold anything, and a value that is not what its column says stops here."""
    db = collection.db
    used = {int(mid) for (mid,) in db.all("select distinct mid from notes")}
    notetypes = {
        str(notetype["id"]): {
            "name": str(notetype["name"]),
            "cloze": notetype.get("type") == 1,
            "stock_kind": int(notetype.get("originalStockKind") or 0),
            "fields": [str(field["name"]) for field in sorted(notetype["flds"], key=lambda field: int(field["ord"]))],
            "templates": {
                str(int(template["ord"])): [str(template["qfmt"]), str(template["afmt"])]
                for template in notetype["tmpls"]
            },
        }
        for notetype in collection.models.all()
        if int(notetype["id"]) in used
    }
    notes = db.all("select id, guid, mid, flds, tags from notes order by id")
    # A card in a filtered deck belongs to its original deck (odid).
    cards = db.all("select id, nid, case when odid != 0 then odid else did end, ord from cards order by nid, ord")
    revlog = db.all("select cid, id, ease, time, type, factor from revlog order by id")
    return {
        "notetypes": notetypes,
        "decks": {str(deck.id): str(deck.name) for deck in collection.decks.all_names_and_ids()},
        "notes": [
            [int(nid), str(guid), str(mid), str(fields or "").split("\x1f"), str(tags or "").split()]
            for nid, guid, mid, fields, tags in notes
        ],
        "cards": [[int(value) for value in card] for card in cards],
        "revlog": [[int(value or 0) for value in entry] for entry in revlog],
    }


if __name__ == "__main__":
    try:
        main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
    except Exception as error:  # any failure is the package's: the parent reports it as unreadable
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
