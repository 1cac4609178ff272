#!/usr/bin/env python3
"""The floor for a cold sync (issue 19): a naive loader that reads every file of
the workspace, hashes it (sha256) and inserts every body into one FTS5 table in
one transaction. No validation, no link graph, no projections: what memsync's
cold sync does on top of this is the price of keeping the workspace honest.

    python3 benches/floor_loader.py WORKSPACE INDEX.db

`cargo bench --bench sync` runs it paired with memsync's cold sync, run by run.
"""
import hashlib
import os
import sqlite3
import sys


def main() -> None:
    root, db_path = sys.argv[1], sys.argv[2]
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(db_path + suffix):
            os.remove(db_path + suffix)
    db = sqlite3.connect(db_path)
    db.execute("CREATE VIRTUAL TABLE docs USING fts5(path UNINDEXED, sha256 UNINDEXED, body)")
    with db:  # one transaction
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d not in (".memsync", ".git")]
            for name in filenames:
                path = os.path.join(dirpath, name)
                with open(path, "rb") as f:
                    data = f.read()
                db.execute(
                    "INSERT INTO docs VALUES (?, ?, ?)",
                    (path, hashlib.sha256(data).hexdigest(), data.decode("utf-8", "replace")),
                )
    db.close()


if __name__ == "__main__":
    main()
