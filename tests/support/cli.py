"""``memex-desktop`` run in the test's own process, its output read back through capsys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memex_desktop import cli
from support.secrets import TEST_API_KEY


class Cli:
    """Runs ``memex-desktop`` in this process against one data folder and server.

    ``api_key=None`` gives no key on the command line (the server, if any, is never signed
    in to); every run asserts that no traceback reached the person.
    """

    def __init__(
        self,
        capsys: pytest.CaptureFixture[str],
        data_dir: Path,
        url: str,
        emulator: Any = None,
        *,
        api_key: str | None = TEST_API_KEY,
    ) -> None:
        self.capsys = capsys
        self.emulator = emulator
        self.base = ["--data-dir", str(data_dir), "--api-url", url]
        if api_key is not None:
            self.base += ["--api-key", api_key]

    def __call__(self, *args: str) -> tuple[int, str, str]:
        self.capsys.readouterr()
        status = cli.main([*args, *self.base])
        out, err = self.capsys.readouterr()
        assert "Traceback" not in err
        return status, out, err
