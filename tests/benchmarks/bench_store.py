"""Store benchmark: ingest rate of a generated library and local search latency.

The cache is filled with exactly what a full sync feeds it: the emulator's raw search pages
(empty query, newest first, notes included, 100 per page), validated as a
``SearchRawPage``, cleaned as the sync engine does, and handed to
``StoreWriter.ingest_search_page`` one page at a time, each with its sync bookmark. Only the
store's share is timed; serving and parsing the pages is measured on its own.

Measures: ``ingest_entities_per_s`` (pages committed to the cache per second of store time,
what a sync waits for), ``searchable_entities_per_s`` (until the search index holds
everything too), ``index_lag_s`` (indexing still running after the last page committed),
``index_merge_s`` (merging the indexes into one b-tree each afterwards, which the writer
does by itself once no write waits), ``pack_s`` (packing the stored JSON of the items
written before the packing dictionary was trained, and giving back the pages packing and
merging freed, also done by the writer by itself), ``compact_s`` (rewriting the file with
full pages, which the writer does by itself once writes have stopped for a while after the
library doubled), ``parse_entities_per_s`` (JSON decoding
and pydantic validation of the pages, done by the sync engine before the store sees them),
``search_p50_ms``/``search_p95_ms``/``search_max_ms`` over 200 mixed queries
(:func:`benchmark_queries`: common and rare words, pairs, prefixes, exact titles and URLs)
and 50 queries of the search language (:func:`operator_queries`: phrases, ``-word``,
``OR``, ``tag:``/``#``, ``type:``, ``site:``), ``search_operators_p95_ms`` over those 50
alone, ``search_plain_p95_ms`` over the 200 others alone, ``search_phrase_first_page_ms``
and ``search_phrase_full_list_ms`` (the two reads the window makes for a search, its first
page of 301 ids and then its whole list of up to 100,001 on a worker, each the median over
:data:`PHRASES` quoted phrases of two words standing next to each other in an item,
:func:`phrase_queries`), and ``cache_size_mb`` (database and WAL on disk),
``cache_bytes_per_item`` and ``cache_to_json_ratio`` (the cache on disk over the raw JSON of
the items it holds, as the library file has them).

Floors, measured on the same cache in the same run: ``search_p50_ms_floor`` and
``search_p95_ms_floor`` time the same 250 queries as one bare FTS5 ``MATCH … LIMIT 50`` of
their words on the cache's full-text index, no ranking, no snippets, no search language (the
least work any search can do). ``search_ranked_p95_ms`` is ``search_p95_ms`` again, with
as its floor the same bare reads in an order of relevance, ``ORDER BY rank`` (FTS5's bm25,
which reads every match to order them: the least work of a search that puts the best first).
``search_phrase_first_page_ms_floor`` and ``search_phrase_full_list_ms_floor`` make the same
reads for the phrases' words unquoted: the same items from the index, none of their texts
read. ``library_s`` is the time to generate
the library, or to read it when an earlier run generated it.
"""

from __future__ import annotations

import json
import pathlib
import random
import re
import sqlite3
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

from memex_desktop.api.content import host_of
from memex_desktop.api.models import SearchRawPage
from memex_desktop.emulator.config import EmulatorConfig
from memex_desktop.emulator.kept_libraries import prepared_library
from memex_desktop.emulator.search import parse_search_request, run_search
from memex_desktop.emulator.state import EmulatorState
from memex_desktop.emulator.synthetic import benchmark_queries
from memex_desktop.store import CacheReader, StoreWriter
from memex_desktop.store.search_language import TYPE_NAMES
from memex_desktop.sync.engine import without_listed_notes

PAGE_SIZE = 100
QUERIES = 200
OPERATOR_QUERIES = 50
PHRASES = 7
# The ids the window reads for a search (ui/search_controller.py): its first page, one more
# than FIRST_PAGE to tell whether more match, then the whole list up to SEARCH_LIMIT.
WINDOW_FIRST_PAGE = 301
WINDOW_FULL_LIST = 100_001
_ALPHA_WORD = re.compile(r"[a-z]{3,}")
_WORD = re.compile(r"[^\W_]+")  # what the unicode61 tokenizer keeps
# The cache's full-text index of item texts: its name now, and in caches of the first schema.
_FTS_TABLES = ("body_fts", "entity_fts")


