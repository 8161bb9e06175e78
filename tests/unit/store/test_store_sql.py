"""The shared statement shapes: IN lists, multi-row inserts, reads in one step."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest

from memex_desktop.store.sql import (
    CHUNK,
    IN_LIST,
    MAX_PARAMETERS,
    in_ids,
    insert_rows,
    rows_at_once,
)


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE t (id TEXT PRIMARY KEY, a INTEGER, b TEXT)")
    yield connection
    connection.close()


def test_in_list_finds_every_listed_id_once(conn: sqlite3.Connection) -> None:
    stored = [f"id-{n}" for n in range(3 * CHUNK)] + ["ünï", 'q"uote', "back\\slash", "😀"]
    conn.executemany("INSERT INTO t (id) VALUES (?)", [(value,) for value in stored])
    wanted = [*stored[::2], *stored[-4:], *stored[-4:], "absent"]
    found = conn.execute(f"SELECT id FROM t WHERE id IN {IN_LIST}", [in_ids(wanted)])
    assert sorted(row[0] for row in found) == sorted(set(stored[::2]) | set(stored[-4:]))


def test_in_list_of_nothing_matches_nothing(conn: sqlite3.Connection) -> None:
    conn.execute("INSERT INTO t (id) VALUES ('a')")
    assert conn.execute(f"SELECT id FROM t WHERE id IN {IN_LIST}", [in_ids([])]).fetchall() == []


def test_in_list_matches_integer_rowids(conn: sqlite3.Connection) -> None:
    conn.executemany("INSERT INTO t (rowid, id) VALUES (?, ?)", [(n, str(n)) for n in (3, 5, 8)])
    found = conn.execute(
        f"SELECT rowid FROM t WHERE rowid IN {IN_LIST} ORDER BY rowid", [in_ids([5, 8, 2**62])]
    )
    assert [row[0] for row in found] == [5, 8]


@pytest.mark.parametrize("count", [0, 1, 2, 3, 7, 256, 333, 1000])
def test_insert_rows_writes_every_row_in_power_of_two_statements(
    conn: sqlite3.Connection, count: int
) -> None:
    rows = [(f"id-{n}", n, f"b{n}") for n in range(count)]
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    insert_rows(conn, "INSERT INTO t (id, a, b)", rows)
    conn.set_trace_callback(None)
    assert conn.execute("SELECT id, a, b FROM t ORDER BY a").fetchall() == rows
    # The trace shows statements with their values bound: one "(...)" group per row.
    sizes = [sql.count("),(") + 1 for sql in statements if sql.startswith("INSERT")]
    assert sum(sizes) == count
    assert all(size & (size - 1) == 0 and size * 3 <= MAX_PARAMETERS for size in sizes)


def test_rows_at_once_reads_what_a_plain_read_gives(conn: sqlite3.Connection) -> None:
    rows = [('quote"d', 2**62, None), ("ünï\ncode", -1, "text"), ("empty", None, "")]
    conn.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)
    found = rows_at_once(conn, "id, a, b", "FROM t WHERE a IS NOT ?", [-1])
    assert sorted(found) == [["empty", None, ""], ['quote"d', 2**62, None]]
