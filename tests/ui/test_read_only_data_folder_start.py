"""A window started on a data folder that cannot be written (a read-only mount, a backup
without write permission): the question says which folder and why, in its main text, with
the fix that helps there, instead of "may not open or write outbox.db here"."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from support.window import command_args

from memex_desktop import app, paths
from memex_desktop.errors import FreshCacheOffer, user_message
from memex_desktop.settings import Settings
from memex_desktop.store.errors import FolderNotWritableError
from memex_desktop.ui import cache_start
from memex_desktop.ui.cache_start import CacheChoice

pytestmark = [pytest.mark.gui, pytest.mark.qt_log_ignore("propagateSizeHints")]


class Person:
    """Quits when asked about the data folder; remembers what was asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[BaseException, FreshCacheOffer | None]] = []

    def __call__(
        self, exc: BaseException, offer: FreshCacheOffer | None, parent: Any = None
    ) -> CacheChoice:
        self.asked.append((exc, offer))
        return CacheChoice.QUIT


@pytest.fixture
def library(tmp_path: Path) -> Path:
    """A data folder a window has used (its cache and outbox exist)."""
    Settings().save()
    folder = tmp_path / "data"
    opened = app.open_window(command_args(folder))
    assert isinstance(opened, app.OpenedWindow)
    opened.context.shutdown()
    return folder


def _started_on(folder: Path, monkeypatch: Any) -> tuple[int | app.OpenedWindow, Person]:
    person = Person()
    monkeypatch.setattr(cache_start, "ask_about_cache", person)
    return app.open_window(command_args(folder)), person


def test_a_folder_on_a_read_only_mount_is_named_with_its_cause(
    library: Path, monkeypatch: Any
) -> None:
    real = os.statvfs

    def mounted_read_only(path: Any) -> Any:
        found = real(path)
        if Path(path) == library:
            fields = {name: getattr(found, name) for name in dir(found) if name.startswith("f_")}
            return SimpleNamespace(**{**fields, "f_flag": found.f_flag | os.ST_RDONLY})
        return found

    monkeypatch.setattr(os, "statvfs", mounted_read_only)
    before = sorted(path.name for path in library.iterdir())
    started, person = _started_on(library, monkeypatch)
    assert started == 1
    [(problem, offer)] = person.asked
    assert isinstance(problem, FolderNotWritableError)
    assert offer is None
    words = user_message(problem)
    assert words.text == (
        f"The data folder {library} cannot be written: it is on a read-only disk or mount."
    )
    assert words.action is not None
    assert words.action.startswith("Mount it read-write, or choose another data folder")
    assert "permission" not in words.action
    assert sorted(path.name for path in library.iterdir()) == before  # nothing made there


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes whatever the permissions say")
def test_a_folder_without_write_permission_is_named_with_its_cause(
    library: Path, monkeypatch: Any
) -> None:
    for path in [library, *library.iterdir()]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    try:
        started, person = _started_on(library, monkeypatch)
    finally:
        for path in [library, *library.iterdir()]:
            path.chmod(0o755 if path.is_dir() else 0o644)
    assert started == 1
    [(problem, _offer)] = person.asked
    words = user_message(problem)
    assert str(library) in words.text
    assert "you may not write to it" in words.text


def test_the_cache_file_alone_read_only_is_named(library: Path, monkeypatch: Any) -> None:
    cache = paths.cache_db_path(library)
    real = os.access

    def cache_read_only(path: Any, mode: int, **kwargs: Any) -> bool:
        if Path(path) == cache and mode & os.W_OK:
            return False
        return real(path, mode, **kwargs)

    monkeypatch.setattr(os, "access", cache_read_only)
    started, person = _started_on(library, monkeypatch)
    assert started == 1
    [(problem, _offer)] = person.asked
    assert user_message(problem).text.endswith("cache.db in it is read-only.")
