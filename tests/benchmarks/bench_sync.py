"""Sync benchmark: a full sync of a generated library from the emulator over loopback, and over
a network of 200 ms per page.

The emulator runs in a subprocess (it reads the library file prepared once for the run, so its
memory does not count), and so does the sync: a small program running the same engine, writer
and client as ``memex-desktop sync --full``, which reports when the last page was committed to
the cache and when the search index had caught up. Its peak RSS is the kernel's high-water mark
of its own memory (``VmHWM``; elsewhere than Linux, the resource usage of that one child). Times
run from the start of the sync process.

Measures: ``sync_entities_per_s`` (items per second until the last page is committed),
``sync_searchable_entities_per_s`` (until every item is also found by local search),
``sync_peak_rss_mb``, ``sync_seconds``, ``sync_searchable_seconds``, ``first_results_s`` (from
the first page received to the first local search finding an item of it),
``sync_in_flight_count`` (the most requests the pass kept in flight), and ``sync_cpu_s`` and
``sync_emulator_cpu_s`` (processor seconds of the sync process and of the emulator serving it:
on a machine of two cores, what the emulator takes is not there for the sync).

``sync_entities_per_s_floor`` and ``sync_seconds_floor``: the same pages from the same emulator,
fetched and decoded by a bare httpx loop (one request at a time) and inserted with one
``executemany`` per page into a plain table with an FTS5 index, one commit per page: what a
straightforward sync costs.

``sync_200ms_seconds``, ``sync_200ms_searchable_seconds``, ``sync_200ms_entities_per_s`` and
``sync_200ms_in_flight_count``: the same full sync from an emulator that delays every request
by 200 ms (``--latency-ms 200``, 100 items per page), as a distant server does; a sync bound by
round trips, not by the writer. It syncs at most ``NETWORK_MAX_ENTITIES`` (100,000) items, the
size its target is set for: beyond, the library of that many items with the same seed is
synced (the first items of the larger one, but for their tags), since a million items at
200 ms per page would add about ten minutes to the run for a figure that has no target.
Targets at 100,000 entities: >= 2,500 entities/s and >= 80 % of the floor, <= 300 MB, and at
200 ms per page <= 90 s.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memex_desktop.emulator.kept_libraries import prepared_library

BENCH_API_KEY = "bench-key"
READY_TIMEOUT_S = 900.0
PAGE_SIZE = 100
NETWORK_LATENCY_MS = 200
NETWORK_MAX_ENTITIES = 100_000

# The sync process: a full pull as the CLI runs it, then the search index brought up to date.
# It prints one JSON line with wall-clock times (comparable with the parent's clock).
_SYNC_CHILD = """
import json, os, re, sys, threading, time
from pathlib import Path
from memex_desktop import paths
from memex_desktop.api.client import MemexClient
from memex_desktop.runtime import return_freed_memory_periodically, settle_garbage_collector
from memex_desktop.store import CacheReader, Outbox, StoreWriter
from memex_desktop.sync import SyncEngine

settle_garbage_collector()  # as `memex-desktop sync` does
return_freed_memory_periodically()
data_dir, api_url = Path(sys.argv[1]), sys.argv[2]
data_dir.mkdir(parents=True, exist_ok=True)
writer = StoreWriter(paths.cache_db_path(data_dir))
outbox = Outbox(paths.outbox_db_path(data_dir))
reader = CacheReader(paths.cache_db_path(data_dir))
client = MemexClient(api_url, api_key=os.environ["MEMEX_API_KEY"])
first_page = threading.Event()
times = {}

def progress(step):
    if step.phase == "pull" and not first_page.is_set():
        times["first_page"] = time.time()
        first_page.set()

def found_one(searcher):
    # Whether a word of a cached item's text finds anything in the local search.
    for entity_id in searcher.all_ids(limit=50):
        raw = searcher.raw_json(entity_id) or {}
        text = " ".join(str(raw.get(key) or "") for key in ("title", "text", "description"))
        words = re.findall("[a-z]{4,}", text.lower())
        if words and searcher.search(words[0], limit=1):
            return True
    return False

def first_result():
    first_page.wait()
    searcher = CacheReader(paths.cache_db_path(data_dir))
    try:
        while not gave_up.is_set():
            try:
                if found_one(searcher):
                    times["first_result"] = time.time()
                    return
            except Exception as exc:  # the cache is being created: ask again
                times["first_result_error"] = repr(exc)
            time.sleep(0.005)
    finally:
        searcher.close()

