"""`memex-desktop import` of JSON Lines (the emulator's library format), streamed, and true
words for files that hold no library: empty, a device, a folder, missing, unreadable lines."""

from __future__ import annotations

import json
import tracemalloc
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from memex_desktop import cli, paths
from memex_desktop.emulator.synthetic import generate_library, write_generated_library
from memex_desktop.store import CacheReader, ChangeSet, StoreWriter
from memex_desktop.sync.library_import import IMPORT_BATCH, import_library_lines, is_library_lines


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A data folder holding an empty library."""
    folder = tmp_path / "data"
    folder.mkdir()
    StoreWriter(paths.cache_db_path(folder)).close()
    return folder


def _run(capsys: pytest.CaptureFixture[str], data_dir: Path, *args: str) -> tuple[int, str, str]:
    """The exit status, stdout and stderr of one in-process run."""
    capsys.readouterr()
    status = cli.main([*args, "--data-dir", str(data_dir)])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, out, err


def _cached(data_dir: Path) -> tuple[int, int]:
    """How many items and tags the cache holds."""
    reader = CacheReader(paths.cache_db_path(data_dir))
    try:
        return reader.stats().entities, len(reader.tags())
    finally:
        reader.close()


def test_the_emulators_json_lines_library_is_imported(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    library = write_generated_library(tmp_path / "library.jsonl", 120, seed=5, words_per_entity=20)
    status, out, err = _run(capsys, data_dir, "import", str(library))
    assert (status, err) == (cli.EXIT_OK, "")
    assert out == "imported 120 items\n"
    entities, tags = _cached(data_dir)
    assert entities == 120
    assert tags == len(generate_library(120, seed=5, words_per_entity=20)["referencedTags"])


def test_json_lines_are_found_by_their_content_too(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    library = write_generated_library(tmp_path / "library.jsonl", 30, seed=6, words_per_entity=20)
    renamed = library.rename(tmp_path / "library.txt")
    assert is_library_lines(renamed)
    # Items on their own lines, with no first line of tags, are a library too.
    bare = tmp_path / "bare.json"
    items = generate_library(5, seed=7, words_per_entity=20)["results"]
    bare.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    assert is_library_lines(bare)
    status, out, _ = _run(capsys, data_dir, "import", str(bare))
    assert (status, out) == (cli.EXIT_OK, "imported 5 items\n")
    status, out, _ = _run(capsys, data_dir, "import", str(renamed))
    assert (status, out) == (cli.EXIT_OK, "imported 30 items\n")
    assert _cached(data_dir)[0] == 35


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('{"results": []}\n', id="one-line-json"),
        pytest.param('{\n  "results": []\n}\n', id="pretty-json"),
    ],
)
def test_a_json_library_is_not_taken_for_lines(tmp_path: Path, text: str) -> None:
    library = tmp_path / "library.json"
    library.write_text(text, encoding="utf-8")
    assert not is_library_lines(library)


def test_unreadable_lines_are_named_and_the_rest_imported(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    library = write_generated_library(tmp_path / "library.jsonl", 20, seed=8, words_per_entity=20)
    lines = library.read_bytes().splitlines(keepends=True)
    lines[3] = b"not json {\n"
    lines[6] = b"[1, 2]\n"
    lines[9] = b'{"entity": {"type": "web"}}\n'  # an item without an id
    lines[12] = b'"an item, in words"\n'
    lines[15] = b"\xff\xfe not utf-8\n"
    library.write_bytes(b"".join(lines))
    status, out, err = _run(capsys, data_dir, "import", str(library))
    assert status == cli.EXIT_FAILURE
    assert out == "imported 15 items\n"
    assert err == (
        f"memex-desktop: {library}: 5 lines could not be read and were skipped (not JSON, or "
        "no item in it): lines 4, 7, 10, 13, 16\n"
    )
    assert _cached(data_dir)[0] == 15


def test_a_large_file_is_read_and_written_a_batch_at_a_time(tmp_path: Path) -> None:
    count = 20_000
    library = write_generated_library(tmp_path / "big.jsonl", count, seed=9, words_per_entity=5)
    pages: list[int] = []

    class CountingWriter:
        """A writer that keeps nothing but the size of each page it is given."""

        def ingest_search_page(self, page: Any) -> Future[ChangeSet]:
            if page.results:  # the first line's tags come as a page of no items
                pages.append(len(page.results))
            return _done()

        def __getattr__(self, name: str) -> Any:
            return lambda *_args: _done()  # views, feeds: nothing to keep

    tracemalloc.start()
    try:
        report = import_library_lines(CountingWriter(), library)  # type: ignore[arg-type]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.imported == count
    assert pages == [IMPORT_BATCH] * (count // IMPORT_BATCH)
    # A batch in memory at a time, never the file (17 MB): a million lines read the same way.
    assert peak < library.stat().st_size / 3


def _done() -> Future[ChangeSet]:
    future: Future[ChangeSet] = Future()
    future.set_result(ChangeSet.empty())
    return future


def test_an_empty_file_says_it_is_empty(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, content in (("empty.jsonl", b""), ("blank.json", b"\n  \n\n")):
        empty = tmp_path / name
        empty.write_bytes(content)
        status, out, err = _run(capsys, data_dir, "import", str(empty))
        assert status == cli.EXIT_FAILURE
        assert out == ""
        assert err.startswith(f"memex-desktop: {empty} ")
        assert ("is empty (0 bytes)" if not content else "holds only blank lines") in err
        assert err.endswith(": nothing was imported\n")


@pytest.mark.skipif(not Path("/dev/null").exists(), reason="no /dev/null here")
def test_a_device_is_said_to_be_one(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _run(capsys, data_dir, "import", "/dev/null")
    assert status == cli.EXIT_USAGE
    assert err == (
        "memex-desktop: /dev/null is a character device, not a library file: nothing was imported\n"
    )
    assert "no such file" not in err


def test_a_folder_and_a_missing_file_are_said_as_such(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = _run(capsys, data_dir, "import", str(tmp_path))
    assert status == cli.EXIT_USAGE
    assert f"{tmp_path} is a folder, not a file" in err
    status, _, err = _run(capsys, data_dir, "import", str(tmp_path / "gone.jsonl"))
    assert status == cli.EXIT_NOT_FOUND
    assert err == f"memex-desktop: no such file: {tmp_path / 'gone.jsonl'}\n"
