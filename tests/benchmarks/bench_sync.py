"""Sync benchmark: a full sync of a generated library from the emulator over loopback.

The emulator runs in a subprocess (it generates the library itself, so its memory does not
count), and so does the sync: a small program running the same engine, writer and client as
``memex-desktop sync --full``, which reports when the last page was committed to the cache and
when the search index had caught up. Its peak RSS is the kernel's high-water mark of its own
memory (``VmHWM``; elsewhere than Linux, the resource usage of that one child). Times run from
the start of the sync process.

Measures: ``sync_entities_per_s`` (items per second until the last page is committed),
``sync_searchable_entities_per_s`` (until every item is also found by local search),
``sync_peak_rss_mb``, ``sync_seconds`` and ``sync_searchable_seconds``.
Targets at 100,000 entities: >= 2,000 entities/s and <= 400 MB.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

BENCH_API_KEY = "bench-key"
READY_TIMEOUT_S = 900.0

# The sync process: a full pull as the CLI runs it, then the search index brought up to date.
# It prints one JSON line with wall-clock times (comparable with the parent's clock).
_SYNC_CHILD = """
import json, os, sys, time
from pathlib import Path
from memex_desktop import paths
from memex_desktop.api.client import MemexClient
from memex_desktop.runtime import settle_garbage_collector
from memex_desktop.store import CacheReader, Outbox, StoreWriter
from memex_desktop.sync import SyncEngine

settle_garbage_collector()  # as `memex-desktop sync` does
data_dir, api_url = Path(sys.argv[1]), sys.argv[2]
data_dir.mkdir(parents=True, exist_ok=True)
writer = StoreWriter(paths.cache_db_path(data_dir))
outbox = Outbox(paths.outbox_db_path(data_dir))
reader = CacheReader(paths.cache_db_path(data_dir))
client = MemexClient(api_url, api_key=os.environ["MEMEX_API_KEY"])
report = SyncEngine(client, writer, outbox, reader=reader, page_size=100).run(full=True)
committed = time.time()
writer.flush_index().result()
searchable = time.time()
found = reader.stats().entities
client.close()
reader.close()
outbox.close()
writer.close()
# The kernel's high-water mark of this program's own memory (Linux); ru_maxrss would also
# count what the benchmark process had when it forked this one.
status = Path("/proc/self/status")
peak_kb = None
if status.exists():
    for line in status.read_text().splitlines():
        if line.startswith("VmHWM:"):
            peak_kb = int(line.split()[1])
print(json.dumps({"ok": report.ok, "pulled": report.pulled, "entities": found,
                  "committed": committed, "searchable": searchable, "peak_kb": peak_kb}))
"""


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


def _run_measured(argv: list[str], env: dict[str, str]) -> tuple[int, float, str, float]:
    """Run a child to completion: status, start (epoch s), stdout, peak RSS in MB (it only)."""
    started = time.time()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    output = proc.stdout.read().decode("utf-8", "replace")  # small: one JSON line
    proc.stdout.close()
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    # ru_maxrss is in kilobytes on Linux and bytes on macOS.
    peak = usage.ru_maxrss / (1024 * 1024) if sys.platform == "darwin" else usage.ru_maxrss / 1024
    return proc.returncode, started, output, peak


def run(workdir: Path, entities: int) -> dict[str, float]:
    """Full sync of ``entities`` generated items: rates until committed and searchable, RSS."""
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
        status, started, output, peak_mb = _run_measured(
            [
                sys.executable,
                "-c",
                _SYNC_CHILD,
                str(workdir / "data"),
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
        raise RuntimeError(f"the sync process exited with status {status}")
    result = json.loads(output.strip().splitlines()[-1])
    if not result["ok"] or result["entities"] < entities:
        raise RuntimeError(f"the sync did not complete: {result}")
    committed_s = result["committed"] - started
    searchable_s = result["searchable"] - started
    return {
        "sync_entities_per_s": entities / committed_s,
        "sync_searchable_entities_per_s": entities / searchable_s,
        "sync_peak_rss_mb": result["peak_kb"] / 1024 if result.get("peak_kb") else peak_mb,
        "sync_seconds": committed_s,
        "sync_searchable_seconds": searchable_s,
    }
