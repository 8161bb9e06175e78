"""Where memex-desktop keeps its files and finds its bundled resources.

Data (the cache, the outbox and the pictures loaded on request) lives in the platformdirs
user data folder unless a data folder is given (``--data-dir`` or ``MEMEX_DATA_DIR``); settings
live in the user config folder. Resources are found in one place for all three layouts: the
installed package (``memex_desktop/resources``), the source tree (``resources/`` beside the
package) and a PyInstaller bundle (``sys._MEIPASS``).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

import platformdirs

APP_NAME = "memex-desktop"
DATA_DIR_ENV = "MEMEX_DATA_DIR"

_PACKAGE_DIR = Path(__file__).resolve().parent


def resources_dir() -> Path:
    """The folder holding icons, the stylesheet and the demo library.

    Raises:
        FileNotFoundError: when no layout holds a resources folder (a broken install).
    """
    candidates = []
    bundle_root = getattr(sys, "_MEIPASS", None)
    if bundle_root:
        candidates.append(Path(bundle_root) / "resources")
    candidates += [_PACKAGE_DIR / "resources", _PACKAGE_DIR.parent / "resources"]
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    searched = ", ".join(str(path) for path in candidates)
    raise FileNotFoundError(f"memex-desktop resources not found (looked in {searched})")


def resource_path(*parts: str) -> Path:
    """A file inside :func:`resources_dir`, e.g. ``resource_path("demo", "library.json")``."""
    return resources_dir().joinpath(*parts)


def source_tree_dir() -> Path | None:
    """The repository checkout the package runs from, or ``None`` when installed elsewhere."""
    root = _PACKAGE_DIR.parent
    return root if (root / "pyproject.toml").is_file() and (root / "tests").is_dir() else None


def default_data_dir() -> Path:
    """The data folder: ``MEMEX_DATA_DIR`` when set, else the platform's user data folder."""
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def config_dir() -> Path:
    """The folder for the settings file (never holds secrets)."""
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def cache_db_path(data_dir: Path) -> Path:
    """The disposable local mirror of the library."""
    return data_dir / "cache.db"


def outbox_db_path(data_dir: Path) -> Path:
    """The precious queue of saves the server has not confirmed yet."""
    return data_dir / "outbox.db"


def sync_lock_path(data_dir: Path) -> Path:
    """The file whose lock says a process is syncing the folder (see sync/folder_lock.py)."""
    return data_dir / "sync.lock"


def image_cache_path(data_dir: Path) -> Path:
    """The pictures loaded on request, kept to read offline (disposable, like the cache)."""
    return data_dir / "images.db"


# Whether the system can flush every written file in one call (not on Windows, where each
# file is synced as it is written instead).
CAN_SYNC_ALL = hasattr(os, "sync")


def write_text_atomically(path: Path, text: str, *, synced: bool = True) -> None:
    """Write a text file through a temporary one beside it, so a crash never leaves half a file.

    ``synced=False`` leaves the file to the system's write-back instead of waiting for the
    disk: for one of many files written in a row, made durable together by
    :func:`sync_written_files` once all are written.
    """
    with writing_atomically(path, synced=synced or not CAN_SYNC_ALL) as handle:
        handle.write(text)


def sync_written_files() -> None:
    """Wait until the files written with ``synced=False`` are on the disk."""
    if CAN_SYNC_ALL:
        os.sync()


@contextmanager
def writing_atomically(path: Path, *, synced: bool = True) -> Iterator[TextIO]:
    """A text file to write in steps, which becomes ``path`` only once the block ends without
    an error: a crash or a failure midway leaves the old file (or none), never half of one."""
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            yield handle
            if synced:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def aside_path(path: Path, why: str) -> Path:
    """A free name next to ``path`` for keeping a file instead of losing what it held (one
    the app cannot read, or one a newer version wrote), saying why and when:
    ``cache.db.damaged-YYYYmmdd-HHMMSS`` (then ``-2``, ``-3`` ... in the same second)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.{why}-{stamp}")
    serial = 1
    while aside.exists():
        serial += 1
        aside = path.with_name(f"{path.name}.{why}-{stamp}-{serial}")
    return aside
