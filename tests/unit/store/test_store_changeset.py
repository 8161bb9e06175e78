"""ChangeSet: merging what many writes touched."""

from __future__ import annotations

from memex_desktop.store import ChangeSet


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
