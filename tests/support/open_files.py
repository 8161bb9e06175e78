"""What this process holds open (Linux /proc)."""

from __future__ import annotations

from pathlib import Path

CAN_COUNT = Path("/proc/self/fd").is_dir()


def open_files_of(path: Path) -> int:
    """How many of this process's file descriptors are open on ``path``."""
    found = 0
    for fd in Path("/proc/self/fd").iterdir():
        try:
            found += fd.resolve() == path.resolve()
        except OSError:  # closed since the listing
            continue
    return found
