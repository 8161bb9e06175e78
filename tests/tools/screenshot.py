"""Take the screenshots: the demo library in the main window, a note thread open, at each size.

Usage: ``python tests/tools/screenshot.py OUT_DIR`` (``make screenshot``) writes
``main-window-1366x768.png``, ``main-window-960x600.png`` and ``main-window-1920x1080.png``
(each window laid out as a first run at that size would be, in the light theme),
``main-window-dark-1366x768.png`` (the dark theme) and ``shortcuts-dialog.png``;
with ``QT_SCALE_FACTOR`` set (1.5: a 150 % display) the names end in ``@1.5x``. Runs under
the X display in ``DISPLAY`` (for example ``Xvfb :99`` with ``DISPLAY=:99``, which has the
system fonts), starting ``Xvfb :99`` itself when it is installed and no display is set, else
offscreen.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

# A laptop, the smallest window the layout is made for, and a desktop monitor.
SIZES = ((1366, 768), (960, 600), (1920, 1080))
SCREEN = (3000, 1700)  # holds the largest size at 150 %


def _xcb_loads() -> bool:
    """Whether Qt's X11 plugin can start here (it needs the libxcb-* system libraries)."""
    probe = "from PySide6.QtWidgets import QApplication; QApplication([])"
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb"}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, timeout=30)
    return done.returncode == 0