def sync_pages(library: dict[str, Any] | pathlib.Path) -> Iterator[str]:
    """The raw JSON of every page a full sync of ``library`` (an object or a library file)
    receives, newest first."""
    given = {"library_path": library} if isinstance(library, pathlib.Path) else {"library": library}
    state = EmulatorState(EmulatorConfig(**given, processing_delay_s=0.0, balance_micros=10**15))
    try:
        for offset in range(0, len(state.entity_ids()), PAGE_SIZE):
            body = {"query": "", "raw": True, "limit": PAGE_SIZE, "offset": offset,
                    "sortBy": "date-desc", "includeNotes": True}  # fmt: skip
            yield run_search(state, parse_search_request(body, state))
    finally:
        state.close()


def _percentile(sorted_values: list[float], share: float) -> float:
    """The nearest-rank percentile of already sorted values."""
    return sorted_values[max(0, int(len(sorted_values) * share + 0.5) - 1)]


def ingest(path: pathlib.Path, library: dict[str, Any] | pathlib.Path) -> dict[str, float]:
    """Ingest a library page by page as a full sync does; rates to cache and to searchable."""
    store_s = parse_s = 0.0
    count = 0
    writer = StoreWriter(path)
    try:
        for text in sync_pages(library):
            begun = time.perf_counter()
            response = without_listed_notes(SearchRawPage.model_validate(json.loads(text)))
            parsed = time.perf_counter()
            pending = [
                writer.ingest_search_page(response),
                writer.set_sync_state("bench.offset", str(count)),
            ]
            for future in pending:
                future.result()
            store_s += time.perf_counter() - parsed
            parse_s += parsed - begun
            count += len(response.results)
        last_page = time.perf_counter()
        writer.flush_index().result()
        lag = time.perf_counter() - last_page
        # What the writer does by itself in the quiet after a sync, done here at once so
        # that the searches below neither compete with it nor read a half-merged index:
        # merging, then packing the rows written before the dictionary was trained and
        # giving back the pages both freed.
        writer.merge_index().result()
        merge_s = time.perf_counter() - last_page - lag
        writer.pack_now().result()
        pack_s = time.perf_counter() - last_page - lag - merge_s
        # Then listing the body index's words, which lets a prefix be asked for by them.
        writer.list_terms().result()
        terms_s = time.perf_counter() - last_page - lag - merge_s - pack_s
        # And rewriting the file with full pages, once writes have stopped (about the time
        # a copy of the file takes).
        writer.compact_now().result()
        compact_s = time.perf_counter() - last_page - lag - merge_s - pack_s - terms_s
    finally:
        writer.close()
    return {
        "ingest_entities_per_s": count / store_s,
        "searchable_entities_per_s": count / (store_s + lag),
        "index_lag_s": lag,
        "index_merge_s": merge_s,
        "pack_s": pack_s,
        "list_terms_s": terms_s,
        "compact_s": compact_s,
        "parse_entities_per_s": count / parse_s,
    }


def search_timings(path: pathlib.Path, queries: list[str]) -> list[float]:
    """Milliseconds of ``search(query, limit=50)`` for each query, in query order."""
    reader = CacheReader(path)
    try:
        timings = []
        for query in queries:
            begun = time.perf_counter()
            reader.search(query, limit=50)
            timings.append((time.perf_counter() - begun) * 1000)
    finally:
        reader.close()
    return timings


def _fts_table(connection: sqlite3.Connection) -> str:
    """The name of the cache's full-text index of item texts."""
    for name in _FTS_TABLES:
        found = connection.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
        ).fetchone()
        if found:
            return name
    raise RuntimeError("the cache has no full-text index the floor knows")


