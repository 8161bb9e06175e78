"""Store benchmark: ingest rate of a generated library and local search latency.

Measures: ``ingest_entities_per_s`` (pages committed to the cache per second, what a sync
waits for), ``searchable_entities_per_s`` (until the search index holds everything too),
``search_p50_ms``/``search_p95_ms``/``search_max_ms`` over 200 mixed queries
(:func:`benchmark_queries`: common and rare words, pairs, prefixes, exact titles and URLs),
and ``cache_size_mb`` (database and WAL on disk).
"""

from __future__ import annotations

import pathlib
import statistics
import time
from typing import Any

from memex_desktop.emulator.synthetic import benchmark_queries, generate_library
from memex_desktop.store import CacheReader, StoreWriter

PAGE_SIZE = 100
QUERIES = 200


def _references(
    library: dict[str, Any],
) -> dict[str, tuple[list[tuple[str, str | None]], list[str]]]:
    """referencesByResultId as the plain data the writer takes."""
    result: dict[str, tuple[list[tuple[str, str | None]], list[str]]] = {}
    for source, refs in library.get("referencesByResultId", {}).items():
        targets = [
            (item, None) if isinstance(item, str) else (item["id"], item.get("type"))
            for item in refs.get("contentEntityIds", [])
        ]
        result[source] = (targets, list(refs.get("tagIds", [])))
    return result


def _percentile(sorted_values: list[float], share: float) -> float:
    """The nearest-rank percentile of already sorted values."""
    return sorted_values[max(0, int(len(sorted_values) * share + 0.5) - 1)]


def ingest(path: pathlib.Path, library: dict[str, Any]) -> dict[str, float]:
    """Ingest a library page by page as a sync does; rates to cache and to searchable."""
    results = library["results"]
    references = _references(library)
    writer = StoreWriter(path)
    try:
        started = time.perf_counter()
        for start in range(0, len(results), PAGE_SIZE):
            page = results[start : start + PAGE_SIZE]
            page_refs = {
                item["id"]: references[item["id"]] for item in page if item["id"] in references
            }
            tags = library["referencedTags"] if start == 0 else []
            writer.ingest_json(page, tags=tags, references=page_refs).result()
        committed = time.perf_counter() - started
        writer.flush_index().result()
        searchable = time.perf_counter() - started
    finally:
        writer.close()
    return {
        "ingest_entities_per_s": len(results) / committed,
        "searchable_entities_per_s": len(results) / searchable,
        "ingest_indexed_entities_per_s": len(results) / searchable,
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


def measure(workdir: pathlib.Path, library: dict[str, Any]) -> dict[str, float]:
    """Every measure of this benchmark on an already generated library."""
    path = workdir / "cache.db"
    result = ingest(path, library)
    timings = sorted(search_timings(path, benchmark_queries(library, count=QUERIES)))
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
            "cache_size_mb": size / 1e6,
        }
    )
    return result


def run(workdir: pathlib.Path, entities: int) -> dict[str, float]:
    """Ingest ``entities`` generated entities page by page, then time 200 local searches."""
    return measure(workdir, generate_library(entities, seed=7))


if __name__ == "__main__":
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        print(run(pathlib.Path(folder), int(sys.argv[1]) if len(sys.argv) > 1 else 10_000))
