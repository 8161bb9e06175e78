"""The benchmark runner behind ``memex-desktop bench`` (a source checkout only).

Every ``tests/benchmarks/bench_<area>.py`` defines ``run(workdir, entities) -> dict[str,
float]``; each runs in a fresh temporary folder and returns named measures with the unit in
the name (``sync_entities_per_s``, ``search_p95_ms``, ...). A measure ``<name>_floor`` is the
least work the same task can take, measured in the same run (a bare FTS5 query, a bare window):
the runner adds ``<name>_ratio`` = measure / floor, which moves far less between runs on a
shared machine than the absolute figure.

Generated libraries are written once to a folder kept between runs
(:func:`memex_desktop.emulator.kept_libraries.prepared_library`), so the areas of one run, and
later runs, read the same file instead of generating it again: at a million items generating
takes longer than most areas.
"""

from __future__ import annotations

import importlib.util
import math
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import TextIO

from memex_desktop import paths

FLOOR_SUFFIX = "_floor"
RATIO_SUFFIX = "_ratio"


class BenchError(Exception):
    """The benchmarks cannot run (not a source checkout, a broken benchmark module)."""


def benchmark_files() -> list[Path]:
    """The benchmark modules of the source checkout, sorted by name."""
    root = paths.source_tree_dir()
    if root is None:
        raise BenchError(
            "benchmarks live in the source checkout (tests/benchmarks); run `memex-desktop "
            "bench` from a clone of the repository installed with `pip install -e .`"
        )
    folder = root / "tests" / "benchmarks"
    files = sorted(folder.glob("bench_*.py"))
    if not files:
        raise BenchError(f"no benchmark modules (bench_*.py) in {folder}")
    return files


def with_ratios(measures: dict[str, float]) -> dict[str, float]:
    """The measures, each ``<name>_floor`` followed by ``<name>_ratio`` = measure / floor."""
    result: dict[str, float] = {}
    for name, value in measures.items():
        result[name] = value
        base = name.removesuffix(FLOOR_SUFFIX)
        if base != name and base in measures and value > 0:
            result[base + RATIO_SUFFIX] = measures[base] / value
    return result


def area_of(path: Path) -> str:
    """``bench_sync.py`` -> ``sync``."""
    return path.stem.removeprefix("bench_")


def _load(path: Path) -> ModuleType:
    """Import one benchmark module from its file."""
    name = f"memex_bench_{area_of(path)}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BenchError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        sys.modules.pop(name, None)
        raise BenchError(f"{path.name} failed to import: {type(exc).__name__}: {exc}") from exc
    if not callable(getattr(module, "run", None)):
        raise BenchError(f"{path.name} defines no run(workdir, entities)")
    return module


def run_benchmarks(
    entities: int, *, only: list[str] | None = None, log: TextIO | None = None
) -> dict[str, dict[str, float]]:
    """Run each benchmark (or those in ``only``) in its own temporary folder; measures by area."""
    files = benchmark_files()
    if only:
        wanted = set(only)
        unknown = wanted - {area_of(path) for path in files}
        if unknown:
            raise BenchError(f"no benchmark named {', '.join(sorted(unknown))}")
        files = [path for path in files if area_of(path) in wanted]
    results: dict[str, dict[str, float]] = {}
    for path in files:
        area = area_of(path)
        module = _load(path)
        if log is not None:
            print(f"bench {area}: {entities} entities ...", file=log, flush=True)
        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix=f"memex-bench-{area}-") as workdir:
            measures = module.run(Path(workdir), entities)
        if not isinstance(measures, dict):
            raise BenchError(f"{path.name}: run() returned {type(measures).__name__}, not a dict")
        results[area] = with_ratios({str(key): float(value) for key, value in measures.items()})
        elapsed = time.perf_counter() - started
        results[area][f"bench_{area}_s"] = elapsed
        if log is not None:
            print(f"bench {area}: done in {elapsed:.1f} s", file=log, flush=True)
    return results


def format_table(results: dict[str, dict[str, float]]) -> str:
    """The measures as an aligned text table (area, measure, value), a measure with a floor
    showing the floor and the ratio beside it rather than on rows of their own."""
    header = ("area", "measure", "value", "floor", "ratio")
    rows: list[tuple[str, ...]] = []
    for area, measures in results.items():
        for name, value in measures.items():
            if name.endswith((FLOOR_SUFFIX, RATIO_SUFFIX)) and _base_of(name) in measures:
                continue
            floor = measures.get(name + FLOOR_SUFFIX)
            ratio = measures.get(name + RATIO_SUFFIX)
            rows.append(
                (
                    area,
                    name,
                    _format_value(value),
                    "" if floor is None else _format_value(floor),
                    "" if ratio is None else f"{ratio:.2f}",
                )
            )
    if not rows:
        return "no measures"
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(row: tuple[str, ...]) -> str:
        left = [f"{row[i]:<{widths[i]}}" for i in range(2)]
        right = [f"{row[i]:>{widths[i]}}" for i in range(2, len(row))]
        return "  ".join(left + right).rstrip()

    return "\n".join(
        [line(header), line(tuple("-" * width for width in widths))] + [line(row) for row in rows]
    )


def _base_of(name: str) -> str:
    """``search_p95_ms_floor`` -> ``search_p95_ms`` (the measure a floor or ratio belongs to)."""
    return name.removesuffix(FLOOR_SUFFIX).removesuffix(RATIO_SUFFIX)


def _format_value(value: float) -> str:
    """Whole numbers without decimals, others with up to three significant decimals."""
    if math.isfinite(value) and value == int(value):
        return str(int(value))
    return f"{value:.3f}" if abs(value) < 100 else f"{value:.1f}"
