"""A query with nothing to look for says so, and a filter without its value names what it
needs: `((`, `😀`, `"`, `-` and `type:` listed the whole library as their results. A part of a
query quoted in those words is shortened, whatever was pasted."""

from __future__ import annotations

import pytest

from memex_desktop.api import plain_text
from memex_desktop.errors import user_message
from memex_desktop.store.search_language import SearchLanguageError, parse_query


def _words(query: str) -> str:
    with pytest.raises(SearchLanguageError) as raised:
        parse_query(query)
    return user_message(raised.value).text


@pytest.mark.parametrize("query", ["\U0001f600", "((", '"', "-", "^", "#", "*", " ( ) "])
def test_a_query_of_punctuation_or_symbols_has_no_words_to_search_for(query: str) -> None:
    words = _words(query)
    assert words.startswith(f"\u201c{query.strip()}\u201d has no words to search for")
    assert "type:tweet" in words


@pytest.mark.parametrize(
    ("query", "needs"),
    [
        ("type:", "type: needs a type, e.g. type:tweet."),
        ("tag:", "tag: needs a tag name, e.g. tag:reading."),
        ('tag:""', "tag: needs a tag name, e.g. tag:reading."),
        ("site:", "site: needs a site, e.g. site:example.com."),
        ("site:///", "site: needs a site, e.g. site:example.com."),
        ("after:", "after: needs a date, e.g. after:2024-03-15."),
        ("is:", "is: needs a state: is:deleted."),
        ("-type:", "type: needs a type, e.g. type:tweet."),
        ("compost type:", "type: needs a type, e.g. type:tweet."),
    ],
)
def test_a_filter_without_its_value_names_what_it_needs(query: str, needs: str) -> None:
    assert _words(query) == needs


@pytest.mark.parametrize("query", ["", "   ", "-worm", "type:tweet", "is:deleted", "fox (("])
def test_a_query_that_asks_for_something_or_nothing_at_all_still_runs(query: str) -> None:
    parse_query(query)


@pytest.mark.parametrize(
    "query",
    [
        "(" * 10_000,
        "type:" + "x" * 10_000,
        " ".join(f"type:{'x' * 500}{n}" for n in range(60)),
        "is:" + "y" * 10_000,
        "after:" + "9" * 10_000,
    ],
)
def test_a_pasted_query_is_quoted_short(query: str) -> None:
    assert len(_words(query)) < 500


def test_shortened_keeps_one_line_of_a_few_dozen_characters() -> None:
    assert plain_text.shortened("fox  jar\nbin") == "fox jar bin"
    cut = plain_text.shortened("word " * 100)
    assert len(cut) == plain_text.QUOTED_CHARS
    assert cut.endswith("\u2026")