def bare_match(query: str) -> str | None:
    """The words of ``query`` as one FTS5 expression (each word quoted, all required)."""
    words = _WORD.findall(query.lower())
    return " ".join(f'"{word}"' for word in words) or None


def floor_timings(path: pathlib.Path, queries: list[str], *, ranked: bool = False) -> list[float]:
    """Milliseconds of one bare ``MATCH … LIMIT 50`` of each query's words on the same cache
    (``ranked``: ``ORDER BY rank``, FTS5's bm25, which reads every match to order them)."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        table = _fts_table(connection)
        order = " ORDER BY rank" if ranked else ""
        sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ?{order} LIMIT 50"
        timings = []
        for query in queries:
            expression = bare_match(query)
            begun = time.perf_counter()
            if expression is not None:
                connection.execute(sql, (expression,)).fetchall()
            timings.append((time.perf_counter() - begun) * 1000)
    finally:
        connection.close()
    return timings


def _first_items(library: dict[str, Any]) -> list[dict[str, Any]]:
    """The library's first 400 items, which queries are drawn from."""
    return [entity for entity in library.get("results", []) if isinstance(entity, dict)][:400]


def _long_texts(items: list[dict[str, Any]]) -> list[list[str]]:
    """The words (three letters or more) of each long text of ``items`` holding more than
    three of them."""
    texts = [
        words
        for entity in items
        for key in ("full_text", "text", "description")
        if isinstance(entity.get(key), str)
        and len(words := _ALPHA_WORD.findall(entity[key].lower())) > 3
    ]
    if not texts:
        raise ValueError("the library holds no text to draw queries from")
    return texts


def operator_queries(library: dict[str, Any], count: int = OPERATOR_QUERIES) -> list[str]:
    """``count`` queries of the search language drawn from ``library``, deterministic.

    Phrases of two adjacent words of an item, a word without another, two words joined by
    OR, a tag (``tag:`` and ``#``) with a word, a type by its people's name with a word, and
    a host alone and with a word.
    """
    results = _first_items(library)
    rng = random.Random(f"operators:{len(results)}")
    texts = _long_texts(results)
    tags = [str(tag["name"]) for tag in library.get("referencedTags", []) if tag.get("name")]
    # As often as items come from them: common hosts (x.com, youtube.com) are the costly ones.
    hosts = [host for entity in results if (host := host_of(entity.get("url")))]
    present = {entity.get("type") for entity in results}
    people = [name for name, kinds in TYPE_NAMES.items() if present & set(kinds)]

    def word() -> str:
        return rng.choice(rng.choice(texts))

    def phrase() -> str:
        words = rng.choice(texts)
        at = rng.randrange(len(words) - 1)
        return f'"{words[at]} {words[at + 1]}"'

    makers: list[Callable[[], str]] = [
        phrase,
        lambda: f"{word()} -{word()}",
        lambda: f"{word()} OR {word()}",
        lambda: f"tag:{rng.choice(tags)} {word()}" if tags else word(),
        lambda: f"#{rng.choice(tags)}" if tags else word(),
        lambda: f"type:{rng.choice(people)} {word()}" if people else word(),
        lambda: f"site:{rng.choice(hosts)}" if hosts else word(),
        lambda: f"site:{rng.choice(hosts)} {word()}" if hosts else word(),
        lambda: f"{phrase()} -{word()}",
        lambda: f'{word()} -"{word()} {word()}"',
    ]
    return [makers[index % len(makers)]() for index in range(count)]


def phrase_queries(library: dict[str, Any], count: int = PHRASES) -> list[str]:
    """``count`` quoted phrases of two words standing next to each other in an item of
    ``library`` (its first 400), deterministic: mostly common words, which many items hold
    apart, so each phrase is checked on the text of thousands of items."""
    results = _first_items(library)
    rng = random.Random(f"phrases:{len(results)}")
    texts = _long_texts(results)
    phrases: list[str] = []
    while len(phrases) < count:
        words = rng.choice(texts)
        at = rng.randrange(len(words) - 1)
        phrases.append(f'"{words[at]} {words[at + 1]}"')
    return phrases


