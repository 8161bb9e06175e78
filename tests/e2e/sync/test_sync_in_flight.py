"""A full sync over a slow network: more requests in flight while the server keeps pace, fewer
when it slows down or refuses (429/503), never more than the cap; every item cached once."""

from itertools import pairwise
from typing import Any

import pytest
from support.secrets import TEST_API_KEY
from support.sync_env import library_ids

from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.sync import SyncOutcome
from memex_desktop.sync.types import SyncProgress

LATENCY_MS = 50
PAGE_SIZE = 40


@pytest.fixture(scope="module")
def library() -> dict[str, Any]:
    return generate_library(1000, seed=21, words_per_entity=20)


def _run(harness: Any, library: dict[str, Any], **options: Any) -> Any:
    """A full sync by a fresh engine; every listed item is cached, once."""
    progress = options.pop("progress", None)
    engine = harness.new_engine(**options)
    report = engine.run(full=True, progress=progress)
    assert report.outcome is SyncOutcome.OK, report.error
    assert set(harness.reader.all_ids()) == library_ids(library)
    assert harness.reader.stats().entities == len(library["results"])
    return engine


def test_more_requests_go_out_while_a_distant_server_keeps_pace(
    library: dict[str, Any], one_profile_emulator: Any, harness_factory: Any
) -> None:
    emulator = one_profile_emulator(library, latency_ms=LATENCY_MS)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=PAGE_SIZE)
    engine = _run(harness, library)
    assert engine.in_flight.most > 2
    assert engine.in_flight.most <= engine.max_in_flight


def test_the_setting_caps_the_requests_in_flight(
    library: dict[str, Any], one_profile_emulator: Any, harness_factory: Any
) -> None:
    emulator = one_profile_emulator(library, latency_ms=LATENCY_MS)
    harness = harness_factory(emulator.base_url, TEST_API_KEY, page_size=PAGE_SIZE)
    assert _run(harness, library, max_in_flight=3).in_flight.most == 3
    assert _run(harness, library, max_in_flight=1).in_flight.most == 1


def _limits_after(emulator: Any, engine_box: list[Any], arm: Any) -> Any:
    """A progress callback arming ``arm(emulator)`` after 300 items, recording the limit."""
    seen: dict[str, Any] = {"before": 0, "after": []}

    def progress(step: SyncProgress) -> None:
        limit = engine_box[0].in_flight if engine_box else None
        if step.phase != "pull" or limit is None:
            return
        if step.done < 300:
            seen["before"] = limit.limit
        elif not seen["after"]:
            arm(emulator)
            seen["after"].append(limit.limit)
        else:
            seen["after"].append(limit.limit)

    return progress, seen


@pytest.mark.parametrize(
    "arm",
    [
        pytest.param(
            lambda emulator: emulator.faults.latency(0.25, count=10),
            marks=pytest.mark.slow,
            id="slower",
        ),
        pytest.param(
            lambda emulator: emulator.faults.next_status(429, 2, retry_after=0, paths=["/search"]),
            id="429",
        ),
        pytest.param(
            lambda emulator: emulator.faults.next_status(503, 2, paths=["/search"]), id="503"
        ),
    ],
)
def test_fewer_requests_go_out_when_the_server_slows_down_or_refuses(
    arm: Any, library: dict[str, Any], one_profile_emulator: Any, harness_factory: Any
) -> None:
    emulator = one_profile_emulator(library, latency_ms=LATENCY_MS)
    harness = harness_factory(
        emulator.base_url, TEST_API_KEY, page_size=PAGE_SIZE, client_retries=3
    )
    harness.new_engine().run(full=True)  # the server's paging is known: no probes below
    box: list[Any] = []
    progress, seen = _limits_after(emulator, box, arm)
    engine = harness.new_engine()
    box.append(engine)
    report = engine.run(full=True, progress=progress)
    assert report.outcome is SyncOutcome.OK, report.error
    assert set(harness.reader.all_ids()) == library_ids(library)
    assert harness.reader.stats().entities == len(library["results"])
    assert seen["before"] > 2
    # The limit went down after the fault (it may have grown a little first: requests sent
    # before the fault was armed still answered at the old pace).
    after = seen["after"]
    assert any(later < earlier for earlier, later in pairwise(after)), after
    assert engine.in_flight.slowdowns + engine.in_flight.pushbacks >= 1
