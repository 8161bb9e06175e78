"""Every benchmark runs end to end on a small library and reports its named measures."""

from __future__ import annotations

import pytest

from memex_desktop.bench import area_of, benchmark_files, run_benchmarks
from memex_desktop.emulator.kept_libraries import BENCH_CACHE_ENV

AREAS = sorted(area_of(path) for path in benchmark_files())


@pytest.fixture(autouse=True)
def _library_files_in_the_test_folder(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Generated libraries go to one folder of this test run, never the user's cache."""
    monkeypatch.setenv(BENCH_CACHE_ENV, str(tmp_path_factory.getbasetemp() / "bench-cache"))


def test_every_area_is_found() -> None:
    assert {"store", "sync", "render", "graph", "ui"} <= set(AREAS)


@pytest.mark.parametrize("area", [area for area in AREAS if area != "ui"])
def test_benchmark_runs_on_a_small_library(area: str) -> None:
    measures = run_benchmarks(300, only=[area])[area]
    assert measures.pop(f"bench_{area}_s") >= 0
    assert measures
    assert all(value >= 0 for value in measures.values())
    # Every measure carries its unit in its name; a floor or a ratio follows its measure's.
    units = ("_ms", "_s", "_seconds", "_mb", "_bytes", "_count", "_ratio", "_per_item")
    bases = {name.removesuffix("_floor") for name in measures}
    assert all(name.endswith(units) for name in bases), measures
    for name in measures:
        if name.endswith("_floor"):
            assert name.removesuffix("_floor") in measures
            assert name.removesuffix("_floor") + "_ratio" in measures
