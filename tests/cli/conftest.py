"""The command line's tests run on a data folder of the demo library."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.cli import Cli

from memex_desktop import paths


@pytest.fixture
def run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Cli:
    """The demo library imported into a fresh data folder (no server)."""
    run = Cli(capsys, tmp_path / "data", "http://127.0.0.1:9", api_key=None)
    status, _, err = run("import", str(paths.resource_path("demo", "library.json")))
    assert status == 0, err
    return run
