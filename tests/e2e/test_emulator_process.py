"""The emulator run as its own process (what `memex-desktop emulator` and the benchmarks start)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memex_desktop.emulator import EmulatorConfig
from memex_desktop.settings import API_KEY_ENV


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_listening(proc: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the emulator exited"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)  # waiting for a server process to come up
    pytest.fail("the emulator did not listen in time")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM")
def test_a_terminated_emulator_leaves_no_database_behind(tmp_path: Path) -> None:
    port = _free_port()
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "memex_desktop", "emulator", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_listening(proc, port)
        assert list(tmp_path.glob("memex-emulator-*"))  # its database, while it runs
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 128 + signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not list(tmp_path.glob("memex-emulator-*"))


def test_the_emulator_says_it_is_ready_only_once_it_answers(tmp_path: Path) -> None:
    # A big library takes a while to load: a client started on the first line was refused.
    port = _free_port()
    without_key = {name: value for name, value in os.environ.items() if name != API_KEY_ENV}
    proc = subprocess.Popen(
        [sys.executable, "-m", "memex_desktop", "emulator", "--port", str(port)],
        env={**without_key, "TMPDIR": str(tmp_path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        first = proc.stderr.readline()
        assert "loading" in first
        while "ready" not in (line := proc.stderr.readline()):
            assert line, "the emulator ended without saying it was ready"
        assert f":{port}" in line
        # Someone pointing a window at it learns the key it accepts.
        assert line.rstrip().endswith(f"(API key {EmulatorConfig().api_key})")
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            pass  # it answers as soon as it says so
    finally:
        proc.kill()
        proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()


def test_the_emulator_never_prints_a_key_it_was_given(tmp_path: Path) -> None:
    # MEMEX_API_KEY is also where a person keeps their real key.
    port = _free_port()
    secret = "sk-not-for-printing-0123"
    proc = subprocess.Popen(
        [sys.executable, "-m", "memex_desktop", "emulator", "--port", str(port)],
        env={**os.environ, API_KEY_ENV: secret, "TMPDIR": str(tmp_path)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        said = []
        while "ready" not in (line := proc.stderr.readline()):
            assert line, "the emulator ended without saying it was ready"
            said.append(line)
        said.append(line)
        assert line.rstrip().endswith("(the API key given)")
        assert not any(secret in line for line in said)
    finally:
        proc.kill()
        proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
