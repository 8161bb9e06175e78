"""PySide6's import hook asks its question of the file's bytes, and gets the answer it got."""

from __future__ import annotations

import importlib.machinery
import inspect
import sys
import types
from pathlib import Path

import pytest

import memex_desktop.app  # noqa: F401  (installs the hook as the window does)
from memex_desktop.ui import pyside_hook


def _slow(module: types.ModuleType) -> bool:
    """PySide6's own spelling of the question."""
    try:
        return "PySide6" in inspect.getsource(module)
    except (TypeError, OSError, SyntaxError):
        return False


def test_the_window_runs_with_the_cheaper_hook() -> None:
    feature = sys.modules[pyside_hook._FEATURE_MODULE]
    assert getattr(feature._mod_uses_pyside, "cheaper", False)
    assert pyside_hook.install()  # a second install keeps the one in place
    assert not getattr(feature._mod_uses_pyside.__closure__[0].cell_contents, "cheaper", False)


def test_every_loaded_module_gets_the_answer_inspect_gives() -> None:
    modules = [m for m in list(sys.modules.values()) if isinstance(m, types.ModuleType)]
    assert len(modules) > 300
    answers = {m.__name__: pyside_hook.mentions_pyside(m, _slow) for m in modules}
    assert answers == {m.__name__: _slow(m) for m in modules}
    assert answers["memex_desktop.ui.theme"]
    assert not answers["memex_desktop.store.reader"]


def test_a_module_without_a_readable_file_is_asked_the_slow_way(tmp_path: Path) -> None:
    gone = types.ModuleType("gone")
    gone.__spec__ = importlib.machinery.ModuleSpec("gone", None, origin=str(tmp_path / "gone.py"))
    built_in = sys.modules["sys"]
    asked: list[str] = []

    def slow(module: types.ModuleType) -> bool:
        asked.append(module.__name__)
        return True

    assert pyside_hook.mentions_pyside(gone, slow)
    assert pyside_hook.mentions_pyside(built_in, slow)
    assert asked == ["gone", "sys"]


def test_without_the_hook_nothing_is_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, pyside_hook._FEATURE_MODULE)
    assert not pyside_hook.install()
    monkeypatch.setitem(sys.modules, pyside_hook._FEATURE_MODULE, types.ModuleType("feature"))
    assert not pyside_hook.install()
