"""Take the graph pane's screenshot: a 300-node neighbourhood, laid out, fitted and labelled.

Usage: ``python tests/tools/graph_screenshot.py OUT_DIR`` (``make screenshot``) writes
``graph-pane.png`` (with ``QT_SCALE_FACTOR`` set, ``graph-pane@1.5x.png``). The display is
chosen as for the window's screenshots (``screenshot.py``): ``DISPLAY``, an ``Xvfb`` it starts,
or offscreen.
"""

from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))  # support.graph, the in-memory graph of the tests

SIZE = (760, 560)
NODES = 300
WORDS = [
    "compost",
    "balcony",
    "worm",
    "bin",
    "soil",
    "tomatoes",
    "seedlings",
    "watering",
    "sync",
    "offline",
    "notes",
    "outbox",
    "local-first",
    "CRDT",
    "cache",
    "reading",
    "garden",
    "sleep",
    "memory",
    "learning",
    "spaced",
    "repetition",
    "sqlite",
    "harvest",
    "pests",
    "mulch",
    "light",
]


def _titled(nodes: list[Any], seed: int) -> list[Any]:
    """The synthetic nodes with titles made of library words instead of numbers."""
    from memex_desktop.graph.synthetic import SyntheticNode

    rng = random.Random(seed)
    titled = []
    for node in nodes:
        words = " ".join(rng.sample(WORDS, rng.randint(2, 4)))
        titled.append(SyntheticNode(node.id, node.type, words[:1].upper() + words[1:]))
    return titled


def _wait(app: Any, condition: Any, timeout_s: float) -> None:
    """Process events until ``condition()`` holds."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit("the graph did not get drawn in time")
        app.processEvents()
        time.sleep(0.01)


def take(out_dir: Path) -> Path:
    """Lay out a 300-node neighbourhood in a shown pane and save its picture."""
    from PySide6.QtWidgets import QApplication
    from support.graph import MemoryGraph

    from memex_desktop.graph.synthetic import synthetic_neighbourhood
    from memex_desktop.ui import theme
    from memex_desktop.ui.graph_pane import GraphPane
    from memex_desktop.ui.tasks import TaskRunner

    app = QApplication.instance() or QApplication([])
    theme.install(app, "light")
    center, nodes, edges = synthetic_neighbourhood(2000, 6000, seed=5)
    runner = TaskRunner()
    pane = GraphPane(MemoryGraph(_titled(nodes, 5), edges), runner)
    pane.max_nodes = NODES
    pane.set_hops(2)  # the crowded neighbourhood this picture is of
    pane.resize(*SIZE)
    pane.show()
    drawn: list[bool] = []
    pane.layout_finished.connect(lambda: drawn.append(True))
    pane.show_entity(center)
    _wait(app, lambda: bool(drawn), 60)
    until = time.monotonic() + 0.5
    _wait(app, lambda: time.monotonic() > until, 5)  # late layouts and repaints land
    factor = os.environ.get("QT_SCALE_FACTOR", "").strip()
    suffix = f"@{float(factor):g}x" if factor and float(factor) != 1.0 else ""
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"graph-pane{suffix}.png"
    if not pane.grab().save(str(out), "PNG"):
        raise SystemExit(f"could not write {out}")
    print(f"{out}: {len(pane.shown_labels())} of {len(pane.node_positions())} labels shown")
    pane.close()
    runner.shutdown()
    return out


def main() -> int:
    """Take the screenshot into the folder given on the command line."""
    from screenshot import run_with_display

    return run_with_display(take, "graph_screenshot.py")


if __name__ == "__main__":
    sys.exit(main())
