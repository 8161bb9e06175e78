"""Paths given to the command line that cannot be used: the line names the path given."""

from __future__ import annotations

from pathlib import Path

import pytest

from memex_desktop import cli, paths
from memex_desktop.store import CacheReader, StoreWriter


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A data folder holding an empty library."""
    folder = tmp_path / "data"
    folder.mkdir()
    StoreWriter(paths.cache_db_path(folder)).close()
    return folder


def _run(capsys: pytest.CaptureFixture[str], data_dir: Path, *args: str) -> tuple[int, str]:
    """The exit status and stderr of one in-process run."""
    capsys.readouterr()
    status = cli.main([*args, "--data-dir", str(data_dir)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) <= 1
    return status, err


@pytest.mark.parametrize("form", ["json", "markdown"])
def test_export_into_a_file_names_the_export_folder(
    form: str, data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "a-file"
    target.write_text("not a folder", encoding="utf-8")
    status, err = _run(capsys, data_dir, "export", str(target), "--format", form, "-q")
    assert status == cli.EXIT_USAGE
    assert f"the export folder {target} is a file" in err
    assert "--data-dir" not in err
    assert target.read_text(encoding="utf-8") == "not a folder"


def test_export_under_a_file_names_the_export_folder(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    status, err = _run(capsys, data_dir, "export", str(blocker / "inside"), "-q")
    assert status == cli.EXIT_FAILURE
    assert str(blocker / "inside") in err
    assert "Give `export` another folder" in err
    assert "--data-dir" not in err


def test_import_of_a_folder_says_it_is_a_folder(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "exported"
    folder.mkdir()
    status, err = _run(capsys, data_dir, "import", str(folder))
    assert status == cli.EXIT_USAGE
    assert f"{folder} is a folder, not a file" in err
    assert "no such file" not in err
    # A folder `export` wrote: the file in it is named.
    assert _run(capsys, data_dir, "export", str(folder), "-q")[0] == cli.EXIT_OK
    status, err = _run(capsys, data_dir, "import", str(folder))
    assert status == cli.EXIT_USAGE
    assert str(folder / "memex-export.json") in err


def test_import_of_a_missing_file_is_not_found(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = _run(capsys, data_dir, "import", str(tmp_path / "missing.json"))
    assert status == cli.EXIT_NOT_FOUND
    assert f"no such file: {tmp_path / 'missing.json'}" in err


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "x"],
        ["search", "x", "--remote"],
        ["show", "abc"],
        ["export", "out"],
        ["save", "https://example.org/a"],
        ["note", "abc", "text"],
        ["outbox", "list"],
        ["import", "library.json"],
    ],
)
def test_a_data_folder_that_is_a_file_is_said_so(
    argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data_file = tmp_path / "data"
    data_file.write_text("", encoding="utf-8")
    (tmp_path / "library.json").write_text('{"results": []}', encoding="utf-8")
    argv = [str(tmp_path / a) if a in ("out", "library.json") else a for a in argv]
    status, err = _run(capsys, data_file, *argv)
    assert status == cli.EXIT_FAILURE
    assert err == (
        f"memex-desktop: the data folder {data_file} is a file, not a folder: check --data-dir "
        "and MEMEX_DATA_DIR\n"
    )


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"\xff\xfe{", "is not JSON: 'utf-8' codec can't decode"),
        (b'{"results": [], "views": [5]}', "is not a memex-desktop export (a View: "),
        (b'{"results": [], "views": [{"id": 5}]}', "is not a memex-desktop export (a View: id: "),
        (b'{"results": [], "feeds": {"a": 1}}', "is not a memex-desktop export (its feeds are"),
        (b'{"results": [], "views": 5}', "is not a memex-desktop export (its views are a number"),
        (b'{"results": [], "deletedUpstream": 5}', "is not a memex-desktop export (its deleted"),
        (b'{"results": [{"id": "a", "type": "web"}], "views": 5}', "is not a memex-desktop"),
    ],
)
def test_import_of_a_file_of_the_wrong_shape_is_one_line(
    content: bytes,
    said: str,
    data_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bogus = tmp_path / "bogus.json"
    bogus.write_bytes(content)
    status, err = _run(capsys, data_dir, "import", str(bogus))
    assert status == cli.EXIT_FAILURE
    assert err.startswith(f"memex-desktop: {bogus} {said}")
    assert err.count("\n") == 1
    # Nothing of a file that is no library was written, not even its items before the fault.
    reader = CacheReader(paths.cache_db_path(data_dir))
    try:
        assert reader.stats().entities == 0
    finally:
        reader.close()
