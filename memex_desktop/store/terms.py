"""The words the body index holds, listed so that a prefix can be asked for by its words.

The body index has no prefix index (it would make the largest table larger still), so FTS5
answers ``"trea"*`` by merging in memory the doclist of every word that starts so, all of
it, before the first row: "fias trea" spent 11 of its 13 ms there on 100,000 items, and
the cost grows with the library. Asked for the same words by name, ``("trea" OR "treat"
OR ...)``, FTS5 reads each doclist lazily from its newest end: 0.95 ms for the same 300
rows (42 words). ``body_terms`` lists those words.

The list must never miss a word the index holds, or a prefix would silently find fewer
items than FTS5 does; a reader expands a prefix only while the list is known complete.
A few rows to index (an incremental sync) add their words through a small
in-memory index of their own, which tokenizes exactly as the body index does; many rows (a
full sync) would pay that tokenizing twice, so past FRESH_ROWS_MAX rows the list is marked
incomplete instead and the writer lists the index's words again while idle, a step at a
time. Words of removed rows stay listed: asking for a word no row holds costs next to
nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from memex_desktop.store.extract import Texts
from memex_desktop.store.state_keys import STATE_BODY_TERMS

# The value of STATE_BODY_TERMS once every word is listed; any other value is the last word
# listed so far (or "" before the first); no word holds parentheses.
COMPLETE = "(complete)"
# Rows whose words are added as they are indexed, counted on the writer's connection since
# the list was last completed; the next ones mark it incomplete. Tokenizing twice costs about
# as much again as indexing: fine for a few hundred rows, not for a full sync's every page.
FRESH_ROWS_MAX = 500
# Words listed per idle step: about 0.1 s of the writer's time on 100,000 items.
LIST_STEP_WORDS = 5_000
# A prefix starting more words than this is left to FTS5: an OR of that many doclists
# costs about as much per row as the merge it replaces.
MAX_EXPANSION = 100

_FRESH_TABLES = (
    """CREATE VIRTUAL TABLE IF NOT EXISTS temp.fresh_body_fts USING fts5(
        title, author, summary, body, content='', detail=none,
        tokenize='unicode61 remove_diacritics 2')""",
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fresh_body_words "
    "USING fts5vocab(temp, fresh_body_fts, row)",
    # One row: how many rows were noted since the list was completed (rolled back with them).
    "CREATE TABLE IF NOT EXISTS temp.fresh_rows_noted (count INTEGER NOT NULL)",
)
_BODY_WORDS = (
    "CREATE VIRTUAL TABLE IF NOT EXISTS temp.body_words USING fts5vocab(main, body_fts, row)"
)


def _state(conn: sqlite3.Connection) -> str:
    row = conn.execute("SELECT value FROM sync_state WHERE key = ?", [STATE_BODY_TERMS]).fetchone()
    return "" if row is None else str(row[0])


def _set_state(conn: sqlite3.Connection, value: str) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO sync_state (key, value) VALUES (?, ?)", [STATE_BODY_TERMS, value]
    )


def is_complete(conn: sqlite3.Connection) -> bool:
    """Whether ``body_terms`` lists every word of the body index."""
    return _state(conn) == COMPLETE


def mark_incomplete(conn: sqlite3.Connection) -> None:
    """The body index took words the list may lack: list them all again, from the start."""
    _set_state(conn, "")


def note_indexed(conn: sqlite3.Connection, texts: Sequence[Texts]) -> None:
    """Keep the list complete for rows just put into the body index (in the same
    transaction): their words are listed when they are few, else the list is redone."""
    if not texts or not is_complete(conn):
        return
    noted = _rows_noted(conn) + len(texts)
    if noted > FRESH_ROWS_MAX:
        mark_incomplete(conn)
        return
    _set_rows_noted(conn, noted)
    conn.executemany(
        "INSERT INTO temp.fresh_body_fts (title, author, summary, body) VALUES (?, ?, ?, ?)",
        texts,
    )
    conn.execute("INSERT OR IGNORE INTO body_terms (term) SELECT term FROM temp.fresh_body_words")
    conn.execute("INSERT INTO temp.fresh_body_fts (fresh_body_fts) VALUES ('delete-all')")


def _make_fresh_tables(conn: sqlite3.Connection) -> None:
    for statement in _FRESH_TABLES:
        conn.execute(statement)


def _rows_noted(conn: sqlite3.Connection) -> int:
    _make_fresh_tables(conn)
    row = conn.execute("SELECT count FROM temp.fresh_rows_noted").fetchone()
    return 0 if row is None else int(row[0])


def _set_rows_noted(conn: sqlite3.Connection, count: int) -> None:
    _make_fresh_tables(conn)
    conn.execute("DELETE FROM temp.fresh_rows_noted")
    conn.execute("INSERT INTO temp.fresh_rows_noted (count) VALUES (?)", [count])


def list_step(conn: sqlite3.Connection, count: int = LIST_STEP_WORDS) -> bool:
    """List the next ``count`` words of the body index; whether the list is complete."""
    listed = _state(conn)
    if listed == COMPLETE:
        return True
    conn.execute(_BODY_WORDS)
    words = [
        str(row[0])
        for row in conn.execute(
            "SELECT term FROM temp.body_words WHERE term > ? ORDER BY term LIMIT ?",
            [listed, count],
        )
    ]
    conn.executemany("INSERT OR IGNORE INTO body_terms (term) VALUES (?)", [(w,) for w in words])
    done = len(words) < count
    _set_state(conn, COMPLETE if done else words[-1])
    if done:
        _set_rows_noted(conn, 0)
    return done


def words_starting(conn: sqlite3.Connection, prefix: str) -> tuple[str, ...] | None:
    """Every word of the body index that starts with ``prefix``, or None when FTS5 must
    expand it itself: the list is incomplete, the prefix starts too many words, or it is
    not plain ASCII (FTS5 folds accents and case of the prefix its own way)."""
    if not prefix or not prefix.isascii() or prefix != prefix.lower() or not is_complete(conn):
        return None
    after = prefix[:-1] + chr(ord(prefix[-1]) + 1)
    words = tuple(
        str(row[0])
        for row in conn.execute(
            "SELECT term FROM body_terms WHERE term >= ? AND term < ? LIMIT ?",
            [prefix, after, MAX_EXPANSION + 1],
        )
    )
    return None if len(words) > MAX_EXPANSION else words