def window_timings(path: pathlib.Path, queries: list[str]) -> tuple[list[float], list[float]]:
    """Milliseconds of the window's two reads of each query: its first page, then its whole
    list (``search_ids`` with the window's limits), in query order."""
    reader = CacheReader(path)
    first_pages, full_lists = [], []
    try:
        for query in queries:
            begun = time.perf_counter()
            reader.search_ids(query, limit=WINDOW_FIRST_PAGE)
            first_pages.append((time.perf_counter() - begun) * 1000)
            begun = time.perf_counter()
            reader.search_ids(query, limit=WINDOW_FULL_LIST)
            full_lists.append((time.perf_counter() - begun) * 1000)
    finally:
        reader.close()
    return first_pages, full_lists


def measure(
    workdir: pathlib.Path,
    library: dict[str, Any] | pathlib.Path,
    sample: dict[str, Any],
    items: int,
    json_bytes: int,
) -> dict[str, float]:
    """Every measure of this benchmark on an already generated library (an object or a
    library file) of ``items`` items in ``json_bytes`` of JSON; queries are drawn from
    ``sample``, its first 400 items and its tags."""
    path = workdir / "cache.db"
    result = ingest(path, library)
    asked = operator_queries(sample)
    mixed = benchmark_queries(sample, count=QUERIES)
    operators = search_timings(path, asked)
    plain = sorted(search_timings(path, mixed))
    timings = sorted(plain + operators)
    floors = sorted(floor_timings(path, mixed + asked))
    ranked_floors = sorted(floor_timings(path, mixed + asked, ranked=True))
    phrases = phrase_queries(sample)
    phrase_first, phrase_full = window_timings(path, phrases)
    # The phrases' words as whole words (a trailing space: none is being typed).
    words_first, words_full = window_timings(path, [phrase.strip('"') + " " for phrase in phrases])
    reader = CacheReader(path)
    try:
        size = reader.stats().size_bytes
    finally:
        reader.close()
    result.update(
        {
            "search_p50_ms": statistics.median(timings),
            "search_p95_ms": _percentile(timings, 0.95),
            "search_max_ms": timings[-1],
            "search_operators_p95_ms": _percentile(sorted(operators), 0.95),
            # The 200 queries without operators alone: the mix measured before the language.
            "search_plain_p95_ms": _percentile(plain, 0.95),
            "search_p50_ms_floor": statistics.median(floors),
            "search_p95_ms_floor": _percentile(floors, 0.95),
            # The same p95 again, beside the least work of a search in an order of relevance.
            "search_ranked_p95_ms": _percentile(timings, 0.95),
            "search_ranked_p95_ms_floor": _percentile(ranked_floors, 0.95),
            "search_phrase_first_page_ms": statistics.median(phrase_first),
            "search_phrase_first_page_ms_floor": statistics.median(words_first),
            "search_phrase_full_list_ms": statistics.median(phrase_full),
            "search_phrase_full_list_ms_floor": statistics.median(words_full),
            "cache_size_mb": size / 1e6,
            "cache_bytes_per_item": size / max(1, items),
            "cache_to_json_ratio": size / max(1, json_bytes),
        }
    )
    return result


def run(workdir: pathlib.Path, entities: int) -> dict[str, float]:
    """Ingest ``entities`` generated entities page by page, then time 250 local searches."""
    prepared = prepared_library(entities, seed=7)
    started = time.perf_counter()
    sample = {"results": prepared.first(400), "referencedTags": prepared.extras()["referencedTags"]}
    ready_s = prepared.seconds + time.perf_counter() - started
    measures = measure(workdir, prepared.path, sample, entities, prepared.path.stat().st_size)
    return {"library_s": ready_s, **measures}


if __name__ == "__main__":
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        print(run(pathlib.Path(folder), int(sys.argv[1]) if len(sys.argv) > 1 else 10_000))
