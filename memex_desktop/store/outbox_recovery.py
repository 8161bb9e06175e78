"""A damaged outbox.db: copied aside untouched, and what can be read saved into a fresh one.

The saves in the outbox exist nowhere else, so a damaged file is never opened read-write nor
deleted: it is copied next to itself (``outbox.db.damaged-YYYYmmdd-HHMMSS``, with its
``-wal``), and the rows are read from a scratch copy of that, so the kept copy stays exactly
what was found. SQLite's own recovery (the ``sqlite3`` command line's ``.recover``, which also
finds rows of damaged tables in free pages) is used when that program is installed; without
it the rows are read one by one, each row that cannot be read skipped.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from memex_desktop.paths import aside_path
from memex_desktop.store.urls import normalize_url

_log = logging.getLogger(__name__)

RecoveryMethod = Literal["sqlite3 .recover", "row by row"]
# Every column an outbox row has had, in table order (how .recover's lost_and_found numbers
# the fields of a row whose table it could not tell).
ROW_COLUMNS = (
    "id",
    "kind",
    "url",
    "normalized_url",
    "external_id",
    "payload",
    "state",
    "attempts",
    "reason",
    "entity_id",
    "created_at",
    "updated_at",
    "next_attempt_at",
    "error_kind",
)
_STATES = frozenset({"queued", "sending", "accepted", "confirmed", "needs_attention"})
_RECOVER_TIMEOUT_S = 120.0
# Where a row-by-row read gives up looking for rows past the last one found.
_MAX_ROW_GAP = 1000


@dataclass(frozen=True)
class OutboxRecovery:
    """What opening a damaged outbox did: the copy kept, the saves recovered, and how."""

    copy: Path
    recovered: int
    method: RecoveryMethod

    def message(self) -> str:
        """One line for the person: how many saves were recovered and where the copy is."""
        saves = "save was" if self.recovered == 1 else "saves were"
        return (
            f"outbox.db was damaged: {self.recovered} {saves} recovered into a fresh outbox "
            f"(with {self.method}); the damaged file is kept as {self.copy}"
        )


def copy_aside(path: Path) -> Path:
    """Copy ``path`` (and its ``-wal``) to a timestamped name next to it, synced to disk."""
    copy = aside_path(path, "damaged")
    _copy_synced(path, copy)
    wal = Path(f"{path}-wal")
    if wal.exists():
        _copy_synced(wal, Path(f"{copy}-wal"))
    return copy


def _copy_synced(source: Path, target: Path) -> None:
    """Copy a file and fsync the copy, so it survives a crash that follows."""
    shutil.copy2(source, target)
    with target.open("rb+") as handle:
        os.fsync(handle.fileno())


def salvage(copy: Path) -> tuple[list[dict[str, Any]], RecoveryMethod]:
    """The outbox rows that can be read from ``copy`` (left unchanged) and how they were read."""
    with tempfile.TemporaryDirectory(prefix="memex-outbox-recovery-") as scratch:
        work = Path(scratch) / "damaged.db"
        shutil.copy2(copy, work)
        if Path(f"{copy}-wal").exists():
            shutil.copy2(Path(f"{copy}-wal"), Path(f"{work}-wal"))
        program = shutil.which("sqlite3")
        if program is not None:
            rows = _with_sqlite_recover(program, work, Path(scratch) / "recovered.db")
            if rows is not None:
                return rows, "sqlite3 .recover"
        return list(_row_by_row(work)), "row by row"


def _with_sqlite_recover(program: str, damaged: Path, target: Path) -> list[dict[str, Any]] | None:
    """Rows found by ``sqlite3 damaged .recover`` replayed into ``target``; None when the
    program failed."""
    try:
        dump = subprocess.run(
            [program, str(damaged), ".recover"],
            capture_output=True,
            timeout=_RECOVER_TIMEOUT_S,
            check=False,
        )
        # Builds without the sqlite_dbpage table (Debian's, for one) print a prologue, then
        # fail: only a script that ran to its COMMIT recovered anything.
        if dump.returncode != 0 or not dump.stdout.rstrip().endswith(b"COMMIT;"):
            _log.warning(
                "sqlite3 .recover is not available here (%s); reading row by row",
                dump.stderr.decode(errors="replace").strip()[:200],
            )
            return None
        # The command line replays the script statement by statement, past any that fail.
        subprocess.run(
            [program, str(target)],
            input=dump.stdout,
            capture_output=True,
            timeout=_RECOVER_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        _log.warning("sqlite3 .recover could not run: %s", exc)
        return None
    try:
        conn = sqlite3.connect(target)
        try:
            return [*_table_rows(conn, "ops"), *_lost_and_found_rows(conn)]
        finally:
            conn.close()
    except sqlite3.Error as exc:
        _log.warning("the recovered outbox could not be read: %s", exc)
        return None


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """The columns ``table`` has that an outbox row can have (none when it is missing)."""
    names = [str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")]
    return [name for name in names if name in ROW_COLUMNS]


def _table_rows(conn: sqlite3.Connection, table: str) -> list[dict[str, Any]]:
    """Every row of an intact table, by column name."""
    columns = _columns(conn, table)
    if "kind" not in columns:
        return []
    cursor = conn.execute(f"SELECT {', '.join(columns)} FROM {table}")
    return [dict(zip(columns, row, strict=True)) for row in cursor]


def _lost_and_found_rows(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Rows .recover found but could not place in a table, when they look like outbox rows."""
    names = {str(row[0]) for row in conn.execute("SELECT name FROM sqlite_master")}
    found = sorted(name for name in names if name.startswith("lost_and_found"))
    rows: list[dict[str, Any]] = []
    for table in found:
        fields = [str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})")]
        width = sum(1 for name in fields if name.startswith("c") and name[1:].isdigit())
        if width < len(ROW_COLUMNS) - 1 or "id" not in fields:
            continue
        values = ", ".join(f"c{index}" for index in range(len(ROW_COLUMNS)) if index < width)
        for row in conn.execute(f"SELECT id, {values} FROM {table}"):
            record = dict(zip(ROW_COLUMNS, row[1:], strict=False))
            record["id"] = row[0]  # the rowid: the INTEGER PRIMARY KEY is stored as NULL
            if record.get("state") in _STATES and isinstance(record.get("kind"), str):
                rows.append(record)
    return rows


