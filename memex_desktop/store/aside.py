"""Database files set aside: kept under a new name next to themselves, never deleted.

A damaged outbox is copied aside before its saves are recovered (outbox_recovery.py); a cache
that cannot be opened (damaged, or written by a newer version) is moved aside when the person
chooses to start with a fresh one. Either way what the file held can still be read by hand.
"""

from __future__ import annotations

from pathlib import Path

from memex_desktop.paths import aside_path

# The files SQLite keeps beside a database in WAL mode; they belong to it and go with it.
_COMPANIONS = ("-wal", "-shm")


def move_aside(path: Path, why: str) -> Path:
    """Rename the database at ``path``, with its ``-wal`` and ``-shm``, to :func:`aside_path`;
    the new name of the database. Renaming takes no room and no time, whatever the size.

    The write-ahead log goes first: a crash between the renames leaves either the database
    with no log (what it held before its last checkpoint) or both renamed, never a log
    beside a fresh database it does not belong to.
    """
    aside = aside_path(path, why)
    for suffix in reversed(_COMPANIONS):
        companion = Path(f"{path}{suffix}")
        if companion.exists():
            companion.replace(Path(f"{aside}{suffix}"))
    path.replace(aside)
    return aside
