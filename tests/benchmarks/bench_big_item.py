"""Big item benchmark: how fast the reader shows the first screen of a huge saved page.

Measures, in fresh processes on a real cache: ``big_item_first_screen_ms`` (from asking the
reader pane for a 50 MB article to its first screen painted), ``big_item_complete_ms`` (until
the truncated view is complete) and ``big_item_peak_rss_mb`` (the process's peak resident
memory), next to the same figures for a small article opened the same way, measured in the same
run (``small_item_*``: the floor of a window process opening anything). The article grows with
the library size asked for (5 kB per entity), up to 50 MB: the default size gives the full one.
"""

from __future__ import annotations

import json
import os
import pathlib
import random
import subprocess
import sys
from typing import Any

from memex_desktop.store import StoreWriter

BYTES_PER_ENTITY = 5_000
MAX_ITEM_BYTES = 50_000_000
SMALL_ITEM_BYTES = 20_000
BIG_ID = "big-article"
SMALL_ID = "small-article"
_WORDS = [
    "harbour",
    "lantern",
    "orchard",
    "canal",
    "ledger",
    "quietly",
    "measures",
    "repairs",
    "survey",
    "tide",
    "gate",
    "keeper",
    "notebook",
    "engine",
    "bridge",
    "river",
    "northern",
    "careful",
    "brittle",
    "generous",
    "signal",
    "archive",
]

# The child process: opens one item in a reader pane and reports its timings and peak memory.
_OPEN_ITEM = """
import json, resource, sys, time
from pathlib import Path
from PySide6.QtCore import QObject, Slot
from PySide6.QtWidgets import QApplication
from memex_desktop.runtime import favour_the_gui_thread
from memex_desktop.ui.reader_pane import ReaderPane
from memex_desktop.ui.tasks import TaskRunner

def peak_rss_mb():
    # VmHWM belongs to this program alone; ru_maxrss also counts the parent it was forked from.
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

class FirstScreen(QObject):
    def __init__(self, pane, started):
        super().__init__()
        self.pane, self.started, self.ms = pane, started, None

    @Slot(str)
    def on_shown(self, entity_id):
        if self.ms is None:
            self.pane.browser.viewport().repaint()
            self.ms = (time.perf_counter() - self.started) * 1000

favour_the_gui_thread()  # as run_gui does
app = QApplication([])
runner = TaskRunner()
pane = ReaderPane(Path(sys.argv[1]), runner, item_text_mb=float(sys.argv[3]))
pane.resize(900, 700)
pane.show()
app.processEvents()
started = time.perf_counter()
watcher = FirstScreen(pane, started)
pane.entity_shown.connect(watcher.on_shown)
pane.show_entity(sys.argv[2])
while watcher.ms is None or pane.rendering or pane.loading_more:
    app.processEvents()
    time.sleep(0.001)
complete = (time.perf_counter() - started) * 1000
peak = peak_rss_mb()
print(json.dumps({"first_screen_ms": watcher.ms, "complete_ms": complete, "peak_rss_mb": peak,
                  "truncated": pane.truncated}))
runner.shutdown()
"""


def article_text(size: int, seed: int = 5) -> str:
    """A markdown article of ``size`` characters: headed sections of plain paragraphs."""
    rng = random.Random(seed)
    block: list[str] = []
    for section in range(40):
        block.append(f"## Section {section}\n")
        for _ in range(6):
            words = [rng.choice(_WORDS) for _ in range(rng.randint(40, 90))]
            block.append(" ".join(words).capitalize() + ".\n")
    unit = "\n".join(block) + "\n"
    return (unit * (size // len(unit) + 1))[:size]


def build_cache(cache_path: pathlib.Path, big_bytes: int) -> None:
    """Write a big and a small web article into a real cache at ``cache_path``."""
    writer = StoreWriter(cache_path)
    try:
        for entity_id, size in ((BIG_ID, big_bytes), (SMALL_ID, SMALL_ITEM_BYTES)):
            item = {
                "id": entity_id,
                "type": "web",
                "title": f"An article of {size} characters",
                "url": f"https://example.org/{entity_id}",
                "created_at": 1_700_000_000_000,
                "full_text": article_text(size),
            }
            writer.ingest_json([item]).result()
        writer.flush_index().result()
    finally:
        writer.close()


def open_item(cache_path: pathlib.Path, entity_id: str, item_text_mb: float = 8.0) -> Any:
    """Open one item in a reader pane in a new process; its timings and peak memory."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", _OPEN_ITEM, str(cache_path), entity_id, str(item_text_mb)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
        env=env,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(workdir: pathlib.Path, entities: int) -> dict[str, float]:
    """Build the cache, then open the small and the big article each in its own process."""
    cache_path = pathlib.Path(workdir) / "cache.db"
    build_cache(cache_path, min(MAX_ITEM_BYTES, entities * BYTES_PER_ENTITY))
    small = open_item(cache_path, SMALL_ID)
    big = open_item(cache_path, BIG_ID)
    return {
        "small_item_first_screen_ms": small["first_screen_ms"],
        "small_item_peak_rss_mb": small["peak_rss_mb"],
        "big_item_first_screen_ms": big["first_screen_ms"],
        "big_item_complete_ms": big["complete_ms"],
        "big_item_peak_rss_mb": big["peak_rss_mb"],
    }
