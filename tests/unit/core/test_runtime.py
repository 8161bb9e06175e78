"""Garbage-collector settings of the app."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from memex_desktop.runtime import GC_THRESHOLDS, settle_garbage_collector


@pytest.fixture
def restored_gc() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


@pytest.mark.usefixtures("restored_gc")
def test_start_up_objects_are_frozen_and_collections_rarer() -> None:
    kept = [object() for _ in range(10)]  # alive before settling: frozen with the rest
    settle_garbage_collector()
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == GC_THRESHOLDS
    assert GC_THRESHOLDS[0] > 700  # CPython's default
    assert kept
