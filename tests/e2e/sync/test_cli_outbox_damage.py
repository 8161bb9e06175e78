"""`outbox list` shows the saves of a damaged outbox (recovered, the copy named) and of one a
newer version wrote (read without writing), and says which file it is about."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from support.sync_env import run_cli

pytestmark = pytest.mark.e2e

URLS = [f"https://kept{index}.example/article" for index in range(5)]


def _queued(tmp_path: Path) -> tuple[list[str], Path]:
    data = ["--data-dir", str(tmp_path / "data")]
    saved = run_cli("save", *URLS, *data)
    assert saved.returncode == 0, saved.stderr
    return data, tmp_path / "data" / "outbox.db"


def test_outbox_list_on_a_damaged_outbox_shows_what_was_recovered(tmp_path: Path) -> None:
    data, path = _queued(tmp_path)
    with path.open("r+b") as handle:
        handle.seek(4096 * 2)  # the page after the schema: an index of the ops table
        handle.write(b"\x00\xff" * 2048)
    listed = run_cli("outbox", "list", *data)
    assert listed.returncode == 0, listed.stderr
    assert "outbox.db was damaged: 5 saves were recovered" in listed.stderr
    assert "cache.db" not in listed.stderr
    copies = sorted(path.parent.glob("outbox.db.damaged-*[0-9]"))
    assert len(copies) == 1
    assert str(copies[0]) in listed.stderr
    for url in URLS:
        assert url in listed.stdout


def test_outbox_list_on_a_newer_outbox_reads_it_without_writing(tmp_path: Path) -> None:
    data, path = _queued(tmp_path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    listed = run_cli("outbox", "list", *data)
    assert listed.returncode == 0, listed.stderr
    assert "outbox.db" in listed.stderr
    assert "newer memex-desktop" in listed.stderr
    for url in URLS:
        assert url in listed.stdout
    saved = run_cli("save", "https://another.example/", *data)
    assert saved.returncode != 0
    assert "Traceback" not in saved.stderr
    assert "newer memex-desktop" in saved.stderr
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_a_save_is_queued_even_when_the_cache_cannot_be_opened(tmp_path: Path) -> None:
    data = ["--data-dir", str(tmp_path / "data")]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "cache.db").write_bytes(b"no database here " * 400)
    saved = run_cli("save", URLS[0], *data)
    assert saved.returncode == 1
    assert "Traceback" not in saved.stderr
    assert "cache.db" in saved.stderr
    assert "Delete cache.db" in saved.stderr
    assert f"queued: {URLS[0]}" in saved.stdout
    listed = run_cli("outbox", "list", *data)
    assert URLS[0] in listed.stdout
