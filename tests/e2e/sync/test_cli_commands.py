"""The command line against the emulator: sync, search, show, save, outbox, export/import."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from support.cli import Cli
from support.secrets import TEST_API_KEY

from memex_desktop import cli
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.paths import cache_db_path
from memex_desktop.store import CacheReader

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    return generate_library(250, seed=7, words_per_entity=25)


@pytest.fixture
def run(
    library: dict[str, Any],
    library_emulator: Any,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> Cli:
    emulator = library_emulator(library)
    return Cli(capsys, tmp_path / "data", emulator.base_url, emulator)


def _listable(run: Cli, library: dict[str, Any]) -> set[str]:
    """The ids a complete listing returns (the first-party profile never lists some)."""
    return {e["id"] for e in library["results"]} - run.emulator.state.unlisted_ids()


def _first(library: dict[str, Any], kind: str) -> dict[str, Any]:
    return next(e for e in library["results"] if e["type"] == kind and e.get("title"))


def test_sync_search_show(run: Cli, library: dict[str, Any]) -> None:
    status, out, err = run("sync")
    assert status == 0, err
    read = re.search(r"synced: (\d+) items? read", out)
    assert read is not None, out
    assert int(read.group(1)) >= len(_listable(run, library))
    assert "Syncing: " in err  # progress on stderr
    page = next(
        e
        for e in library["results"]
        if e["type"] == "web" and e.get("title") and e["id"] in _listable(run, library)
    )
    status, out, _ = run("search", page["url"], "--json")
    assert status == 0
    rows = json.loads(out)
    assert rows[0]["id"] == page["id"]
    assert set(rows[0]) == {"id", "type", "title", "url", "snippet", "created_at"}
    assert "\x02" not in out
    status, out, _ = run("search", page["url"], "--type", "youtube", "--json")
    assert page["id"] not in [row["id"] for row in json.loads(out)]
    status, out, _ = run("search", page["url"])
    assert status == 0
    assert page["id"] in out
    status, out, _ = run("show", page["id"])
    assert status == 0
    assert page["title"] in out
    status, out, _ = run("show", page["id"], "--format", "html")
    assert status == 0
    assert "<" in out
    assert "<script" not in out.lower()
    status, _, err = run("show", "no-such-id")
    assert status == cli.EXIT_NOT_FOUND
    assert err.count("\n") == 1


def test_search_by_tag_and_remote(run: Cli, library: dict[str, Any]) -> None:
    assert run("sync")[0] == 0
    tagged = next(e for e in library["results"] if e.get("tag_ids") and e["type"] == "web")
    tag_name = next(t["name"] for t in library["referencedTags"] if t["id"] == tagged["tag_ids"][0])
    status, out, _ = run("search", "", "--tag", tag_name, "--limit", "500", "--json")
    assert status == 0
    assert tagged["id"] in [row["id"] for row in json.loads(out)]
    status, _, _ = run("search", "x", "--tag", "no-such-tag-name")
    assert status == cli.EXIT_NOT_FOUND
    status, out, _ = run("search", tagged["title"].split()[0], "--remote", "--json")
    assert status == 0
    assert json.loads(out)


def test_remote_search_fills_an_empty_cache(run: Cli, library: dict[str, Any]) -> None:
    page = _first(library, "web")
    status, out, _ = run("search", page["title"], "--remote", "--json", "--limit", "5")
    assert status == 0
    found = [row["id"] for row in json.loads(out)]
    assert page["id"] in found
    status, out, _ = run("show", page["id"])  # cached on view: readable without a sync
    assert status == 0


def test_save_and_outbox(run: Cli) -> None:
    assert run("sync")[0] == 0
    status, out, _ = run("save", "https://example.org/new-page", "https://example.org/other")
    assert status == 0
    assert "queued: https://example.org/new-page" in out
    assert "sent: 2" in out
    status, out, _ = run("save", "https://EXAMPLE.org/new-page/#frag")
    assert status == 0
    assert "already saved" in out
    status, out, err = run("save", "ftp://example.org/x")
    assert status == cli.EXIT_FAILURE
    assert "cannot save" in err
    status, out, _ = run("outbox", "list", "--json")
    ops = json.loads(out)
    assert {op["state"] for op in ops} == {"accepted"}
    assert run("sync")[0] == 0
    status, out, _ = run("outbox")
    assert "In library" in out
    op_id = str(ops[0]["id"])
    assert run("outbox", "retry", "999999")[0] == cli.EXIT_NOT_FOUND
    assert run("outbox", "retry")[0] == cli.EXIT_USAGE
    assert run("outbox", "drop", "abc")[0] == cli.EXIT_USAGE
    status, out, _ = run("outbox", "drop", op_id)
    assert status == 0
    assert "dropped" in out
    status, out, _ = run("outbox", "list", "--json")
    assert op_id not in [str(op["id"]) for op in json.loads(out)]


def test_outbox_list_says_why_a_save_was_refused_in_the_persons_words(run: Cli) -> None:
    assert run("sync")[0] == 0
    run.emulator.faults.next_status(400, count=1, paths=["/save-content-by-url"])
    status, _, err = run("save", "https://example.org/refused-page")
    assert status == cli.EXIT_FAILURE
    assert "refused" in err
    status, out, _ = run("outbox")
    assert status == 0
    assert "Needs attention" in out
    assert "The Memex server refused this save." in out
    assert "ValidationError" not in out
    status, out, _ = run("outbox", "list", "--json")
    [op] = [op for op in json.loads(out) if op["url"] == "https://example.org/refused-page"]
    assert (op["state"], op["error_kind"]) == ("needs_attention", "rejected")
    assert "HTTP 400" in op["reason"]  # the server's own words stay for scripts


def test_note_and_reply_through_the_outbox(
    run: Cli, library: dict[str, Any], tmp_path: Path
) -> None:
    assert run("sync")[0] == 0
    listed = _listable(run, library)
    page = next(e for e in library["results"] if e["type"] == "web" and e["id"] in listed)
    status, out, err = run("note", page["id"], "Worms like coffee grounds")
    assert status == 0, err
    assert "queued: note" in out
    assert "sent: 1" in out
    status, out, _ = run("outbox", "list", "--json")
    [note] = json.loads(out)
    assert note["state"] == "accepted"
    status, out, err = run("note", page["id"], "And eggshells", "--reply-to", note["entity_id"])
    assert status == 0, err
    assert "sent: 1" in out
    assert run("sync", "--full")[0] == 0
    status, out, _ = run("outbox", "list", "--json")
    assert {op["state"] for op in json.loads(out)} == {"confirmed"}
    with CacheReader(tmp_path / "data" / "cache.db") as reader:
        [thread] = reader.thread_for(page["id"])
    assert thread.text == "Worms like coffee grounds"
    assert [child.text for child in thread.children] == ["And eggshells"]
    status, _, err = run("note", "no-such-item", "text")
    assert status == cli.EXIT_NOT_FOUND
    assert err.count("\n") == 1
    assert run("note", page["id"], "   ")[0] == cli.EXIT_USAGE


def test_export_json_round_trip_and_markdown(
    run: Cli, library: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("sync")[0] == 0
    status, out, err = run("export", str(tmp_path / "out"))
    assert status == 0
    # Its last progress line says what it did, not where it started.
    last = re.fullmatch(r"Exported ([\d,]+) of ([\d,]+) items", err.splitlines()[-1])
    assert last is not None, err
    written, total = (int(number.replace(",", "")) for number in last.groups())
    assert written == total >= len(_listable(run, library))
    exported = json.loads((tmp_path / "out" / "memex-export.json").read_text(encoding="utf-8"))
    exported_ids = {e["id"] for e in exported["results"]}
    assert _listable(run, library) <= exported_ids <= {e["id"] for e in library["results"]}
    assert exported["referencedTags"]
    assert exported["referencesByResultId"]
    # Import into an empty cache reproduces it.
    other = Cli(capsys, tmp_path / "copy", "http://127.0.0.1:9")
    status, out, _ = other("import", str(tmp_path / "out" / "memex-export.json"))
    assert status == 0
    assert f"imported {len(exported_ids)} items" in out
    assert other("export", str(tmp_path / "again"))[0] == 0
    again = json.loads((tmp_path / "again" / "memex-export.json").read_text(encoding="utf-8"))
    assert again == exported
    # Markdown: one file per item, notes as threads under their item.
    status, out, _ = run("export", str(tmp_path / "md"), "--format", "markdown")
    assert status == 0
    folder = tmp_path / "md" / "memex-export"
    assert (folder / "index.md").is_file()
    texts = [path.read_text(encoding="utf-8") for path in folder.glob("*.md")]
    assert any("## Notes" in text for text in texts)
    assert any("## References" in text for text in texts)
    assert any('tags: ["' in text for text in texts)


def test_import_of_a_non_export_is_one_line(run: Cli, tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.json"
    bogus.write_text("[1, 2]", encoding="utf-8")
    status, _, err = run("import", str(bogus))
    assert status == cli.EXIT_FAILURE
    assert "not a memex-desktop export" in err
    assert run("import", str(tmp_path / "missing.json"))[0] == cli.EXIT_NOT_FOUND


def test_expected_failures_are_one_line(run: Cli, tmp_path: Path) -> None:
    wrong = Cli(run.capsys, tmp_path / "data", run.base[3])
    wrong.base[-1] = "wrong-key"
    status, _, err = wrong("sync")
    assert status == cli.EXIT_AUTH
    assert len(err.strip().splitlines()) == 1
    assert "rejected the API key given by --api-key" in err  # words fit how it signed in
    # A cache written by a newer version is refused, untouched.
    newer = tmp_path / "newer"
    newer.mkdir()
    connection = sqlite3.connect(newer / "cache.db")
    connection.execute("PRAGMA user_version = 9999")
    connection.close()
    before = (newer / "cache.db").read_bytes()
    status, _, err = Cli(run.capsys, newer, "http://127.0.0.1:9")("search", "x")
    assert status == cli.EXIT_FAILURE
    assert "newer memex-desktop" in err
    assert (newer / "cache.db").read_bytes() == before


def test_the_key_never_reaches_a_file(run: Cli, tmp_path: Path) -> None:
    assert run("sync")[0] == 0
    assert run("save", "https://keyless.example/")[0] == 0
    assert run("export", str(tmp_path / "out"))[0] == 0
    for root in (tmp_path, Path.home()):
        for path in root.rglob("*"):
            if path.is_file():
                assert TEST_API_KEY.encode() not in path.read_bytes(), path


def test_a_long_search_is_printed_a_batch_at_a_time_in_its_order(
    run: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run("sync")[0] == 0
    monkeypatch.setattr(cli, "SEARCH_BATCH", 7)
    status, out, _ = run("search", "", "--limit", "1000", "--json")
    assert status == 0
    printed = json.loads(out)
    with CacheReader(cache_db_path(tmp_path / "data")) as reader:
        expected = reader.search("", limit=1000)
    assert [row["id"] for row in printed] == [hit.id for hit in expected]
    assert len(printed) > 7 * 3  # many batches
    status, out, _ = run("search", "", "--limit", "1000")
    assert status == 0
    assert out.count("  [") == len(expected)  # one heading line per result
