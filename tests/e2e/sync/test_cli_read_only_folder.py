"""A data folder the person can read but not write: reading commands work, writing ones say so.

Root writes anywhere, so the folder is made read-only for real in one of two ways: the folder
loses its write permission and the command runs without root's power to override permissions
(CAP_DAC_OVERRIDE dropped from its capability bounding set, as a user other than the owner
would be), or the folder is bind-mounted read-only in a private mount namespace of the command
(nothing outside the command sees that mount). Without root the permissions alone do it.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.sync_env import cli_command, cli_env

from memex_desktop import cli

URL = "https://example.org/queued-before"
# prctl(2): drop a capability from the bounding set; the capabilities to override file
# permissions (write anywhere, read anywhere).
_PR_CAPBSET_DROP = 24
_DAC_CAPABILITIES = (1, 2)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH

Runner = Callable[..., subprocess.CompletedProcess[str]]


def _library(root: Path) -> Path:
    """A data folder holding one item and one queued save, written as usual."""
    data = root / "data"
    library = root / "library.json"
    library.write_text(
        '{"results": [{"id": "e1", "type": "web", "title": "Kept page", '
        '"url": "https://example.org/kept", "text": "hello world"}]}',
        encoding="utf-8",
    )
    for args in (("import", str(library)), ("save", URL)):
        done = subprocess.run(
            cli_command(*args, "--data-dir", str(data)),
            env=cli_env(None),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == cli.EXIT_OK, done.stderr
    return data


def _drop_permission_override() -> None:
    """In the child before exec: no more overriding file permissions, as root can."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in _DAC_CAPABILITIES:
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _without_write_permission(data: Path) -> Runner:
    """Commands on ``data`` after its write permission is taken away."""
    for path in [data, *data.iterdir()]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    preexec = _drop_permission_override if os.geteuid() == 0 else None

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            cli_command(*args, "--data-dir", str(data)),
            env=cli_env(None),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            preexec_fn=preexec,
        )

    if run("--version").returncode != 0:
        pytest.skip("the command cannot run without overriding permissions here")
    return run


def _on_a_read_only_mount(root: Path, data: Path) -> Runner:
    """Commands on ``data`` bind-mounted read-only in a mount namespace of their own."""
    unshare = shutil.which("unshare")
    if os.geteuid() != 0 or unshare is None:
        pytest.skip("a read-only mount needs root and unshare")
    view = root / "view"
    view.mkdir()
    probe = subprocess.run(
        [unshare, "--mount", "--propagation", "private", "true"],
        capture_output=True,
        check=False,
    )
    if probe.returncode != 0:
        pytest.skip(f"no private mount namespace here: {probe.stderr!r}")
    # The mount is made inside the command's own namespace and goes with it.
    namespace = [unshare, "--mount", "--propagation", "private", "sh", "-c"]
    script = 'mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" && shift 2 && exec "$@"'

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = cli_command(*args, "--data-dir", str(view))
        return subprocess.run(
            [*namespace, script, "sh", str(data), str(view), *command],
            env=cli_env(None),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    return run


@pytest.fixture(params=["no-write-permission", "read-only-mount"])
def read_only(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[Runner, Path, Path]]:
    """A runner of commands on a read-only data folder, the folder the commands are given
    and the folder's files as they really are."""
    data = _library(tmp_path)
    if request.param == "no-write-permission":
        yield _without_write_permission(data), data, data
    else:
        yield _on_a_read_only_mount(tmp_path, data), tmp_path / "view", data
    for path in [data, *data.iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)


def _note_only(stderr: str, folder: Path) -> None:
    """Reading says once, in one line, that the folder cannot be written."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith(f"memex-desktop: note: the data folder {folder} cannot be written")


def test_reading_commands_work_with_a_note(read_only: tuple[Runner, Path, Path]) -> None:
    run, folder, data = read_only
    before = sorted(path.name for path in data.iterdir())
    done = run("search", "hello")
    assert done.returncode == cli.EXIT_OK, done.stderr
    assert done.stdout.startswith("e1  [Web page]  Kept page")
    _note_only(done.stderr, folder)
    done = run("show", "e1")
    assert done.returncode == cli.EXIT_OK, done.stderr
    assert "Kept page" in done.stdout
    _note_only(done.stderr, folder)
    done = run("outbox", "list")
    assert done.returncode == cli.EXIT_OK, done.stderr
    assert URL in done.stdout
    _note_only(done.stderr, folder)
    export = folder.parent / "export"
    done = run("export", str(export))
    assert done.returncode == cli.EXIT_OK, done.stderr
    assert '"Kept page"' in (export / "memex-export.json").read_text(encoding="utf-8")
    # Nothing was made beside the files (no -wal, no -shm): the folder is as it was.
    assert sorted(path.name for path in data.iterdir()) == before


def test_writing_commands_name_the_folder_and_the_fix(
    read_only: tuple[Runner, Path, Path],
) -> None:
    run, folder, _data = read_only
    done = run("save", "https://example.org/new")
    assert done.returncode == cli.EXIT_READ_ONLY
    first, *rest = done.stderr.strip().splitlines()
    assert first.startswith(f"memex-desktop: cannot write in the data folder {folder}: ")
    assert "--data-dir" in first
    assert rest == ["memex-desktop: not kept: https://example.org/new"]
    done = run("sync")
    assert done.returncode == cli.EXIT_READ_ONLY
    assert done.stderr.startswith(f"memex-desktop: cannot write in the data folder {folder}: ")
    assert len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def test_a_cache_left_with_its_wal_but_no_index_is_read(tmp_path: Path) -> None:
    """A copy taken while the app ran holds cache.db-wal without its -shm index, which
    SQLite cannot make in the folder: the cache is still read, as it lies."""
    data = _library(tmp_path)
    Path(f"{data / 'cache.db'}-wal").touch()
    assert not Path(f"{data / 'cache.db'}-shm").exists()
    run = _without_write_permission(data)
    try:
        done = run("search", "hello")
        assert done.returncode == cli.EXIT_OK, done.stderr
        assert done.stdout.startswith("e1  [Web page]  Kept page")
        _note_only(done.stderr, data)
    finally:
        for path in [data, *data.iterdir()]:
            path.chmod(0o755 if path.is_dir() else 0o644)
