"""Numbers given on the command line that cannot be used: an argparse error (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from memex_desktop import cli, paths
from memex_desktop.store import StoreWriter


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["search", "x", "--limit", "-5"], "argument --limit: must be at least 1"),
        (["search", "x", "--limit", "abc"], "argument --limit: not a number"),
        (["search", "x", "--limit", "9" * 25], "argument --limit: must be at most"),
        (["bench", "--entities", "9" * 25], "argument --entities: must be at most"),
        (["login", "--timeout", "-1"], "argument --timeout: must be a number above 0"),
        (["login", "--timeout", "0"], "argument --timeout: must be a number above 0"),
        (["login", "--timeout", "nan"], "argument --timeout: must be a number above 0"),
        (["login", "--timeout", "abc"], "argument --timeout: not a number"),
        (["emulator", "--processing-delay", "-1"], "argument --processing-delay: must be"),
        (["emulator", "--processing-delay", "nan"], "argument --processing-delay: must be"),
    ],
)
def test_a_number_out_of_range_is_a_usage_error(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(argv)
    assert exit_info.value.code == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert said in err
    assert "Traceback" not in err


def test_the_largest_limit_is_taken(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    StoreWriter(paths.cache_db_path(tmp_path)).close()
    status = cli.main(["search", "x", "--limit", str(cli.MAX_INT), "--data-dir", str(tmp_path)])
    assert status == cli.EXIT_OK
    assert capsys.readouterr().err == "no results\n"


def test_waits_and_delays_in_range_are_taken() -> None:
    parser = cli.build_parser()
    assert parser.parse_args(["login", "--timeout", "0.5"]).timeout == 0.5
    assert parser.parse_args(["emulator", "--processing-delay", "0"]).processing_delay == 0.0
