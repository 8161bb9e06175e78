"""README.md documents every setting, command-line subcommand and keyboard shortcut."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from memex_desktop.cli import build_parser
from memex_desktop.settings import Settings
from memex_desktop.ui.actions import ACTIONS

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _subcommands() -> list[str]:
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return sorted(action.choices)
    raise AssertionError("the command line has no subcommands")


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_every_setting_is_documented(name: str) -> None:
    assert f"`{name}`" in README


@pytest.mark.parametrize("command", _subcommands())
def test_every_subcommand_is_documented(command: str) -> None:
    assert f"memex-desktop {command}" in README or f"/ `{command}`" in README


@pytest.mark.parametrize("action", ACTIONS, ids=lambda action: action.key)
def test_every_shortcut_is_documented(action: object) -> None:
    for shortcut in action.shortcuts:  # type: ignore[attr-defined]
        assert shortcut in README, f"{shortcut} ({action.key}) is not in README.md"  # type: ignore[attr-defined]


def test_environment_variables_are_documented() -> None:
    for name in ("MEMEX_API_URL", "MEMEX_API_KEY", "MEMEX_DATA_DIR"):
        assert name in README


def test_setup_is_exactly_two_commands() -> None:
    assert "make demo" in README
    assert "make test" in README