gave_up = threading.Event()

poller = threading.Thread(target=first_result, daemon=True)
poller.start()
engine = SyncEngine(client, writer, outbox, reader=reader, page_size=100)
report = engine.run(full=True, progress=progress)
committed = time.time()
writer.flush_index().result()
searchable = time.time()
found = reader.stats().entities
poller.join(60)
gave_up.set()
poller.join()
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
                  "committed": committed, "searchable": searchable, "peak_kb": peak_kb,
                  "first_page": times.get("first_page"), "first_result": times.get("first_result"),
                  "first_result_error": times.get("first_result_error"),
                  "in_flight": getattr(getattr(engine, "in_flight", None), "most", 2)}))
"""

# The floor: the same pages by a bare loop, decoded, one executemany each into a plain table
# whose FTS5 index a trigger keeps, one commit per page.
_FLOOR_CHILD = """
import json, sqlite3, sys, time
import httpx

database, api_url, key = sys.argv[1], sys.argv[2], sys.argv[3]
connection = sqlite3.connect(database)
connection.executescript(\"\"\"
    PRAGMA journal_mode = WAL;
    PRAGMA synchronous = NORMAL;
    CREATE TABLE items (rowid INTEGER PRIMARY KEY, id TEXT UNIQUE, title TEXT, body TEXT,
                        raw TEXT);
    CREATE VIRTUAL TABLE items_fts USING fts5(title, body, content='items',
                                              content_rowid='rowid');
    CREATE TRIGGER items_indexed AFTER INSERT ON items BEGIN
        INSERT INTO items_fts(rowid, title, body) VALUES (new.rowid, new.title, new.body);
    END;
\"\"\")
started = time.time()
offset = count = 0
with httpx.Client(base_url=api_url, headers={"x-api-key": key}, timeout=60) as http:
    while True:
        body = {"query": "", "raw": True, "limit": 100, "offset": offset, "sortBy": "date-desc",
                "includeNotes": True}
        page = http.post("/search", json=body).json()
        results = page.get("results") or []
        if not results:
            break
        rows = [(e["id"], e.get("title") or "",
                 " ".join(str(e.get(k) or "") for k in ("full_text", "text", "description")),
                 json.dumps(e)) for e in results]
        connection.executemany(
            "INSERT OR REPLACE INTO items (id, title, body, raw) VALUES (?, ?, ?, ?)", rows)
        connection.commit()
        offset += len(results)
        count += len(results)
connection.close()
print(json.dumps({"items": count, "seconds": time.time() - started}))
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


def _run_measured(argv: list[str], env: dict[str, str]) -> tuple[int, float, str, float, float]:
    """Run a child to completion: status, start (epoch s), stdout, peak RSS in MB (it only),
    processor seconds (user and system)."""
    started = time.time()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    output = proc.stdout.read().decode("utf-8", "replace")  # small: one JSON line
    proc.stdout.close()
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    # ru_maxrss is in kilobytes on Linux and bytes on macOS.
    peak = usage.ru_maxrss / (1024 * 1024) if sys.platform == "darwin" else usage.ru_maxrss / 1024
    return proc.returncode, started, output, peak, usage.ru_utime + usage.ru_stime


def _start_emulator(
    library: Path, port: int, env: dict[str, str], latency_ms: float = 0.0
) -> subprocess.Popen[bytes]:
    """The emulator serving ``library`` on ``port`` (returns once it listens)."""
    emulator = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "memex_desktop",
            "emulator",
            "--port",
            str(port),
            "--library",
            str(library),
            "--api-key",
            BENCH_API_KEY,
            "--max-page-size",
            str(PAGE_SIZE),
            "--balance-micros",
            str(10**15),
            *(["--latency-ms", str(latency_ms)] if latency_ms else []),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_until_listening(emulator, port)
    except BaseException:
        _stop(emulator)
        raise
    return emulator


def _processor_seconds(pid: int) -> float | None:
    """User and system processor seconds of a running process so far (Linux), else None."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # utime and stime, the 14th and 15th fields, counting from the pid.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _stop(emulator: subprocess.Popen[bytes]) -> None:
    emulator.terminate()
    try:
        emulator.wait(timeout=30)
    except subprocess.TimeoutExpired:
        emulator.kill()
        emulator.wait()


def _bench_env(workdir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("MEMEX_DATA_DIR", None)
    env["MEMEX_API_KEY"] = BENCH_API_KEY
    env["XDG_CONFIG_HOME"] = str(workdir / "config")  # default settings, page size 100
    return env


@dataclass(frozen=True)
class _Served:
    """An emulator running for a benchmark: where it answers, its process, the environment."""

    api_url: str
    pid: int
    env: dict[str, str]


@contextmanager
def _serving(library: Path, workdir: Path, latency_ms: float = 0.0) -> Iterator[_Served]:
    """An emulator serving ``library`` for the block (loading a million items takes minutes,
    so the loopback sync and the floor share one: a full sync only reads)."""
    env = _bench_env(workdir)
    port = _free_port()
    emulator = _start_emulator(library, port, env, latency_ms)
    try:
        yield _Served(f"http://127.0.0.1:{port}", emulator.pid, env)
    finally:
        _stop(emulator)


def full_sync(served: _Served, data_dir: Path, entities: int) -> dict[str, Any]:
    """One full sync into a fresh data folder: the sync child's report, times from its start."""
    emulator_before = _processor_seconds(served.pid)
    status, started, output, peak_mb, sync_cpu_s = _run_measured(
        [sys.executable, "-c", _SYNC_CHILD, str(data_dir), served.api_url], served.env
    )
    emulator_after = _processor_seconds(served.pid)
    if status != 0:
        raise RuntimeError(f"the sync process exited with status {status}")
    result: dict[str, Any] = json.loads(output.strip().splitlines()[-1])
    if not result["ok"] or result["entities"] < entities:
        raise RuntimeError(f"the sync did not complete: {result}")
    result["started"] = started
    result["peak_mb"] = result["peak_kb"] / 1024 if result.get("peak_kb") else peak_mb
    result["cpu_s"] = sync_cpu_s
    result["emulator_cpu_s"] = (
        emulator_after - emulator_before
        if emulator_before is not None and emulator_after is not None
        else None
    )
    return result


def floor_sync(served: _Served, database: Path, entities: int) -> float:
    """Seconds of the bare loop fetching and inserting the same pages from the same emulator."""
    done = subprocess.run(
        [sys.executable, "-c", _FLOOR_CHILD, str(database), served.api_url, BENCH_API_KEY],
        env=served.env,
        capture_output=True,
        text=True,
        check=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["items"] < entities:
        raise RuntimeError(f"the floor loop did not fetch every item: {result}")
    seconds: float = result["seconds"]
    return seconds


def run(workdir: Path, entities: int) -> dict[str, float]:
    """Full syncs of ``entities`` generated items (loopback, 200 ms per page) and the floor."""
    prepared = prepared_library(entities, seed=7)
    with _serving(prepared.path, workdir) as served:
        loopback = full_sync(served, workdir / "data-loopback", entities)
        floor_s = floor_sync(served, workdir / "floor.db", entities)
    network_entities = min(entities, NETWORK_MAX_ENTITIES)
    network_library = (
        prepared if network_entities == entities else prepared_library(network_entities, seed=7)
    )
    with _serving(network_library.path, workdir, NETWORK_LATENCY_MS) as served:
        network = full_sync(served, workdir / "data-200ms", network_entities)
    committed_s = loopback["committed"] - loopback["started"]
    searchable_s = loopback["searchable"] - loopback["started"]
    network_s = network["committed"] - network["started"]
    measures = {
        "library_s": prepared.seconds,
        "sync_entities_per_s": entities / committed_s,
        "sync_entities_per_s_floor": entities / floor_s,
        "sync_searchable_entities_per_s": entities / searchable_s,
        "sync_peak_rss_mb": loopback["peak_mb"],
        "sync_seconds": committed_s,
        "sync_seconds_floor": floor_s,
        "sync_searchable_seconds": searchable_s,
        "sync_in_flight_count": float(loopback["in_flight"]),
        "sync_cpu_s": loopback["cpu_s"],
        "sync_200ms_seconds": network_s,
        "sync_200ms_searchable_seconds": network["searchable"] - network["started"],
        "sync_200ms_entities_per_s": network_entities / network_s,
        "sync_200ms_in_flight_count": float(network["in_flight"]),
    }
    if loopback["emulator_cpu_s"] is not None:
        measures["sync_emulator_cpu_s"] = loopback["emulator_cpu_s"]
    if loopback.get("first_page") and loopback.get("first_result"):
        measures["first_results_s"] = loopback["first_result"] - loopback["first_page"]
    return measures
