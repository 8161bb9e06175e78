"""Schema 10: a cache whose recency keys an older version left out of date order gets them
back in order when it is opened, every item reading the same; a cache in order is only
read; a kill -9 midway leaves the cache as it was."""

from __future__ import annotations

import itertools
import sqlite3
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from support.children import python_child

from memex_desktop.store import CacheReader, StoreWriter, ingest, open_cache, recency, rekey
from memex_desktop.store import reader as reader_module
from memex_desktop.store.schema import (
    FTS_FINGERPRINT_KEY,
    KEY_STEP,
    SCHEMA_VERSION,
    connect,
    wrapped,
)
from memex_desktop.store.sql import IN_LIST, in_ids

T = 1_700_000_000_000  # epoch ms
DAY = 86_400_000
QUARTER = 900_000  # a quarter of an hour
DAYS = 12
TAGS = [{"id": f"tag-{n}", "name": f"label{n}"} for n in range(3)]


def _old_keys_per_ms(created: Sequence[int | None]) -> float:
    """The spacing of versions before schema 10: the batch's median gap, however wide."""
    dates = sorted({value for value in created if value is not None})
    gaps = sorted(b - a for a, b in itertools.pairwise(dates))
    return KEY_STEP / max(1, gaps[len(gaps) // 2]) if gaps else 0.0


def _item(key: str, created_at: int, number: int) -> dict[str, Any]:
    return {
        "id": key,
        "type": "web",
        "title": f"Spread {key}",
        "url": f"https://example.org/{key}",
        "created_at": created_at,
        "full_text": f"spread filler number{number}",
        "tag_ids": [TAGS[number % 3]["id"]] if number % 2 else [],
    }


def _library() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A first sync page of items a day apart (notes pointing all over the library), then
    the library between them, 96 items a day, newest first."""
    first = [_item(f"day{k}", T + k * DAY, k) for k in range(DAYS)]
    rest = [_item(f"q{j}", T + j * QUARTER, j) for j in range(DAYS * 96) if j % 96]
    rest.reverse()
    return first, rest


def _spread_out(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The library synced with the old spacing: most of it out of date order."""
    first, rest = _library()
    with monkeypatch.context() as patch:
        patch.setattr(recency, "_keys_per_ms", _old_keys_per_ms)
        with StoreWriter(path) as writer:
            writer.ingest_json(first, tags=TAGS).result()
            for start in range(0, len(rest), 100):
                writer.ingest_json(rest[start : start + 100]).result()
            writer.flush_index().result()
            writer.set_reading_position("q500", 1234).result()


# Items that found no room between their neighbours and went above every key.
MISPLACED = {"day3", "q101", "q205", "q206", "q777"}


def _few_misplaced(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The library synced in order but for a few items keyed above the newest."""
    first, rest = _library()
    with StoreWriter(path) as writer:
        writer.ingest_json([i for i in first if i["id"] not in MISPLACED], tags=TAGS).result()
        rest = [item for item in rest if item["id"] not in MISPLACED]
        for start in range(0, len(rest), 100):
            writer.ingest_json(rest[start : start + 100]).result()
        top = max(_keys(path).values())

        def above_every_key(_db: object, created: Sequence[int | None]) -> list[int]:
            return [top + KEY_STEP * rank for rank in range(1, len(created) + 1)]

        with monkeypatch.context() as patch:
            patch.setattr(ingest, "assign_keys", above_every_key)
            misplaced = [i for i in _library()[0] + _library()[1] if i["id"] in MISPLACED]
            writer.ingest_json(misplaced).result()
        writer.flush_index().result()
        writer.set_reading_position("q500", 1234).result()


@pytest.fixture(params=[_spread_out, _few_misplaced], ids=["spread-out", "few-misplaced"])
def misordered(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A cache out of date order (most of it, or a few items), as schema 9 left it."""
    path = tmp_path / "cache.db"
    request.param(path, monkeypatch)
    _as_schema_9(path)
    return path


def _ordered_cache(path: Path) -> None:
    first, rest = _library()
    with StoreWriter(path) as writer:
        writer.ingest_json(first, tags=TAGS).result()
        for start in range(0, len(rest), 100):
            writer.ingest_json(rest[start : start + 100]).result()
        writer.flush_index().result()
    _as_schema_9(path)


def _as_schema_9(path: Path) -> None:
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA user_version = 9")
        conn.commit()
    finally:
        conn.close()


def _newest_first() -> list[str]:
    first, rest = _library()
    return [item["id"] for item in sorted(first + rest, key=lambda item: -item["created_at"])]


def _keys(path: Path) -> dict[str, int]:
    conn = sqlite3.connect(path)
    try:
        return dict(conn.execute("SELECT id, rowid FROM entities"))
    finally:
        conn.close()


def _descents(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return rekey.descents(conn)
    finally:
        conn.close()


def _version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


def _everything(path: Path) -> dict[str, Any]:
    """What a person can read of every item: its row, JSON, tags and reading position."""
    with CacheReader(path) as reader:
        ids = sorted(reader.all_ids())
        return {
            "rows": [reader.get(entity_id) for entity_id in ids],
            "json": [reader.raw_json(entity_id) for entity_id in ids],
            "tags": {tag["id"]: sorted(reader.ids_with_tag(tag["id"])) for tag in TAGS},
            "position": reader.reading_position("q500"),
            "found": sorted(reader.search_ids("spread", limit=5000)),
            "one": reader.search_ids("number77 "),
        }


def test_a_cache_out_of_date_order_lists_newest_first_once_opened(
    misordered: Path,
) -> None:
    path = misordered
    conn = sqlite3.connect(path)
    listed = [row[0] for row in conn.execute("SELECT id FROM entities ORDER BY rowid DESC")]
    conn.close()
    assert listed != _newest_first()  # what the search listed before: out of date order
    with CacheReader(path) as reader:
        assert reader.search_ids("spread", sort="newest", limit=5000) == _newest_first()
        assert reader.search_ids("spread", limit=5000) == _newest_first()
        assert reader.search_ids("#label1", sort="newest", limit=5) == [
            i for i in _newest_first() if i.startswith("q") and int(i[1:]) % 2 and
            int(i[1:]) % 3 == 1
        ][:5]  # fmt: skip
    keys = _keys(path)
    assert max(keys, key=keys.__getitem__) == _newest_first()[0]
    assert _descents(path) == 0
    assert _version(path) == SCHEMA_VERSION
    conn = sqlite3.connect(path)
    try:
        for table in ("body_fts", "title_fts"):
            conn.execute(f"INSERT INTO {table} ({table}) VALUES ('integrity-check')")
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        conn.close()


def test_every_item_reads_back_as_it_was(misordered: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = misordered
    with monkeypatch.context() as patch:
        patch.setattr(reader_module, "SCHEMA_VERSION", 9)  # read it as schema 9 did
        before = _everything(path)
    assert _version(path) == 9
    after = _everything(path)
    assert _version(path) == SCHEMA_VERSION
    assert _descents(path) == 0
    assert after == before
    assert len(before["rows"]) == DAYS * 96
    assert before["one"] == ["q77"]
    assert before["position"] == 1234


def test_rows_waiting_to_be_indexed_stay_queued_and_are_found_once_indexed(
    misordered: Path,
) -> None:
    path = misordered
    # The newest rows taken out of the indexes and queued, as a sync stopped midway leaves
    # them.
    db = wrapped(connect(path))
    with db.atomic():
        newest = [row[0] for row in db.execute("SELECT rowid FROM entities ORDER BY "
                                               "created_at DESC LIMIT 150")]  # fmt: skip
        ingest._unindex(db, newest)
        db.execute(f"INSERT INTO fts_pending (rowid) SELECT value FROM {IN_LIST}", [in_ids(newest)])
    db.close()
    queued = len(newest)
    open_cache(path).close()
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("SELECT count(*) FROM fts_pending").fetchone()[0] == queued
        assert not conn.execute(
            "SELECT rowid FROM fts_pending WHERE rowid NOT IN (SELECT rowid FROM entities)"
        ).fetchall()
    finally:
        conn.close()
    with StoreWriter(path) as writer:
        writer.flush_index().result()
    with CacheReader(path) as reader:
        assert reader.search_ids("spread", limit=5000) == _newest_first()


def test_indexes_of_other_extraction_code_are_rebuilt_under_the_new_keys(
    misordered: Path,
) -> None:
    path = misordered
    conn = sqlite3.connect(path)
    conn.execute("UPDATE sync_state SET value = 'extract-0/older' WHERE key = ?",
                 [FTS_FINGERPRINT_KEY])  # fmt: skip
    conn.commit()
    conn.close()
    with StoreWriter(path) as writer:
        writer.flush_index().result()
    with CacheReader(path) as reader:
        assert reader.search_ids("spread", limit=5000) == _newest_first()
        assert reader.sync_state(FTS_FINGERPRINT_KEY) != "extract-0/older"


def test_a_cache_in_order_is_only_read(tmp_path: Path) -> None:
    path = tmp_path / "cache.db"
    _ordered_cache(path)
    assert _descents(path) == 0
    keys = _keys(path)
    conn = sqlite3.connect(path)
    index = conn.execute("SELECT id, block FROM body_fts_data ORDER BY id").fetchall()
    conn.close()
    reported: list[tuple[int, int]] = []
    open_cache(path, progress=lambda done, total: reported.append((done, total))).close()
    assert _version(path) == SCHEMA_VERSION
    assert _keys(path) == keys
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT id, block FROM body_fts_data ORDER BY id").fetchall() == index
    conn.close()
    assert reported == []


def test_progress_is_reported_from_nothing_to_all(
    misordered: Path,
) -> None:
    path = misordered
    reported: list[tuple[int, int]] = []
    open_cache(path, progress=lambda done, total: reported.append((done, total))).close()
    assert reported[0][0] == 0
    assert reported[-1][0] == reported[-1][1] > 0
    assert len({total for _done, total in reported}) == 1
    done = [step for step, _total in reported]
    assert done == sorted(done)
    assert len(done) > 3  # step by step, not only at the ends


def test_too_little_disk_leaves_a_cache_to_re_key_whole_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cache.db"
    _spread_out(path, monkeypatch)
    _as_schema_9(path)
    keys = _keys(path)
    monkeypatch.setattr(rekey, "has_room", lambda _path: False)
    open_cache(path).close()
    assert _version(path) == SCHEMA_VERSION
    assert _keys(path) == keys
    with CacheReader(path) as reader:
        assert sorted(reader.search_ids("spread", limit=5000)) == sorted(_newest_first())


def test_a_few_items_out_of_place_move_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "cache.db"
    _few_misplaced(path, monkeypatch)
    _as_schema_9(path)
    before = _keys(path)
    monkeypatch.setattr(rekey, "has_room", lambda _path: False)  # moving them needs none
    open_cache(path).close()
    after = _keys(path)
    assert {key for key in before if before[key] != after[key]} == MISPLACED
    assert _descents(path) == 0


_MIGRATING_CHILD = textwrap.dedent(
    """
    import sys, time
    from memex_desktop.store import schema

    def progress(done, total):
        if 0 < done < total and done * 2 >= total:
            print("midway", flush=True)
            time.sleep(600)

    schema.open_cache(schema.Path(sys.argv[1]), progress=progress)
    """
)


def test_kill_9_midway_leaves_the_old_cache_which_is_re_keyed_next_time(
    misordered: Path,
) -> None:
    path = misordered
    keys = _keys(path)
    with python_child(_MIGRATING_CHILD, str(path)) as child:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == b"midway"
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone() == (9,)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        assert "entities_rekeyed" not in tables
    finally:
        conn.close()
    assert _keys(path) == keys
    with CacheReader(path) as reader:
        assert reader.search_ids("spread", sort="newest", limit=5000) == _newest_first()
    assert _descents(path) == 0


def _put_back(keys: list[int], moves: dict[int, int]) -> list[int]:
    placed = [moves.get(key, key) for key in keys]
    assert all(b > a for a, b in itertools.pairwise(placed))
    return placed


def test_an_item_without_room_takes_its_neighbours_along() -> None:
    keys = [64 * step for step in range(1, 31)] + [1921, 1922, 9999, 1923, 3000, 4000]
    dates = [T + minute * 60_000 for minute in range(len(keys))]
    moves = recency.keys_back_in_order(keys, dates)  # 9999 is out of place, without room
    assert moves is not None
    assert 9999 in moves
    assert set(moves) <= {1922, 9999, 1923}  # the window around it, no farther
    placed = _put_back(keys, moves)
    assert placed[:31] == keys[:31]
    assert placed[-2:] == [3000, 4000]


def test_an_item_out_of_place_at_an_end_extends_the_keys() -> None:
    dates = [T, T + 60_000, T + 120_000, T + 180_000]
    moves = recency.keys_back_in_order([5000, 100, 200, 300], dates)
    assert moves is not None
    assert set(moves) == {5000}
    assert _put_back([5000, 100, 200, 300], moves)[0] < 100
    moves = recency.keys_back_in_order([100, 200, 300, 50], dates)
    assert moves == {50: moves[50]}
    assert moves[50] > 300


def test_keys_mostly_out_of_order_are_left_to_a_re_key_of_everything() -> None:
    dates = [T + minute * 60_000 for minute in range(20)]
    assert recency.keys_back_in_order(list(range(2000, 0, -100)), dates) is None


def test_the_command_line_shows_how_far_the_update_has_come(
    misordered: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from support.cli import Cli

    data = misordered.parent
    run = Cli(capsys, data, "http://127.0.0.1:9")  # a key, no server: the save waits
    status, _out, err = run("save", "https://example.org/after-the-update")
    assert status == 0, err
    lines = [line for line in err.splitlines() if "updating the cache" in line]
    assert lines[0].endswith("updating the cache: 0%")
    assert lines[-1].endswith("updating the cache: 100%")
    assert len(lines) == len(set(lines)) <= 11  # a tenth of the way at a time, off a terminal
    assert _descents(misordered) == 0
