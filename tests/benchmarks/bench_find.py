"""Find in the article: counting and stepping through matches in the reader's 1 MB article.

Measures, in a fresh process with a real reader pane (offscreen) on a real cache holding the
reader benchmark's 1 MB markdown article: ``find_1mb_ms`` (median, from typing a word to every
match counted, the nearest painted and selected), ``find_step_ms`` (median of F3 / Shift+F3 to
the next or previous match) and ``find_1mb_floor_ms`` (the least work any find can do, in the
same run: one case-insensitive regular-expression pass over the same plain text, counting).
Target: within the reader benchmark's 150 ms.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys
from types import ModuleType

from memex_desktop.store import StoreWriter

ARTICLE_ID = "find-article"
NEEDLES = ("harbour", "quietly measures", "Northern", "tide gate keeper", "absent-word")

_FIND = """
import json, re, statistics, sys, time
from pathlib import Path
from PySide6.QtWidgets import QApplication
from memex_desktop.ui.reader_pane import ReaderPane
from memex_desktop.ui.tasks import TaskRunner

app = QApplication([])
runner = TaskRunner()
pane = ReaderPane(Path(sys.argv[1]), runner)
pane.resize(900, 700)
pane.show()
pane.show_entity(sys.argv[2])
while pane.rendering or pane.loading_more or pane.current_entity_id != sys.argv[2]:
    app.processEvents()
    time.sleep(0.001)
needles = json.loads(sys.argv[3])
pane.open_find()
found, steps, floor, counts = [], [], [], []
for needle in needles * 3:
    pane.find_bar.field.clear()
    app.processEvents()
    started = time.perf_counter()
    pane.find_bar.field.setText(needle)
    app.processEvents()
    found.append((time.perf_counter() - started) * 1000)
    counts.append(len(pane._finder.matches))
    for direction in (1, 1, -1, 1):
        started = time.perf_counter()
        pane.find_step(direction)
        app.processEvents()
        steps.append((time.perf_counter() - started) * 1000)
    text = pane.browser.document().toPlainText()
    started = time.perf_counter()
    sum(1 for _ in re.finditer(re.escape(needle), text, re.IGNORECASE))
    floor.append((time.perf_counter() - started) * 1000)
print(json.dumps({"find_ms": statistics.median(found), "step_ms": statistics.median(steps),
                  "floor_ms": statistics.median(floor), "chars": len(text), "counts": counts}))
runner.shutdown()
"""


def _render_benchmark() -> ModuleType:
    """The reader benchmark module beside this one (its 1 MB article)."""
    path = pathlib.Path(__file__).with_name("bench_render.py")
    spec = importlib.util.spec_from_file_location("memex_bench_render_article", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(workdir: pathlib.Path, entities: int) -> dict[str, float]:
    """Open the 1 MB article in a reader pane in a new process and find in it."""
    del entities
    markdown_source, _html = _render_benchmark().build_articles()
    cache_path = pathlib.Path(workdir) / "find-cache.db"
    writer = StoreWriter(cache_path)
    try:
        item = {"id": ARTICLE_ID, "type": "web", "title": "A long field report",
                "url": "https://example.org/report", "full_text": markdown_source,
                "created_at": 1_700_000_000_000}  # fmt: skip
        writer.ingest_json([item]).result()
    finally:
        writer.close()
    done = subprocess.run(
        [sys.executable, "-c", _FIND, str(cache_path), ARTICLE_ID, json.dumps(NEEDLES)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["chars"] < 900_000 or not any(result["counts"]):
        raise RuntimeError(f"the find benchmark did not find in the whole article: {result}")
    return {
        "find_1mb_ms": result["find_ms"],
        "find_1mb_floor_ms": result["floor_ms"],
        "find_step_ms": result["step_ms"],
    }


if __name__ == "__main__":
    print(run(pathlib.Path("."), 0))
