"""The import rules of DESIGN.md §1, checked by parsing every module of the package.

Every module belongs to a layer (its top-level package or file); each layer lists the project
modules it may import besides itself. Imports under ``if TYPE_CHECKING:`` and inside functions
count too: a layer that may not depend on another may not name it at all.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE_NAME = "memex_desktop"
PACKAGE = Path(__file__).resolve().parent.parent / PACKAGE_NAME
QT_MODULES = ("PySide6", "shiboken6")
# The version constant is all the package's __init__ holds; anyone may read it.
VERSION = "memex_desktop.__version__"


def _project(*names: str) -> tuple[str, ...]:
    return tuple(f"{PACKAGE_NAME}.{name}" for name in names)


@dataclass(frozen=True)
class Layer:
    """What the modules of one layer may import from the project, and whether Qt."""

    may_import: tuple[str, ...] = ()
    but_not: tuple[str, ...] = ()
    qt: bool = False


EVERYTHING = (PACKAGE_NAME,)
# Entity JSON is read by one module of api/, which the store, the renderer, the sync and the
# emulator share (the emulator models the server, so it reuses no other client code).
CONTENT = _project("api.content")
# The one URL parser (api.urls) decides for the cache, the renderer and the link policy alike.
URLS = _project("api.urls")
# Titles and snippets as plain words (api.plain_text), the same in the cache and the reader.
PLAIN = _project("api.plain_text")
LAYERS: dict[str, Layer] = {
    "api": Layer(),
    # api.identity: the one reading of an item's ids, which the cache indexes. paths (which
    # imports nothing of the project): the one naming of files kept aside.
    "store": Layer(
        _project("api.models", "api.identity", "paths", "lazy_names") + CONTENT + URLS + PLAIN
    ),
    "render": Layer(_project("api.models", "lazy_names") + CONTENT + URLS),
    "graph": Layer(),
    "emulator": Layer(_project("api.models") + CONTENT),
    "sync": Layer(_project("api", "store", "render", "errors", "paths")),
    "paths": Layer(),
    # A package's names imported when first asked for (the store's, the renderer's).
    "lazy_names": Layer(),
    "runtime": Layer(),
    "secrets": Layer(),
    # The check `make demo` runs before the window: it reads Qt's files, never imports Qt.
    "system_libs": Layer(),
    "settings": Layer(_project("paths")),
    # Notes not saved yet, kept beside the outbox: plain files, written as settings are.
    "drafts": Layer(_project("paths")),
    # The words for people: it knows the API's and the store's errors, nothing above them.
    "errors": Layer(_project("api", "store.errors")),
    "signin": Layer(_project("api", "paths", "secrets", "settings")),
    # The one place settings, credentials, client and engine are built, for window and CLI.
    "services": Layer(
        _project(
            "api", "store", "sync", "settings", "signin", "secrets", "errors", "paths", "runtime"
        )
    ),
    "bench": Layer(_project("paths")),
    # Why a list is empty, in words: plain values in, words out (a query quoted as a plain
    # line is shortened as every quote of it is).
    "empty_states": Layer(PLAIN),
    # The window is started through importlib only when the GUI runs: see the test below.
    "cli": Layer(EVERYTHING, but_not=_project("ui", "app")),
    "__main__": Layer(_project("cli")),
    "__init__": Layer(),
    "ui": Layer(
        EVERYTHING, but_not=_project("app", "cli", "__main__", "bench", "emulator"), qt=True
    ),
    "app": Layer(EVERYTHING, but_not=_project("__main__", "bench"), qt=True),
}


def _is_within(name: str, prefixes: tuple[str, ...]) -> bool:
    """Whether a dotted name is one of ``prefixes`` or inside one of them."""
    return any(name == prefix or name.startswith(prefix + ".") for prefix in prefixes)


def layer_of(relative: str) -> str:
    """The layer of a module given by its path inside the package (``store/reader.py``)."""
    return relative.split("/", 1)[0].removesuffix(".py")


def imported_names(relative: str, source: str) -> list[tuple[int, str]]:
    """(line, dotted name) of everything a module imports; ``from a import b`` gives ``a.b``."""
    parts = [PACKAGE_NAME, *relative.removesuffix(".py").split("/")]
    package = parts if parts[-1] == "__init__" else parts[:-1]
    package = [part for part in package if part != "__init__"]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename=relative)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found += [
                (node.lineno, module if alias.name == "*" else f"{module}.{alias.name}")
                for alias in node.names
            ]
    return found


def violations(relative: str, source: str) -> list[str]:
    """Every import of a module that its layer's rules forbid, in words."""
    layer = layer_of(relative)
    rules = LAYERS.get(layer)
    if rules is None:
        return [f"{relative} belongs to no layer of DESIGN.md §1"]
    own = f"{PACKAGE_NAME}.{layer}"
    problems = []
    for line, name in imported_names(relative, source):
        if _is_within(name, QT_MODULES):
            if not rules.qt:
                problems.append(f"{relative}:{line} imports Qt ({name})")
        elif _is_within(name, (PACKAGE_NAME,)):
            allowed = _is_within(name, (own, VERSION, *rules.may_import))
            if not allowed or _is_within(name, rules.but_not):
                problems.append(f"{relative}:{line} ({layer}) imports {name}")
    return problems


