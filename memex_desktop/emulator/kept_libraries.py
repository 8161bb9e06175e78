"""Generated libraries kept between benchmark runs, so that every area of a run, and later
runs, read one file instead of generating it again (at a million items generating takes
longer than most areas). ``MEMEX_BENCH_CACHE`` names the folder, else the user's cache
folder."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sys
import time
from collections.abc import Generator
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TextIO

from memex_desktop.emulator.library import JsonObject, LibraryLine, read_library_lines
from memex_desktop.emulator.synthetic import library_object, write_generated_library

BENCH_CACHE_ENV = "MEMEX_BENCH_CACHE"


def bench_cache_dir() -> Path:
    """Where generated libraries are kept between runs."""
    given = os.environ.get(BENCH_CACHE_ENV)
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memex-desktop" / "bench"


def _generator_digest() -> str:
    """A digest of the generator's source: a changed generator makes new files."""
    source = resources.files("memex_desktop.emulator").joinpath("synthetic.py").read_bytes()
    return hashlib.sha256(source).hexdigest()[:12]


@dataclass(frozen=True)
class PreparedLibrary:
    """A generated library file in JSON Lines, and how it was had: generated now, or found
    from before. Read it as a stream: at a million items it does not fit in memory."""

    path: Path
    entities: int
    seconds: float
    reused: bool

    def extras(self) -> JsonObject:
        """The library's tags, views, feeds and plans."""
        return read_library_lines(self.path)[0]

    def pairs(self) -> Generator[LibraryLine, None, None]:
        """Every entity in order, with its references entry when it has one."""
        return read_library_lines(self.path)[1]

    def newest_first(self) -> Generator[JsonObject, None, None]:
        """Every entity, the newest ``created_at`` first: the order a full sync receives
        them in (it pages with ``sortBy: "date-desc"``), which is also the order the cache's
        recency keys grow in. The file is read twice, the second time line by line where
        each entity starts, so the entities are never all in memory at once."""
        starts: list[tuple[int, int]] = []
        with self.path.open("rb") as handle:
            handle.readline()
            while True:
                offset = handle.tell()
                line = handle.readline()
                if not line:
                    break
                if line.strip():
                    entity = json.loads(line).get("entity") or {}
                    created = entity.get("created_at")
                    starts.append((-created if isinstance(created, int) else 0, offset))
            starts.sort()
            for _, offset in starts:
                handle.seek(offset)
                yield json.loads(handle.readline())["entity"]

    def first(self, count: int) -> list[JsonObject]:
        """The first ``count`` entities (what benchmark queries are drawn from)."""
        pairs = self.pairs()
        try:
            return [entity for entity, _ in itertools.islice(pairs, count)]
        finally:
            pairs.close()

    def load(self) -> JsonObject:
        """The whole library as one object, as :func:`generate_library` returns it (small
        libraries only)."""
        return library_object(self.pairs(), self.extras())


def prepared_library(
    entities: int, *, seed: int, words_per_entity: int = 1000, log: TextIO | None = sys.stderr
) -> PreparedLibrary:
    """The file of ``generate_library(entities, seed, words_per_entity)``, generated only once."""
    name = f"library-{entities}-s{seed}-w{words_per_entity}-{_generator_digest()}.jsonl"
    path = bench_cache_dir() / name
    started = time.perf_counter()
    if path.is_file():
        return PreparedLibrary(path, entities, time.perf_counter() - started, reused=True)
    write_generated_library(path, entities, seed=seed, words_per_entity=words_per_entity)
    seconds = time.perf_counter() - started
    if log is not None:
        print(f"bench: generated {entities} items into {path} in {seconds:.1f} s", file=log)
    return PreparedLibrary(path, entities, seconds, reused=False)
