"""ChangeSet: merging what many writes touched."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def test_an_entity_written_again_past_the_listed_ones_counts_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A sync writes an item a note names with the note's page, then again with its own.
    monkeypatch.setattr(rows, "LISTED_CHANGES", 2)
    pages = [
        ChangeSet(entity_ids=frozenset({"a", "b", "c"})),
        ChangeSet(entity_ids=frozenset({"c", "d"})),
        ChangeSet(deleted_ids=frozenset({"d", "a"})),
    ]
    merged = ChangeSet.merge(pages)
    assert merged.changed_count == 4
    assert merged.unlisted_changes == 2
    other = ChangeSet.merge(
        [ChangeSet(entity_ids=frozenset({"x", "y"})), ChangeSet(entity_ids=frozenset("acd"))]
    )
    assert other.changed_count == 5
    # Merged again, as the passes of a sync are: an entity unlisted in both, or listed in
    # one and unlisted in the other, still counts once.
    assert (merged | other).changed_count == (other | merged).changed_count == 6
    total = ChangeSet.empty()
    for part in [*pages, other, merged]:
        total |= part
    assert total.changed_count == 6
    # A change set made with a count alone adds that count.
    assert (merged | ChangeSet(unlisted_changes=3)).changed_count == 7


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(
        st.tuples(
            st.frozensets(st.integers(0, 400), max_size=120),
            st.frozensets(st.integers(0, 400), max_size=5),
        ),
        max_size=12,
    ),
    listed=st.integers(0, 30),
    run=st.integers(1, 50),
    split=st.integers(0, 12),
)
def test_merged_change_sets_count_each_entity_once(
    parts: list[tuple[frozenset[int], frozenset[int]]], listed: int, run: int, split: int
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rows, "LISTED_CHANGES", listed)
        patch.setattr(rows, "HASH_RUN", run)
        sets = [
            ChangeSet(
                entity_ids=frozenset(f"e{n}" for n in changed),
                deleted_ids=frozenset(f"e{n}" for n in deleted),
            )
            for changed, deleted in parts
        ]
        everything = {n for changed, deleted in parts for n in changed | deleted}
        # Merged at once, in two halves merged again, and one by one.
        halves = ChangeSet.merge(sets[:split]) | ChangeSet.merge(sets[split:])
        one_by_one = ChangeSet.empty()
        for part in sets:
            one_by_one |= part
        for merged in (ChangeSet.merge(sets), halves, one_by_one):
            assert merged.changed_count == len(everything)
            assert len(merged.entity_ids | merged.deleted_ids) <= listed