def _package_modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _relative(module: Path) -> str:
    return module.relative_to(PACKAGE).as_posix()


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_layer_imports_only_what_it_may(layer: str) -> None:
    found = [
        problem
        for module in _package_modules()
        if layer_of(_relative(module)) == layer
        for problem in violations(_relative(module), module.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


def test_every_module_belongs_to_a_layer() -> None:
    assert {layer_of(_relative(module)) for module in _package_modules()} <= LAYERS.keys()


def test_the_design_layers_are_all_ruled() -> None:
    design = (
        "api store sync render graph emulator settings errors paths signin runtime services "
        "cli ui app"
    )
    assert set(design.split()) <= LAYERS.keys()


@pytest.mark.parametrize(
    ("relative", "source"),
    [
        ("store/reader.py", "from memex_desktop.sync import SyncEngine"),
        ("store/reader.py", "from ..sync import engine"),
        ("store/reader.py", "from memex_desktop.api.client import MemexClient"),
        ("store/reader.py", "import memex_desktop.api_extra"),
        ("api/models.py", "from memex_desktop import errors"),
        ("emulator/library.py", "from memex_desktop.api.identity import canonical_id"),
        ("render/entities.py", "from memex_desktop.store import CacheReader"),
        ("render/sanitize.py", "from memex_desktop.api.client import MemexClient"),
        ("graph/layout.py", "from memex_desktop.api.urls import parse_url"),
        ("graph/layout.py", "from PySide6.QtCore import QObject"),
        ("graph/layout.py", "from memex_desktop.store.neighbourhood import hop_distances"),
        ("sync/engine.py", "from memex_desktop.ui.tasks import Task"),
        ("settings.py", "from memex_desktop import signin"),
        ("errors.py", "from memex_desktop.store import StoreError"),
        ("errors.py", "from memex_desktop.sync.types import SyncOutcome"),
        ("services.py", "from memex_desktop.ui.main_window import MainWindow"),
        ("services.py", "import PySide6"),
        ("cli.py", "from memex_desktop.app import run_gui"),
        ("cli.py", "def gui():\n    from PySide6.QtWidgets import QApplication"),
        ("ui/sidebar.py", "from memex_desktop.cli import main"),
        ("ui/sidebar.py", "from memex_desktop.emulator import serve"),
        ("paths.py", "from memex_desktop import settings"),
        ("newlayer.py", "import json"),
    ],
)
def test_a_forbidden_import_is_caught(relative: str, source: str) -> None:
    assert violations(relative, source)


@pytest.mark.parametrize(
    ("relative", "source"),
    [
        ("store/reader.py", "from memex_desktop.api.identity import canonical_id"),
        ("store/reader.py", "from memex_desktop.api.content import message_text"),
        ("store/urls.py", "from memex_desktop.api.urls import parse_url"),
        ("render/sanitize.py", "from memex_desktop.api.urls import parse_web_url"),
        ("store/reader.py", "from . import rows\nfrom .rows import EntityRow"),
        ("store/__init__.py", "from .reader import CacheReader"),
        ("emulator/library.py", "from memex_desktop.api.models import Entity"),
        ("sync/engine.py", "from memex_desktop import __version__, paths"),
        ("services.py", "from memex_desktop.sync import SyncEngine"),
        ("services.py", "from memex_desktop.signin import ClientAuth"),
        ("cli.py", "from memex_desktop.sync.doctor import run_doctor"),
        ("ui/sidebar.py", "from PySide6.QtWidgets import QTreeView"),
        ("app.py", "from memex_desktop.ui.main_window import MainWindow"),
    ],
)
def test_an_allowed_import_passes(relative: str, source: str) -> None:
    assert violations(relative, source) == []


def _run_fresh(script: str) -> str:
    """What ``script`` prints in a new interpreter that imports this checkout's package."""
    search_path = os.pathsep.join([str(PACKAGE.parent), os.environ.get("PYTHONPATH", "")])
    env = {**os.environ, "PYTHONPATH": search_path, "QT_QPA_PLATFORM": "offscreen"}
    loaded = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        env=env,
    )
    return loaded.stdout


def test_qt_free_modules_load_without_qt() -> None:
    """Importing every module outside ui/ and app.py (the CLI too) loads no Qt at all."""
    names = [
        ".".join([PACKAGE_NAME, *_relative(module).removesuffix(".py").split("/")]).removesuffix(
            ".__init__"
        )
        for module in _package_modules()
        if layer_of(_relative(module)) not in ("ui", "app", "__main__")
    ]
    script = (
        "import importlib, sys\n"
        f"for name in {names!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sys.modules['memex_desktop'].__file__)\n"
        f"print(sorted(m for m in sys.modules if m.startswith({QT_MODULES!r})))\n"
    )
    package_file, qt_loaded = _run_fresh(script).splitlines()
    assert Path(package_file).parent == PACKAGE
    assert qt_loaded == "[]", f"Qt loaded without ui/ or app.py: {qt_loaded}"


# What a window's start needs only once it has shown the library (connecting, signing in,
# fetching pictures, a dialog): loaded before the first frame, they cost a start about 170 ms.
LATER_THAN_THE_FIRST_FRAME = (
    "httpx",
    "asyncio",
    "keyring",
    "memex_desktop.api.client",
    "memex_desktop.api.oauth",
    "memex_desktop.signin",
    "memex_desktop.render.image_fetch",
    "memex_desktop.sync.doctor",
    "memex_desktop.ui.dialogs",
)


def test_a_window_start_leaves_for_later_what_its_first_frame_does_not_need() -> None:
    """The command line and the window's modules, as ``memex-desktop`` imports them to show
    its first frame, leave the HTTP client, sign-in, the keyring and the dialogs for later."""
    script = (
        "import sys\n"
        "import memex_desktop.cli, memex_desktop.app\n"
        f"print(sorted(m for m in {LATER_THAN_THE_FIRST_FRAME!r} if m in sys.modules))\n"
    )
    assert _run_fresh(script).strip() == "[]"


def test_no_path_built_from_dunder_file_outside_paths() -> None:
    for module in _package_modules():
        if module.name == "paths.py":
            continue
        assert "__file__" not in module.read_text(encoding="utf-8"), module
