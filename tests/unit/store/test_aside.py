"""A database set aside keeps its name's meaning and its companions; migrations_pending says
what opening a cache will do, from its header alone."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from support.caches import as_newer_schema

from memex_desktop.paths import aside_path
from memex_desktop.store import StoreWriter
from memex_desktop.store.aside import move_aside
from memex_desktop.store.errors import DatabaseCorruptError, SchemaTooNewError
from memex_desktop.store.schema import SCHEMA_VERSION, migrations_pending


def test_a_database_moves_aside_with_its_log_and_index(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    for suffix, body in (("", b"db"), ("-wal", b"log"), ("-shm", b"index")):
        Path(f"{path}{suffix}").write_bytes(body)
    kept = move_aside(path, "damaged")
    assert kept.name.startswith("cache.db.damaged-")
    assert kept.read_bytes() == b"db"
    assert Path(f"{kept}-wal").read_bytes() == b"log"
    assert Path(f"{kept}-shm").read_bytes() == b"index"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [kept.name, f"{kept.name}-wal", f"{kept.name}-shm"]
    )


def test_two_set_aside_in_one_second_get_two_names(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    path.write_bytes(b"first")
    first = move_aside(path, "newer")
    path.write_bytes(b"second")
    second = aside_path(path, "newer")
    assert second != first
    assert move_aside(path, "newer").read_bytes() == b"second"
    assert first.read_bytes() == b"first"


def test_migrations_pending_reads_the_header(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    assert migrations_pending(path) == 0  # not there yet: created in milliseconds
    StoreWriter(path).close()
    assert migrations_pending(path) == 0
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 7")
    conn.commit()
    conn.close()
    assert migrations_pending(path) == SCHEMA_VERSION - 7


def test_migrations_pending_refuses_a_newer_or_damaged_file_naming_it(tmp_path: Path) -> None:
    newer = tmp_path / "newer.db"
    as_newer_schema(newer)
    with pytest.raises(SchemaTooNewError) as too_new:
        migrations_pending(newer)
    assert too_new.value.file == newer
    damaged = tmp_path / "damaged.db"
    damaged.write_bytes(b"x" * 4096)
    with pytest.raises(DatabaseCorruptError) as corrupt:
        migrations_pending(damaged)
    assert corrupt.value.file == damaged
