"""The PyInstaller bundle builds and runs with no Python alongside (``make test-bundle``)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memex_desktop import __version__

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "packaging" / "memex-desktop.spec"

pytestmark = [pytest.mark.bundle, pytest.mark.slow]


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the one-folder bundle into a temporary dist folder; the executable's path."""
    if importlib.util.find_spec("PyInstaller") is None:
        pytest.skip("PyInstaller is not installed (pip install -e '.[bundle]')")
    work = tmp_path_factory.mktemp("bundle")
    built = subprocess.run(
        [
            *(sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean"),
            *("--distpath", str(work / "dist"), "--workpath", str(work / "build"), str(SPEC)),
        ],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
        cwd=ROOT,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-5000:]
    executable = work / "dist" / "memex-desktop" / "memex-desktop"
    assert executable.is_file()
    return executable


def _environment(home: Path) -> dict[str, str]:
    """No Python paths from this interpreter, a private home, offscreen Qt."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTHON", "VIRTUAL_ENV"))
    }
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        QT_QPA_PLATFORM="offscreen",
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        PATH="/usr/bin:/bin",
    )
    return env


def test_bundle_prints_its_version(bundle: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [str(bundle), "--version"],
        capture_output=True,
        text=True,
        env=_environment(tmp_path),
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"memex-desktop {__version__}"


def test_bundle_runs_the_demo_and_quits_after_its_sync(bundle: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [str(bundle), "--demo", "--quit-after-sync"],
        capture_output=True,
        text=True,
        env=_environment(tmp_path),
        timeout=300,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