def _display() -> subprocess.Popen[bytes] | None:
    """Use the current display, start Xvfb :99, or fall back to offscreen rendering.

    Offscreen rendering uses the same fontconfig fonts, so the picture looks the same when the
    X11 plugin cannot load.
    """
    if os.environ.get("DISPLAY") and _xcb_loads():
        os.environ["QT_QPA_PLATFORM"] = "xcb"
        return None
    if shutil.which("Xvfb") and not os.environ.get("DISPLAY"):
        server = subprocess.Popen(
            ["Xvfb", ":99", "-screen", "0", f"{SCREEN[0]}x{SCREEN[1]}x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.environ["DISPLAY"] = ":99"
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not Path("/tmp/.X11-unix/X99").exists():
            time.sleep(0.05)  # a tool, not a test: waits for the X server's socket
        if _xcb_loads():
            os.environ["QT_QPA_PLATFORM"] = "xcb"
            return server
        server.terminate()
        server.wait(10)
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    return None


def _item_with_thread(library: dict[str, Any]) -> str:
    """The content item whose note thread is deepest (a note with replies, ideally cited)."""
    entities = {e["id"]: e for e in library["results"]}
    notes = [e for e in library["results"] if e["type"] == "annotation"]
    replies: dict[str, int] = {}
    for note in notes:
        targets = note.get("reference_content_ids") or []
        if targets and targets[0] in entities and entities[targets[0]]["type"] == "annotation":
            replies[targets[0]] = replies.get(targets[0], 0) + 1
    best: tuple[int, str] | None = None
    for note in notes:
        targets = note.get("reference_content_ids") or []
        if not targets or targets[0] not in entities:
            continue
        target = entities[targets[0]]
        if target["type"] in ("annotation", "chatThread"):
            continue
        score = replies.get(note["id"], 0) * 10 + (target["type"] == "web") * 5
        if best is None or score > best[0]:
            best = (score, target["id"])
    if best is None:
        raise SystemExit("the demo library has no note on a content item")
    return best[1]


def _wait(app: Any, condition: Any, timeout_s: float) -> None:
    """Process events until ``condition()`` holds."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit("the window did not get ready in time")
        app.processEvents()
        time.sleep(0.01)


def _settle(app: Any, seconds: float) -> None:
    """Process events for ``seconds`` (late layouts and repaints land)."""
    until = time.monotonic() + seconds
    _wait(app, lambda: time.monotonic() > until, seconds + 5)


def _scale_suffix() -> str:
    """``@1.5x`` under QT_SCALE_FACTOR=1.5, nothing at 100 %."""
    factor = os.environ.get("QT_SCALE_FACTOR", "").strip()
    if not factor or float(factor) == 1.0:
        return ""
    return f"@{float(factor):g}x"


def _save(image: Any, out: Path) -> None:
    """Write one PNG and say what it holds."""
    if not image.save(str(out), "PNG"):
        raise SystemExit(f"could not write {out}")
    print(f"{out}: {image.width()}x{image.height()} device pixels")


def _take_dark(app: Any, window: Any, graph: Any, out_dir: Path, suffix: str) -> None:
    """The window at the first size in the dark theme, then light again."""
    from memex_desktop.ui import theme

    controller = theme.installed()
    if controller is None:
        return
    width, height = SIZES[0]
    controller.set_setting("dark")
    window.resize(width, height)
    _wait(app, lambda: (window.width(), window.height()) == (width, height), 10)
    window.arrange_default_panes(width, height)
    if graph is not None:
        graph.fit()
    _settle(app, 1.0)
    _save(window.grab(), out_dir / f"main-window-dark-{width}x{height}{suffix}.png")
    controller.set_setting("light")
    _settle(app, 0.5)


def take(out_dir: Path) -> None:
    """Start the demo, open an item with a note thread, grab the window at every size."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QDialog

    from memex_desktop import paths
    from memex_desktop.app import build_main_window, create_application, start_demo
    from memex_desktop.ui import theme

    app = create_application()
    theme.install(app, "light")  # the person's own saved theme does not choose the pictures
    demo = start_demo()
    home = Path(tempfile.mkdtemp(prefix="memex-shot-"))
    suffix = _scale_suffix()
    out_dir.mkdir(parents=True, exist_ok=True)
    try:
        qsettings = QSettings(str(home / "window.ini"), QSettings.Format.IniFormat)
        context = build_main_window(
            data_dir=demo.data_dir,
            api_url=demo.emulator.base_url,
            api_key=demo.emulator.api_key,
            qsettings=qsettings,
        )
        window = context.window
        window.set_library_label("Demo library")
        window.resize(*SIZES[0])
        window.show()
        reports: list[Any] = []
        context.controller.sync_finished.connect(reports.append)
        _wait(app, lambda: bool(reports), 60)
        library = json.loads(paths.resource_path("demo", "library.json").read_text("utf-8"))
        item = _item_with_thread(library)
        opened: list[str] = []
        window.entity_opened.connect(opened.append)
        _wait(app, lambda: window.results_model.rowCount() > 0, 30)
        window.select_entity(item)
        _wait(app, lambda: item in opened, 30)
        graph = window.graph_pane
        if graph is not None:
            _wait(app, lambda: graph.center == item and not graph.is_laying_out(), 30)
        _wait(app, lambda: context.runner.active_count() == 0, 30)
        for width, height in SIZES:
            window.resize(width, height)
            _wait(app, lambda w=width, h=height: (window.width(), window.height()) == (w, h), 10)
            window.arrange_default_panes(width, height)
            if graph is not None:
                graph.fit()
            _settle(app, 1.0)
            _save(window.grab(), out_dir / f"main-window-{width}x{height}{suffix}.png")
        _take_dark(app, window, graph, out_dir, suffix)
        window.show_shortcuts()
        dialogs = [d for d in window.findChildren(QDialog) if d.objectName() == "shortcutsdialog"]
        if dialogs:
            _settle(app, 0.5)
            _save(dialogs[0].grab(), out_dir / f"shortcuts-dialog{suffix}.png")
            dialogs[0].close()
        context.shutdown()
    finally:
        demo.close()
        shutil.rmtree(home, ignore_errors=True)


def run_with_display(take_into: Callable[[Path], object], usage: str) -> int:
    """Run ``take_into(OUT_DIR)`` for the folder on the command line, under a display."""
    if len(sys.argv) != 2:
        print(f"usage: {usage} OUT_DIR", file=sys.stderr)
        return 2
    server = _display()
    try:
        take_into(Path(sys.argv[1]).resolve())
    finally:
        if server is not None:
            server.terminate()
            server.wait(10)
    return 0


def main() -> int:
    """Take the screenshots into the folder given on the command line."""
    return run_with_display(take, "screenshot.py")


if __name__ == "__main__":
    sys.exit(main())
