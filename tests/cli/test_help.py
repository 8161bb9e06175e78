"""``--help`` describes every argument of every command a person types (positional ones
too), with the default of those that have one, and says what ``sync`` does in plain words."""

from __future__ import annotations

import argparse

import pytest

from memex_desktop import cli

# The emulator and the benchmarks are for development; their own options speak for them.
DEVELOPMENT = {"emulator", "bench"}


def _commands() -> dict[str, argparse.ArgumentParser]:
    return cli._subparsers(cli.build_parser())


@pytest.mark.parametrize("name", sorted(set(_commands()) - DEVELOPMENT))
def test_every_argument_of_a_command_is_described(name: str) -> None:
    parser = _commands()[name]
    bare = [
        "/".join(action.option_strings) or str(action.metavar or action.dest)
        for action in parser._actions
        if not action.help and action.help != argparse.SUPPRESS
    ]
    assert bare == []


def test_the_result_limit_shows_its_default(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["search", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "QUERY what to look for" in shown
    assert "--limit N show at most N results (default: 20)" in shown


def test_sync_is_described_for_a_person(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert (
        "fetch new and changed items, mark the ones deleted on the server, and send queued "
        "saves and notes" in shown
    )
    assert "reconcile" not in shown
    assert "drain" not in shown


def test_the_window_s_link_argument_is_shown_and_described(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``memex-desktop memex://entity/ID`` opens an item (the desktop file's links): argparse
    cannot declare it beside the subcommands, so the usage and description say it."""
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "usage: memex-desktop [options] [memex://entity/ID]" in shown
    assert "given a memex://entity/ID link, on that item" in shown


def test_a_command_s_usage_and_errors_name_it_as_it_is_typed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The window's usage line above ("[memex://entity/ID]") is not every command's prefix."""
    with pytest.raises(SystemExit):
        cli.build_parser().parse_args(["save"])
    said = capsys.readouterr().err
    assert said.startswith("usage: memex-desktop save ")
    assert "memex-desktop save: error:" in said
