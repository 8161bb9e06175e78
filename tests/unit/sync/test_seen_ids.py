"""The ids a pass has seen, held as hashes in sorted runs."""

from __future__ import annotations

import pytest

from memex_desktop.sync import seen_ids
from memex_desktop.sync.seen_ids import SeenIds


def test_seen_ids_answer_like_a_set_across_runs_and_late_adds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(seen_ids, "SEEN_RUN", 7)  # many runs, merged at the first look-up
    seen = SeenIds()
    added = [f"item-{n}" for n in range(0, 200, 2)]
    seen.update(added)
    assert all(entity_id in seen for entity_id in added)
    assert not any(f"item-{n}" in seen for n in range(1, 200, 2))
    # Adds after a look-up (the highlights read after the listing) are found too.
    seen.add("late")
    assert "late" in seen
    seen.update(f"later-{n}" for n in range(20))
    assert all(f"later-{n}" in seen for n in range(20))
    assert "item-198" in seen
    assert "never" not in seen
    assert 17 not in seen  # not an id at all


def test_an_id_seen_twice_is_still_one_id() -> None:
    seen = SeenIds()
    seen.update(["a", "a", "b"])
    assert {"a", "b"} == {entity_id for entity_id in "abc" if entity_id in seen}
