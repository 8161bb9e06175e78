"""ChangeSet: merging what many writes touched."""

from __future__ import annotations

import pytest

from memex_desktop.store import ChangeSet, rows


def test_merge_equals_pairwise_union() -> None:
    parts = [
        ChangeSet(entity_ids=frozenset({"a", "b"}), tag_ids=frozenset({"t1"})),
        ChangeSet(entity_ids=frozenset({"b", "c"}), deleted_ids=frozenset({"d"})),
        ChangeSet(view_ids=frozenset({"v"}), feed_ids=frozenset({"f"}), edges_changed=True),
        ChangeSet.empty(),
    ]
    pairwise = ChangeSet.empty()
    for part in parts:
        pairwise |= part
    assert ChangeSet.merge(parts) == pairwise
    assert ChangeSet.merge(parts).entity_ids == {"a", "b", "c"}
    assert ChangeSet.merge(parts).edges_changed


def test_merge_of_nothing_is_empty() -> None:
    assert ChangeSet.merge([]) == ChangeSet.empty()
    assert not ChangeSet.merge([ChangeSet.empty(), ChangeSet.empty()])


def test_past_the_listed_changes_a_change_set_counts_and_means_every_entity(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(rows, "LISTED_CHANGES", 5)
    pages = [ChangeSet(entity_ids=frozenset({f"p{n}-a", f"p{n}-b"})) for n in range(4)]
    pages.append(ChangeSet(deleted_ids=frozenset({"gone"}), tag_ids=frozenset({"t"})))
    merged = ChangeSet.merge(pages)
    assert len(merged.entity_ids | merged.deleted_ids) == 5
    assert merged.unlisted_changes == 4
    assert merged.changed_count == 9
    assert merged.tag_ids == {"t"}  # only entity ids are bounded
    assert merged.every_entity
    assert merged.entities_changed
    assert merged.touches({"never-written"})  # it may have changed: refresh what is shown
    # Merging more keeps the count, and the same ids again are not counted again.
    again = merged | ChangeSet(entity_ids=frozenset(merged.entity_ids))
    assert again.unlisted_changes == 4


def test_a_listed_change_set_touches_only_its_ids() -> None:
    changes = ChangeSet(entity_ids=frozenset({"a"}), deleted_ids=frozenset({"d"}))
    assert changes.touches({"a", "x"})
    assert changes.touches({"d"})
    assert not changes.touches({"x"})
    assert not changes.every_entity
    assert changes.changed_count == 2
    assert not ChangeSet(edges_changed=True).entities_changed
    assert ChangeSet(edges_changed=True)
    assert ChangeSet(unlisted_changes=3)
