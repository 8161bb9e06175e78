"""`memex-desktop emulator` with wrong arguments: one line and a usage status, no traceback."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from memex_desktop import cli, emulator
from memex_desktop.emulator import EmulatorConfig


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[EmulatorConfig]:
    """The configurations `emulator` would serve (nothing listens)."""
    configs: list[EmulatorConfig] = []

    def serve(config: EmulatorConfig, host: str = "", port: int = 0, ready: Any = None) -> None:
        del host, port, ready
        configs.append(config)

    monkeypatch.setattr(emulator, "serve", serve)
    return configs


@pytest.mark.parametrize("port", ["99999", "-1", "65536", "abc"])
def test_a_port_out_of_range_is_a_usage_error(
    port: str, served: list[EmulatorConfig], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["emulator", "--port", port])
    assert exit_info.value.code == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert "argument --port" in err
    assert "Traceback" not in err
    assert served == []


def test_any_port_in_range_is_taken(served: list[EmulatorConfig]) -> None:
    assert cli.main(["emulator", "--port", "65535"]) == cli.EXIT_OK
    assert cli.main(["emulator", "--port", "0"]) == cli.EXIT_OK
    assert len(served) == 2


@pytest.mark.parametrize(
    ("name", "content", "said"),
    [
        ("garbage.json", "garbage\n", "is not JSON"),
        ("empty.json", "", "is not JSON"),
        ("latin1.json", b"\xe9t\xe9", "is not JSON"),
        ("list.json", "[1, 2]", "is not a library file"),
        ("shape.json", '{"results": 5}', "is not a library file"),
        ("garbage.jsonl", "garbage\n", "is not JSON"),
        ("list.jsonl", "[1]\n", "is not a library file"),
    ],
)
def test_a_library_file_that_is_not_one_is_one_line(
    name: str,
    content: str | bytes,
    said: str,
    tmp_path: Path,
    served: list[EmulatorConfig],
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    assert cli.main(["emulator", "--library", str(path)]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith(f"memex-desktop: {path}")
    assert said in err
    assert len(err.strip().splitlines()) == 1
    assert served == []


def test_a_bad_line_of_a_streamed_library_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # JSON Lines are read while the emulator starts: the real serve() meets the bad line.
    path = tmp_path / "library.jsonl"
    entity = {"entity": {"id": "a", "type": "web", "title": "A"}}
    path.write_text("{}\n" + json.dumps(entity) + '\n{"entity": 5}\n', encoding="utf-8")
    assert cli.main(["emulator", "--port", "0", "--library", str(path)]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert f"memex-desktop: {path}:3: a library line must hold an entity" in err
    assert "Traceback" not in err


def test_a_missing_library_or_a_folder_is_said_so(
    tmp_path: Path, served: list[EmulatorConfig], capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.json"
    assert cli.main(["emulator", "--library", str(missing)]) == cli.EXIT_NOT_FOUND
    assert capsys.readouterr().err == f"memex-desktop: no such library file: {missing}\n"
    assert cli.main(["emulator", "--library", str(tmp_path)]) == cli.EXIT_USAGE
    assert "is a folder, not a library file" in capsys.readouterr().err
    assert served == []


def test_a_library_file_is_served(tmp_path: Path, served: list[EmulatorConfig]) -> None:
    library: dict[str, Any] = {"results": [{"id": "only", "type": "web", "title": "Only"}]}
    path = tmp_path / "library.json"
    path.write_text(json.dumps(library), encoding="utf-8")
    lines = tmp_path / "library.jsonl"
    lines.write_text("{}\n", encoding="utf-8")
    assert cli.main(["emulator", "--library", str(path)]) == cli.EXIT_OK
    assert cli.main(["emulator", "--library", str(lines)]) == cli.EXIT_OK
    assert served[0].library == library
    assert served[1].library_path == lines


@pytest.mark.parametrize("host", ["127.0.0.1", "no-such-host.invalid"])
def test_a_taken_port_or_an_unknown_host_is_one_line_before_anything_starts(
    host: str, served: list[EmulatorConfig], capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status = cli.main(["emulator", "--host", host, "--port", str(port)])
    assert status == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert err.startswith(f"memex-desktop: the emulator cannot listen on {host}:{port}: ")
    assert err.count("\n") == 1
    assert served == []
