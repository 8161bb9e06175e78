"""The command-line tree of DESIGN.md §7: subcommands, global options, dispatch, exit codes."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from memex_desktop import __version__, cli, paths
from memex_desktop.bench import BenchError, format_table
from memex_desktop.store import StoreWriter
from memex_desktop.sync import ConnectionState, SyncOutcome


def test_every_designed_subcommand_exists() -> None:
    parser = cli.build_parser()
    actions = [a for a in parser._actions if a.dest == "command"]
    assert actions
    choices = set(actions[0].choices or {})
    assert set(cli.subcommands(parser)) == choices
    assert {"sync", "search", "show", "save", "outbox", "export", "emulator", "bench"} <= choices


def test_a_link_next_to_a_subcommand_is_that_subcommands_argument(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A memex:// link opens the window only without a subcommand; the subcommands are read
    # from the parser, so every one it declares counts.
    windows: list[object] = []
    fake = types.ModuleType("memex_desktop.app")
    fake.run_gui = windows.append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "memex_desktop.app", fake)
    StoreWriter(paths.cache_db_path(tmp_path)).close()
    status = cli.main(["show", "memex://entity/abc", "--data-dir", str(tmp_path)])
    assert windows == []
    assert status == cli.EXIT_NOT_FOUND
    assert "memex://entity/abc" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("outcome", "status"),
    [
        (SyncOutcome.OK, 0),
        (SyncOutcome.FAILED, 1),
        (SyncOutcome.OFFLINE, 3),
        (SyncOutcome.SERVER_DOWN, 4),
        (SyncOutcome.AUTH_REJECTED, 5),
        (SyncOutcome.INSUFFICIENT_CREDITS, 6),
        (SyncOutcome.INCOMPATIBLE, 8),
        (SyncOutcome.CANCELLED, 130),
    ],
)
def test_exit_status_of_each_outcome(outcome: SyncOutcome, status: int) -> None:
    assert cli.exit_status(outcome) == status


def test_every_connection_state_has_an_exit_status() -> None:
    assert set(cli.STATE_EXIT) == set(ConnectionState)
    assert cli.STATE_EXIT[ConnectionState.NOT_CONFIGURED] == cli.EXIT_AUTH


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--version"])
    assert exit_info.value.code == 0
    assert __version__ in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["--data-dir", "/d", "--api-url", "http://u", "--api-key", "k", "search", "word"],
        ["search", "word", "--data-dir", "/d", "--api-url", "http://u", "--api-key", "k"],
    ],
)
def test_global_options_before_or_after_the_subcommand(argv: list[str]) -> None:
    args = cli.build_parser().parse_args(argv)
    assert args.data_dir == Path("/d")
    assert args.api_url == "http://u"
    assert args.api_key == "k"
    assert args.command == "search"


def test_search_options() -> None:
    args = cli.build_parser().parse_args(
        ["search", "q", "--type", "web", "--type", "youtube", "--tag", "t", "--limit", "5"]
    )
    assert args.type == ["web", "youtube"]
    assert args.tag == "t"
    assert args.limit == 5
    assert not args.remote
    assert not args.json


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "q", "--limit", "0"],
        ["show", "x", "--format", "pdf"],
        ["export", "/tmp/x", "--format", "csv"],
        ["outbox", "explode"],
        ["save"],
        ["nonsense"],
    ],
)
def test_bad_usage_exits_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(argv)
    assert exit_info.value.code == cli.EXIT_USAGE
    assert "Traceback" not in capsys.readouterr().err


def test_no_subcommand_opens_the_window(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[object] = []
    fake = types.ModuleType("memex_desktop.app")

    def run_gui(args: object) -> int:
        seen.append(args)
        return 0

    fake.run_gui = run_gui  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "memex_desktop.app", fake)
    assert cli.main(["--demo"]) == 0
    assert cli.main(["--api-url", "http://x"]) == 0
    assert len(seen) == 2
    assert seen[0].demo  # type: ignore[attr-defined]
    assert seen[1].api_url == "http://x"  # type: ignore[attr-defined]


def test_bench_outside_a_checkout_says_so(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli.paths, "source_tree_dir", lambda: None)
    assert cli.main(["bench", "--entities", "10"]) == cli.EXIT_FAILURE
    err = capsys.readouterr().err
    assert "source checkout" in err
    assert "Traceback" not in err


def test_bench_runs_discovered_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    bench_dir = tmp_path / "tests" / "benchmarks"
    bench_dir.mkdir(parents=True)
    (bench_dir / "bench_alpha.py").write_text(
        "def run(workdir, entities):\n"
        "    assert workdir.is_dir()\n"
        "    return {'alpha_items_per_s': entities * 2.0, 'alpha_ms': 1.5,\n"
        "            'alpha_ms_floor': 0.5}\n",
        encoding="utf-8",
    )
    (bench_dir / "bench_beta.py").write_text(
        "def run(workdir, entities):\n    return {'beta_mb': 3}\n", encoding="utf-8"
    )
    monkeypatch.setattr(cli.paths, "source_tree_dir", lambda: tmp_path)
    assert cli.main(["bench", "--entities", "7", "--json"]) == 0
    out = capsys.readouterr().out
    import json

    measures = json.loads(out)
    # Each area's own wall time comes with its measures.
    assert measures.pop("bench_alpha_s") >= 0
    assert measures.pop("bench_beta_s") >= 0
    assert measures == {
        "alpha_items_per_s": 14.0,
        "alpha_ms": 1.5,
        "alpha_ms_floor": 0.5,
        "alpha_ms_ratio": 3.0,
        "beta_mb": 3.0,
    }
    assert cli.main(["bench", "--entities", "7", "--only", "beta"]) == 0
    table = capsys.readouterr().out
    assert "beta_mb" in table
    assert "alpha" not in table
    assert cli.main(["bench", "--only", "gamma"]) == cli.EXIT_FAILURE
    assert "no benchmark named gamma" in capsys.readouterr().err


def test_bench_module_without_run_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench_dir = tmp_path / "tests" / "benchmarks"
    bench_dir.mkdir(parents=True)
    (bench_dir / "bench_broken.py").write_text("x = 1\n", encoding="utf-8")
    monkeypatch.setattr(cli.paths, "source_tree_dir", lambda: tmp_path)
    from memex_desktop.bench import run_benchmarks

    with pytest.raises(BenchError, match="defines no run"):
        run_benchmarks(1)


def test_format_table() -> None:
    table = format_table({"sync": {"sync_entities_per_s": 2500.5, "sync_peak_rss_mb": 120.0}})
    assert "sync_entities_per_s" in table
    assert "2500.5" in table
    assert "120" in table
    assert format_table({}) == "no measures"


def test_format_table_puts_floor_and_ratio_beside_their_measure() -> None:
    table = format_table(
        {"store": {"search_p95_ms": 9.0, "search_p95_ms_floor": 3.0, "search_p95_ms_ratio": 3.0}}
    )
    header, _rule, row = table.splitlines()
    assert header.split() == ["area", "measure", "value", "floor", "ratio"]
    assert row.split() == ["store", "search_p95_ms", "9", "3", "3.00"]


def test_sync_without_a_key_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = cli.main(["sync", "--data-dir", str(tmp_path), "--api-url", "http://127.0.0.1:9"])
    assert status == cli.EXIT_AUTH
    err = capsys.readouterr().err
    assert "no API key" in err
    assert len(err.strip().splitlines()) == 1


def test_emulator_serves_the_profile_and_variants_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    served: list[object] = []
    monkeypatch.setattr(
        "memex_desktop.emulator.serve", lambda config, **_options: served.append(config)
    )
    argv = ["emulator", "--profile", "first-party", "--ignore-offset", "--moved-to", "http://x/api"]
    assert cli.main([*argv, "--generate", "20"]) == 0
    [config] = served
    assert config.profile == "first-party"  # type: ignore[attr-defined]
    assert config.echo_requested_limit  # type: ignore[attr-defined]
    assert config.max_page_size == 40  # type: ignore[attr-defined]
    assert config.ignore_offset  # type: ignore[attr-defined]
    assert not config.ignore_sort_by  # type: ignore[attr-defined]
    assert config.moved_to == "http://x/api"  # type: ignore[attr-defined]
    assert cli.main(["emulator", "--generate", "20", "--max-page-size", "7"]) == 0
    assert served[1].profile == "default"  # type: ignore[attr-defined]
    assert served[1].max_page_size == 7  # type: ignore[attr-defined]


def test_the_emulator_serves_the_demo_pictures_with_the_demo_library(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import httpx

    from memex_desktop.emulator import run_emulator_in_thread

    served: list[object] = []
    monkeypatch.setattr(
        "memex_desktop.emulator.serve", lambda config, **_options: served.append(config)
    )
    assert cli.main(["emulator"]) == 0
    assert cli.main(["emulator", "--generate", "5"]) == 0
    assert cli.main(["emulator", "--generate", "5", "--media", str(tmp_path)]) == 0
    demo, generated, chosen = served
    assert demo.media_dir == paths.resource_path("demo", "media")  # type: ignore[attr-defined]
    assert generated.media_dir is None  # type: ignore[attr-defined]
    assert chosen.media_dir == tmp_path  # type: ignore[attr-defined]
    assert cli.main(["emulator", "--media", str(tmp_path / "missing")]) == 7  # not found
    assert len(served) == 3
    emulator = run_emulator_in_thread(demo)  # type: ignore[arg-type]
    try:
        picture = "img.example.com/yt/W0rmB1nDIY1/hq.jpg"
        answer = httpx.get(f"{emulator.base_url}/media/{picture}", timeout=10)
    finally:
        emulator.stop()
    assert answer.status_code == 200
    assert answer.content == (paths.resource_path("demo", "media") / picture).read_bytes()
