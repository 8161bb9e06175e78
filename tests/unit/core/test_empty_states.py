"""Every empty list says why and offers the fix."""

from __future__ import annotations

import pytest

from memex_desktop.empty_states import (
    CLEAR_ALL,
    CLEAR_SEARCH,
    LIST_FEED,
    SIGN_IN,
    SYNC,
    EmptyState,
    ListContext,
    empty_state,
)


@pytest.mark.parametrize(
    ("context", "title", "action", "label"),
    [
        (
            ListContext(query="xyzzy"),
            "No items match \u201cxyzzy\u201d",
            CLEAR_SEARCH,
            "Clear search",
        ),
        (
            ListContext(query="xyzzy", scope="deleted", scope_label="Deleted upstream"),
            "No items match \u201cxyzzy\u201d",
            CLEAR_SEARCH,
            "Clear search",
        ),
        (
            ListContext(filters=("Type: Tweet", "Tag: compost")),
            "No items match these filters",
            CLEAR_ALL,
            "Clear all",
        ),
        (
            ListContext(query="worm", filters=("Past week",)),
            "No items match these filters",
            CLEAR_ALL,
            "Clear all",
        ),
        (ListContext(scope="deleted"), "Nothing was deleted upstream", "", ""),
        (ListContext(scope="feed"), "This feed has no items on Memex", LIST_FEED, "List again"),
        (
            ListContext(scope="feed", offline=True),
            "This feed had no items when Memex last listed it",
            LIST_FEED,
            "Try again",
        ),
        (
            ListContext(scope="feed", feed_listed=False),
            "This feed has not been listed yet",
            LIST_FEED,
            "Ask again",
        ),
        (
            ListContext(scope="feed", feed_listed=False, offline=True),
            "This feed has not been listed yet",
            LIST_FEED,
            "Try again",
        ),
        # Nothing of a feed never listed is cached: the words are not why it is empty.
        (
            ListContext(
                scope="feed", scope_label="Kung Tre", query="zul", feed_listed=False, offline=True
            ),
            "This feed has not been listed yet",
            LIST_FEED,
            "Try again",
        ),
        (
            ListContext(scope="feed", feed_listed=False, signed_in=False),
            "This feed has not been listed yet",
            SIGN_IN,
            "Sign in…",
        ),
        (ListContext(scope="view"), "This saved view lists nothing yet", SYNC, "Sync now"),
        (ListContext(library_empty=True, syncing=True), "Syncing your library…", "", ""),
        (ListContext(library_empty=True, signed_in=False), "Sign in to sync", SIGN_IN, "Sign in…"),
        (
            ListContext(library_empty=True, offline=True),
            "Memex cannot be reached",
            SYNC,
            "Try again",
        ),
        (ListContext(library_empty=True), "Your library is empty", "", ""),
        (ListContext(), "Nothing to show here", "", ""),
    ],
)
def test_each_empty_list_says_why_and_offers_the_fix(
    context: ListContext, title: str, action: str, label: str
) -> None:
    state = empty_state(context)
    assert isinstance(state, EmptyState)
    assert (state.title, state.action, state.action_label) == (title, action, label)
    assert state.explanation.endswith(".")


def test_the_search_and_the_filters_are_named_together_in_the_explanation() -> None:
    # A type typed in the search and another picked in the sidebar leave nothing together.
    state = empty_state(ListContext(query="type:reddit", filters=("Library: PDF",)))
    assert state.explanation.startswith(
        "No item fits both \u201ctype:reddit\u201d and Library: PDF. Remove one above"
    )
    state = empty_state(ListContext(query="worm", filters=("Type: Tweet", "Tag: compost")))
    assert state.explanation.startswith(
        "No item fits all of \u201cworm\u201d, Type: Tweet and Tag: compost."
    )
    state = empty_state(ListContext(filters=("Type: Tweet",)))
    assert state.explanation.startswith("No item fits Type: Tweet.")


def test_offline_searches_say_only_the_cache_was_searched() -> None:
    assert "cannot be reached" in empty_state(ListContext(query="x", offline=True)).explanation
    assert "cannot be reached" not in empty_state(ListContext(query="x")).explanation


def test_a_search_within_a_shelf_names_the_shelf() -> None:
    state = empty_state(ListContext(query="x", scope="feed", scope_label="Urban Plots"))
    assert "in Urban Plots" in state.explanation


def test_a_list_the_cache_cannot_fill_says_so_before_anything_else() -> None:
    words = "The local library is damaged. Delete cache.db and sync again."
    for context in (
        ListContext(unreadable=words),
        ListContext(unreadable=words, query="worm", filters=("Past week",)),
        ListContext(unreadable=words, library_empty=True, syncing=True),
        ListContext(unreadable=words, scope="deleted"),
    ):
        state = empty_state(context)
        assert state.title == "Your library cannot be read"
        assert state.explanation == words


def test_a_query_that_means_nothing_says_why_before_anything_else() -> None:
    state = empty_state(
        ListContext(query="type:gizmo x", query_problem="There is no type \u201cgizmo\u201d.")
    )
    assert state.title == "This search cannot run"
    assert state.explanation == "There is no type \u201cgizmo\u201d."
    assert state.action == CLEAR_SEARCH


def test_tags_no_item_has_are_named() -> None:
    one = empty_state(ListContext(query="tag:nope x", unknown_tags=("nope",)))
    assert one.title == "No tag called \u201cnope\u201d"
    assert "that name" in one.explanation
    two = empty_state(ListContext(query="tag:a tag:b", unknown_tags=("a", "b")))
    assert two.title == "No tags called \u201ca\u201d, \u201cb\u201d"
    assert "those names" in two.explanation


def test_a_search_with_filters_or_exclusions_does_not_ask_for_fewer_words() -> None:
    narrowed = empty_state(ListContext(query="tag:zul type:tweet -fox", query_narrows=True))
    assert "fewer words" not in narrowed.explanation
    assert "filters and exclusions" in narrowed.explanation
    plain = empty_state(ListContext(query="fox grir"))
    assert "fewer words" in plain.explanation


def test_a_long_query_is_quoted_short_and_the_words_do_not_grow_with_it() -> None:
    short = empty_state(ListContext(query="wvqxqzz"))
    for query in ("wvqxqzz " * 1250, "wvqxqzz\n" * 600_000):
        state = empty_state(ListContext(query=query))
        assert state.title.startswith("No items match \u201cwvqxqzz wvqxqzz")
        assert state.title.endswith("\u2026\u201d")
        assert len(state.title) <= len(short.title) + 40  # a few dozen characters
        assert state.explanation == short.explanation
        filtered = empty_state(ListContext(query=query, filters=("Saved: past week",)))
        assert len(filtered.explanation) < 200


def test_a_query_problem_is_why_the_list_is_empty_before_the_cache_or_the_library() -> None:
    for context in (
        ListContext(query="((", query_problem="No words.", unreadable="Damaged."),
        ListContext(query="((", query_problem="No words.", library_empty=True, syncing=True),
    ):
        state = empty_state(context)
        assert (state.title, state.explanation) == ("This search cannot run", "No words.")