def _row_by_row(damaged: Path) -> Iterator[dict[str, Any]]:
    """Outbox rows read one id at a time; a row that cannot be read is skipped."""
    try:
        conn = sqlite3.connect(damaged)
    except sqlite3.Error as exc:
        _log.warning("the damaged outbox cannot be opened at all: %s", exc)
        return
    try:
        try:
            columns = _columns(conn, "ops")
        except sqlite3.DatabaseError as exc:
            _log.warning("the damaged outbox's tables cannot be read: %s", exc)
            return
        if "kind" not in columns or "id" not in columns:
            return
        query = f"SELECT {', '.join(columns)} FROM ops WHERE id = ?"
        last = _highest_id(conn)
        op_id = gap = 0
        while gap < _MAX_ROW_GAP or (last is not None and op_id < last):
            op_id += 1
            try:
                row = conn.execute(query, (op_id,)).fetchone()
            except sqlite3.DatabaseError:
                row = None
            if row is None:
                gap += 1
                continue
            gap = 0
            yield dict(zip(columns, row, strict=True))
    finally:
        conn.close()


def _highest_id(conn: sqlite3.Connection) -> int | None:
    """The highest row id handed out, when the damage left it readable."""
    for query in ("SELECT seq FROM sqlite_sequence WHERE name = 'ops'", "SELECT max(id) FROM ops"):
        try:
            row = conn.execute(query).fetchone()
        except sqlite3.DatabaseError:
            continue
        if row is not None and isinstance(row[0], int):
            return int(row[0])
    return None


def clean_rows(rows: Iterable[dict[str, Any]], now_ms: int) -> list[tuple[Any, ...]]:
    """Recovered rows fit to insert (in ROW_COLUMNS order), each id once; rows a save cannot
    be sent from (no kind, no URL or payload) are left out."""
    kept: dict[int, tuple[Any, ...]] = {}
    for row in rows:
        cleaned = _clean_row(row, now_ms)
        if cleaned is not None:
            kept.setdefault(int(cleaned[0]), cleaned)
    return [kept[key] for key in sorted(kept)]


def _clean_row(row: dict[str, Any], now_ms: int) -> tuple[Any, ...] | None:
    """One recovered row as inserted, or None when nothing can be sent from it."""
    op_id, kind = row.get("id"), row.get("kind")
    if not isinstance(op_id, int) or not isinstance(kind, str) or not kind:
        return None
    url = _text(row.get("url"))
    payload = _text(row.get("payload"))
    if payload is not None:
        try:
            if not isinstance(json.loads(payload), dict):
                payload = None
        except ValueError:
            payload = None
    if kind == "save_url":
        if url is None:
            return None
        try:
            normalized: str | None = normalize_url(url)
        except ValueError:
            return None
    else:
        if payload is None:
            return None
        normalized = None
    state = row.get("state") if row.get("state") in _STATES else "queued"
    created = _int(row.get("created_at"), now_ms)
    return (
        op_id,
        kind,
        url,
        normalized,
        _text(row.get("external_id")),
        payload,
        state,
        _int(row.get("attempts"), 0),
        _text(row.get("reason")),
        _text(row.get("entity_id")),
        created,
        _int(row.get("updated_at"), created),
        _int(row.get("next_attempt_at"), now_ms),
        _text(row.get("error_kind")),
    )


def _text(value: Any) -> str | None:
    """A recovered text field (anything else, damaged, is dropped)."""
    return value if isinstance(value, str) and value else None


def _int(value: Any, default: int) -> int:
    """A recovered integer field, ``default`` when it is not one."""
    return value if isinstance(value, int) and not isinstance(value, bool) else default
