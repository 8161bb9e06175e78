"""The listed words of the body index: never missing one, and a prefix asked for by its
words finds exactly what FTS5's own prefix expansion finds."""

from __future__ import annotations

import random
import re
import sqlite3
import time
from pathlib import Path

import pytest

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store import CacheReader, StoreWriter, terms
from memex_desktop.store.state_keys import STATE_BODY_TERMS

T = 1_700_000_000_000


def _index_words(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE VIRTUAL TABLE temp.words USING fts5vocab(main, body_fts, row)")
        return {str(row[0]) for row in conn.execute("SELECT term FROM temp.words")}


def _listed(path: Path) -> tuple[set[str], bool]:
    with sqlite3.connect(path) as conn:
        words = {str(row[0]) for row in conn.execute("SELECT term FROM body_terms")}
        return words, terms.is_complete(conn)


def _set_listed(path: Path, state: str) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute(
            "INSERT OR REPLACE INTO sync_state (key, value) VALUES (?, ?)",
            [STATE_BODY_TERMS, state],
        )


def _item(number: int, text: str) -> dict[str, object]:
    return {
        "id": f"w-{number}", "type": "web", "title": f"Item {number}",
        "url": f"https://w.example/{number}", "created_at": T + number, "full_text": text,
    }  # fmt: skip


def test_the_listed_words_are_the_index_words(writer: StoreWriter, cache_path: Path) -> None:
    writer.ingest_json(generate_library(150, seed=3, words_per_entity=60)["results"]).result()
    writer.flush_index().result()
    writer.list_terms().result(timeout=60)
    words, complete = _listed(cache_path)
    assert complete
    assert words == _index_words(cache_path)


def test_a_few_rows_keep_the_list_complete_and_many_redo_it(
    writer: StoreWriter, cache_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer.ingest_json([_item(0, "first words")]).result()
    writer.flush_index().result()
    writer.list_terms().result(timeout=60)
    # Accents and case folded as the index folds them, by the index's own tokenizer.
    writer.ingest_json([_item(1, "A Cafétéria ŒUVRE naïve")]).result()
    writer.flush_index().result()
    words, complete = _listed(cache_path)
    assert complete
    assert {"cafeteria", "naive"} <= words
    assert words >= _index_words(cache_path)

    monkeypatch.setattr(terms, "FRESH_ROWS_MAX", 2)
    writer.ingest_json([_item(n, f"batchword{n}") for n in range(10, 15)]).result()
    writer.flush_index().result()
    words, complete = _listed(cache_path)
    assert not complete
    writer.list_terms().result(timeout=60)
    words, complete = _listed(cache_path)
    assert complete
    assert words >= _index_words(cache_path)
    assert {f"batchword{n}" for n in range(10, 15)} <= words


def test_rows_noted_one_write_at_a_time_are_counted_together(
    writer: StoreWriter, cache_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A full sync indexes its pages one by one, each page a small batch: the pages
    # together, not each alone, decide when tokenizing twice stops paying.
    writer.ingest_json([_item(0, "first words")]).result()
    writer.flush_index().result()
    _set_listed(cache_path, "")  # the list is made again: the count starts from none
    writer.list_terms().result(timeout=60)
    monkeypatch.setattr(terms, "FRESH_ROWS_MAX", 3)
    for number in (1, 2, 3):
        writer.ingest_json([_item(number, f"counted{number}")]).result()
        assert _listed(cache_path)[1]
    writer.ingest_json([_item(4, "counted4")]).result()
    assert not _listed(cache_path)[1]
    # Listed again, the count starts over.
    writer.list_terms().result(timeout=60)
    assert _listed(cache_path)[1]
    writer.ingest_json([_item(5, "counted5")]).result()
    words, complete = _listed(cache_path)
    assert complete
    assert {"counted4", "counted5"} <= words


def test_the_writer_lists_the_words_by_itself_when_idle(tmp_path: Path) -> None:
    path = tmp_path / "idle.db"
    with StoreWriter(path) as writer:
        writer.ingest_json([_item(n, f"idleword{n} more") for n in range(30)]).result()
        writer.flush_index().result()
        for _ in range(500):
            if _listed(path)[1]:
                break
            time.sleep(0.02)
    words, complete = _listed(path)
    assert complete
    assert words == _index_words(path)


def _prefix_queries(items: list[dict[str, object]], count: int) -> list[str]:
    rng = random.Random(5)
    texts = [f"{item.get('title') or ''} {item.get('full_text') or ''}" for item in items]
    words = sorted({w for text in texts for w in re.findall(r"[a-z]{5,}", text.lower())})
    queries = []
    for _ in range(count):
        word = rng.choice(words)
        stem = word[: rng.randint(4, len(word))]
        other = rng.choice(words)
        queries += [stem, f"{other} {stem}", f"-{other} {stem}"]
    return queries


def test_a_prefix_finds_the_same_asked_by_its_words(writer: StoreWriter, cache_path: Path) -> None:
    items = generate_library(200, seed=9, words_per_entity=80)["results"]
    writer.ingest_json(items).result()
    writer.flush_index().result()
    writer.list_terms().result(timeout=60)
    queries = _prefix_queries(items, 60)
    with CacheReader(cache_path) as reader:
        expanded = {query: reader.search_ids(query, limit=500) for query in queries}
        newest = {q: reader.search_ids(q, limit=500, sort="newest") for q in queries}
        # The words were used: some prefix starts several of them.
        assert any(len(terms.words_starting(reader.db.conn, q) or ()) > 1 for q in queries)
        _set_listed(cache_path, "")
        assert terms.words_starting(reader.db.conn, queries[0]) is None
        # bm25 weighs the words of an OR each by itself and a prefix as one: the same
        # items, ranked alike but not always in the same order.
        assert {q: set(reader.search_ids(q, limit=500)) for q in queries} == {
            q: set(found) for q, found in expanded.items()
        }
        assert {q: reader.search_ids(q, limit=500, sort="newest") for q in queries} == newest
    assert sum(bool(found) for found in expanded.values()) > len(queries) // 2


def test_prefixes_the_list_cannot_answer_are_left_to_the_index(
    writer: StoreWriter, cache_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer.ingest_json([_item(n, f"stemword{n} stemmer café") for n in range(5)]).result()
    writer.flush_index().result()
    writer.list_terms().result(timeout=60)
    with CacheReader(cache_path) as reader:
        conn = reader.db.conn
        assert terms.words_starting(conn, "stemw") == tuple(f"stemword{n}" for n in range(5))
        assert terms.words_starting(conn, "nothingstarts") == ()
        assert reader.search_ids("nothingstarts") == []
        assert terms.words_starting(conn, "café") is None  # folded by FTS5, not here
        assert len(reader.search_ids("café")) == 5
        monkeypatch.setattr(terms, "MAX_EXPANSION", 3)
        assert terms.words_starting(conn, "stem") is None
        assert len(reader.search_ids("stem")) == 5
