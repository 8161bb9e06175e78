"""The import rules of DESIGN.md §1, checked by parsing every module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "memex_desktop"

# layer -> project modules it may import (prefix match); None means no project imports at all.
ALLOWED_PROJECT_IMPORTS: dict[str, tuple[str, ...]] = {
    "api": ("memex_desktop.api",),
    # api.identity and api.content: the one reading of an item's ids and of what it says,
    # which the cache indexes and the reader shows.
    "store": (
        "memex_desktop.store",
        "memex_desktop.api.models",
        "memex_desktop.api.identity",
        "memex_desktop.api.content",
    ),
    # api.content: the emulator reads chat text and reference nodes as the client does, so
    # its search finds what the reader shows; where it models the server, it says so.
    "emulator": ("memex_desktop.emulator", "memex_desktop.api.models", "memex_desktop.api.content"),
}
QT_FREE = ("api", "store", "sync", "render", "graph", "emulator", "settings.py", "errors.py")


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def _modules(layer: str) -> list[Path]:
    target = PACKAGE / layer
    if target.is_file():
        return [target]
    return sorted(target.rglob("*.py")) if target.is_dir() else []


@pytest.mark.parametrize("layer", QT_FREE)
def test_layer_never_imports_qt_or_ui(layer: str) -> None:
    for module in _modules(layer):
        for name in _imports(module):
            assert not name.startswith("PySide6"), f"{module} imports {name}"
            assert not name.startswith("memex_desktop.ui"), f"{module} imports {name}"


@pytest.mark.parametrize("layer", sorted(ALLOWED_PROJECT_IMPORTS))
def test_layer_imports_only_what_it_may(layer: str) -> None:
    allowed = ALLOWED_PROJECT_IMPORTS[layer]
    for module in _modules(layer):
        for name in _imports(module):
            if name.startswith("memex_desktop"):
                assert name.startswith(allowed), f"{module} imports {name}"


def test_only_ui_and_app_import_qt() -> None:
    for module in sorted(PACKAGE.rglob("*.py")):
        relative = module.relative_to(PACKAGE).as_posix()
        if relative.startswith("ui/") or relative == "app.py":
            continue
        for name in _imports(module):
            assert not name.startswith("PySide6"), f"{relative} imports {name}"


def test_no_path_built_from_dunder_file_outside_paths() -> None:
    for module in sorted(PACKAGE.rglob("*.py")):
        if module.name == "paths.py":
            continue
        assert "__file__" not in module.read_text(encoding="utf-8"), module
