"""Store benchmark: ingest rate of a generated library and local search latency."""

from __future__ import annotations

import pathlib
import random
import re
import statistics
import time
from typing import Any

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.store import CacheReader, StoreWriter

PAGE_SIZE = 100
QUERIES = 200
_WORD = re.compile(r"[^\W\d_]{2,}")


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


def _queries(library: dict[str, Any], seed: int) -> list[str]:
    """Queries of mixed frequency: words drawn from the text itself (so frequent words are
    drawn often), pairs of words, as-you-type prefixes and titles."""
    rng = random.Random(seed)
    results = library["results"]
    queries: list[str] = []
    while len(queries) < QUERIES:
        entity = rng.choice(results)
        words = _WORD.findall(str(entity.get("full_text") or entity.get("text") or entity))
        if len(words) < 2:
            continue
        kind = len(queries) % 4
        if kind == 0:
            queries.append(rng.choice(words))
        elif kind == 1:
            start = rng.randrange(len(words) - 1)
            queries.append(f"{words[start]} {words[start + 1]}")
        elif kind == 2:
            word = max(rng.sample(words, min(3, len(words))), key=len)
            queries.append(word[: max(3, len(word) - 2)])
        else:
            queries.append(str(entity.get("title") or rng.choice(words)))
    return queries


def run(workdir: pathlib.Path, entities: int) -> dict[str, float]:
    """Ingest ``entities`` generated entities page by page, then time 200 local searches."""
    library = generate_library(entities, seed=7)
    results = library["results"]
    references = _references(library)
    path = workdir / "cache.db"
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
        indexed = time.perf_counter() - started
    finally:
        writer.close()
    reader = CacheReader(path)
    try:
        timings = []
        for query in _queries(library, seed=11):
            begun = time.perf_counter()
            reader.search(query, limit=50)
            timings.append((time.perf_counter() - begun) * 1000)
        size = reader.stats().size_bytes
    finally:
        reader.close()
    timings.sort()
    return {
        "ingest_entities_per_s": len(results) / committed,
        "ingest_indexed_entities_per_s": len(results) / indexed,
        "search_p50_ms": statistics.median(timings),
        "search_p95_ms": timings[int(len(timings) * 0.95) - 1],
        "search_max_ms": timings[-1],
        "cache_size_mb": size / 1e6,
    }


if __name__ == "__main__":
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        print(run(pathlib.Path(folder), int(sys.argv[1]) if len(sys.argv) > 1 else 10_000))
