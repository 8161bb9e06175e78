"""Sync benchmark: a full sync of a generated library from the emulator over loopback.

The emulator runs in a subprocess (it generates the library itself, so its memory does not
count), and so does the sync (``memex-desktop sync --full``), whose peak RSS is read from the
kernel's resource usage of that one child. Measures: ``sync_entities_per_s`` (items ingested
per second of wall time, process start included), ``sync_peak_rss_mb``, ``sync_seconds``.
Targets at 100,000 entities: >= 2,000 entities/s and <= 400 MB.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

BENCH_API_KEY = "bench-key"
READY_TIMEOUT_S = 900.0


def _free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_until_listening(proc: subprocess.Popen[bytes], port: int) -> None:
    """Poll the port until the emulator accepts connections (it first builds the library)."""
    deadline = time.monotonic() + READY_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the emulator exited with status {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)  # a benchmark, not a test: waiting for a server to come up
    raise RuntimeError("the emulator did not start in time")


def _run_measured(argv: list[str], env: dict[str, str]) -> tuple[int, float, float]:
    """Run a child to completion: exit status, wall seconds, peak RSS in MB (that child only)."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.stdout is not None:
        proc.stdout.close()
    # ru_maxrss is in kilobytes on Linux and bytes on macOS.
    peak = usage.ru_maxrss / (1024 * 1024) if sys.platform == "darwin" else usage.ru_maxrss / 1024
    return proc.returncode, elapsed, peak


def run(workdir: Path, entities: int) -> dict[str, float]:
    """Full sync of ``entities`` generated items; rate, peak RSS and duration."""
    port = _free_port()
    env = dict(os.environ)
    env.pop("MEMEX_DATA_DIR", None)
    env["MEMEX_API_KEY"] = BENCH_API_KEY
    env["XDG_CONFIG_HOME"] = str(workdir / "config")  # default settings, page size 100
    emulator = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memex_desktop",
            "emulator",
            "--port",
            str(port),
            "--generate",
            str(entities),
            "--api-key",
            BENCH_API_KEY,
            "--max-page-size",
            "100",
            "--balance-micros",
            str(10**15),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_until_listening(emulator, port)
        status, seconds, peak_mb = _run_measured(
            [
                sys.executable,
                "-m",
                "memex_desktop",
                "sync",
                "--full",
                "--quiet",
                "--data-dir",
                str(workdir / "data"),
                "--api-url",
                f"http://127.0.0.1:{port}",
            ],
            env,
        )
    finally:
        emulator.terminate()
        try:
            emulator.wait(timeout=30)
        except subprocess.TimeoutExpired:
            emulator.kill()
            emulator.wait()
    if status != 0:
        raise RuntimeError(f"sync exited with status {status}")
    return {
        "sync_entities_per_s": entities / seconds,
        "sync_peak_rss_mb": peak_mb,
        "sync_seconds": seconds,
    }
