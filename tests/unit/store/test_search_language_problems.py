"""A query with several parts that mean nothing names each of them in one message (the first
few, then how many more), in the order typed: it named the first alone, so fixing it was the
only way to learn of the next (``type:gizmo after:2024-13 compost`` never named the date)."""

from __future__ import annotations

import pytest

from memex_desktop.errors import user_message
from memex_desktop.store.search_language import (
    NAMED_PROBLEMS,
    TYPE_NAMES,
    SearchLanguageError,
    parse_query,
)

DATE_WORDS = '"after:2024-13" is not a date: write after:2024-03-15 or after:2024-03.'
TYPES = ", ".join(TYPE_NAMES)


def _words(query: str) -> str:
    with pytest.raises(SearchLanguageError) as raised:
        parse_query(query)
    return user_message(raised.value).text


def test_each_problem_is_named_in_the_order_typed() -> None:
    assert _words("type:gizmo after:2024-13 compost") == (
        f'There is no type "gizmo". Types: {TYPES}. {DATE_WORDS}'
    )
    assert _words("after:2024-13 type:gizmo compost") == (
        f'{DATE_WORDS} There is no type "gizmo". Types: {TYPES}.'
    )


def test_a_single_problem_is_named_as_before() -> None:
    assert _words("after:2024-13 compost") == DATE_WORDS
    assert _words("type:gizmo") == f'There is no type "gizmo". Types: {TYPES}.'


def test_unknown_types_are_named_together_with_the_types_there_are_once() -> None:
    words = _words("type:gizmo compost -type:widget type:gizmo")
    assert words == f'There are no types "gizmo" or "widget". Types: {TYPES}.'


def test_past_the_named_few_the_rest_are_counted() -> None:
    query = "type:gizmo after:2024-13 before:99 is:new -after:2024"
    words = _words(query)
    assert NAMED_PROBLEMS == 3
    assert words.startswith(f'There is no type "gizmo". Types: {TYPES}. {DATE_WORDS}')
    assert '"before:99" is not a date' in words
    assert "is:new" not in words
    assert words.endswith(" And 2 more problems.")
    assert _words("type:gizmo after:2024-13 before:99 is:new").endswith(" And 1 more problem.")


def test_a_refused_or_is_named_with_the_other_problems() -> None:
    words = _words("tag:a OR type:web after:2024-13")
    assert words.startswith("OR cannot join a tag: filter and a type: filter")
    assert words.endswith(DATE_WORDS)
