"""Python programs run in child processes that import the code under test as the tests do."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager


def child_env(**overrides: str) -> dict[str, str]:
    """This process's environment, with its import path, for a child Python."""
    return {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **overrides}


@contextmanager
def python_child(script: str, *args: str) -> Iterator[subprocess.Popen[bytes]]:
    """``script`` running in a child Python with its output piped, killed (SIGKILL) and
    reaped when the block ends, as a crash would stop it."""
    child = subprocess.Popen(
        [sys.executable, "-c", script, *args], stdout=subprocess.PIPE, env=child_env()
    )
    try:
        assert child.stdout is not None
        yield child
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
        if child.stdout is not None:
            child.stdout.close()
