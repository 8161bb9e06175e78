"""Commands that only read (search, show, outbox list, export) open no cache writer: they start
no writer thread, index no backlog and leave cache.db as they found it, so they answer at once
and never contend with a window or a sync on the same folder. Commands that write still do."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.cli import Cli

from memex_desktop import paths, store
from memex_desktop.store import StoreWriter

pytestmark = pytest.mark.e2e

WRITER_THREAD = "memex-store-writer"


class Folder:
    """A synced data folder whose search index has a backlog (as a crash leaves one), and a
    connection held open on its cache, as a window's would be."""

    def __init__(self, run: Cli, data_dir: Path) -> None:
        self.run = run
        self.cache = paths.cache_db_path(data_dir)
        self.watcher = sqlite3.connect(self.cache)
        self.writers: list[StoreWriter] = []

    def backlog(self) -> int:
        """Rows waiting to be indexed for search."""
        return int(self.watcher.execute("SELECT count(*) FROM fts_pending").fetchone()[0])

    def data_version(self) -> int:
        """Changes when another connection commits to the cache."""
        return int(self.watcher.execute("PRAGMA data_version").fetchone()[0])

    def look(self) -> tuple[int, int, int, str]:
        """What a command that changed the cache would change: the commits other connections
        made, the backlog, the file's time and its bytes."""
        stat = self.cache.stat()
        digest = hashlib.sha256(self.cache.read_bytes()).hexdigest()
        return self.data_version(), self.backlog(), stat.st_mtime_ns, digest


@pytest.fixture
def folder(
    emulator: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> Iterator[Folder]:
    """The small library synced into a fresh data folder, then every row put back in the
    index backlog; each writer opened afterwards is recorded."""
    data_dir = tmp_path / "data"
    run = Cli(capsys, data_dir, emulator.base_url, emulator)
    status, _, err = run("sync")
    assert status == 0, err
    folder = Folder(run, data_dir)
    with folder.watcher:
        folder.watcher.execute(
            "INSERT OR IGNORE INTO fts_pending (rowid) SELECT rowid FROM entities"
        )
    assert folder.backlog() > 0

    class RecordedWriter(StoreWriter):
        def __init__(self, path: Path, **kwargs: Any) -> None:
            folder.writers.append(self)
            super().__init__(path, **kwargs)

    monkeypatch.setattr(store, "StoreWriter", RecordedWriter)
    yield folder
    folder.watcher.close()


def an_item_id(folder: Folder) -> str:
    """The id of an item in the cache."""
    found = folder.watcher.execute("SELECT id FROM entities WHERE type = 'web' LIMIT 1")
    return str(found.fetchone()[0])


READ_COMMANDS = [
    ("search", "the"),
    ("search", "", "--json", "--limit", "5"),
    ("show", "{id}"),
    ("show", "{id}", "--format", "html"),
    ("outbox", "list"),
    ("outbox", "list", "--json"),
    ("export", "{export}"),
]


@pytest.mark.parametrize("command", READ_COMMANDS, ids=" ".join)
def test_a_read_command_leaves_the_cache_alone(
    folder: Folder, command: tuple[str, ...], tmp_path: Path
) -> None:
    before = folder.look()
    fill = {"id": an_item_id(folder), "export": str(tmp_path / "export")}
    status, out, err = folder.run(*(part.format(**fill) for part in command))
    assert status == 0, err
    assert out
    assert folder.writers == []
    assert WRITER_THREAD not in {thread.name for thread in threading.enumerate()}
    assert folder.look() == before


def test_writing_commands_still_write(folder: Folder) -> None:
    backlog = folder.backlog()
    version = folder.data_version()
    status, out, err = folder.run("save", "https://example.org/a-new-page")
    assert status == 0, err
    assert "queued: https://example.org/a-new-page" in out
    assert len(folder.writers) == 1
    assert folder.backlog() < backlog  # the writer indexes while it is open
    assert folder.data_version() != version
    status, _, err = folder.run("note", an_item_id(folder), "Read this again")
    assert status == 0, err
    status, out, err = folder.run("search", "garden", "--remote", "--json")
    assert status == 0, err
    assert len(folder.writers) == 3
    assert WRITER_THREAD not in {thread.name for thread in threading.enumerate()}


def test_a_read_command_finds_what_the_backlog_holds(folder: Folder) -> None:
    """Rows not indexed yet are still found (the reader scans the backlog itself)."""
    item = folder.watcher.execute(
        "SELECT id, url FROM entities WHERE type = 'web' AND url IS NOT NULL LIMIT 1"
    ).fetchone()
    status, out, err = folder.run("search", item[1], "--json")
    assert status == 0, err
    assert item[0] in out
    assert folder.writers == []


@pytest.mark.parametrize("json_output", [False, True])
def test_listing_an_outbox_never_made_makes_nothing(
    json_output: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data_dir = tmp_path / "mistyped"
    run = Cli(capsys, data_dir, "http://127.0.0.1:9")
    status, out, err = run("outbox", "list", *(["--json"] if json_output else []))
    assert status == 0, err
    assert out == ("[]\n" if json_output else "the outbox is empty\n")
    assert not data_dir.exists()
