"""Every benchmark runs end to end on a small library and reports its named measures."""

from __future__ import annotations

import pytest

from memex_desktop.bench import area_of, benchmark_files, run_benchmarks

AREAS = sorted(area_of(path) for path in benchmark_files())


def test_every_area_is_found() -> None:
    assert {"store", "sync", "render", "graph", "ui"} <= set(AREAS)


@pytest.mark.parametrize("area", [area for area in AREAS if area != "ui"])
def test_benchmark_runs_on_a_small_library(area: str) -> None:
    measures = run_benchmarks(300, only=[area])[area]
    assert measures
    assert all(value >= 0 for value in measures.values())
    # Every measure carries its unit in its name.
    units = ("_ms", "_s", "_seconds", "_mb")
    assert all(name.endswith(units) for name in measures), measures
