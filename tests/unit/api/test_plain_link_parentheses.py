"""A link's address may hold parentheses, as CommonMark allows (one balanced pair deep): the
words of "[Foo](https://en.wikipedia.org/wiki/Foo_(bar))" are "Foo", with no stray ")"."""

from __future__ import annotations

import pytest

from memex_desktop.api.plain_text import Run, inline_runs, plain_excerpt, plain_text

WIKI = "https://en.wikipedia.org/wiki/Foo_(bar)"


@pytest.mark.parametrize(
    ("raw", "plain"),
    [
        (f"see [Foo]({WIKI}) now", "see Foo now"),
        (f"see ![a chart]({WIKI}) now", "see a chart now"),
        (f'see [Foo]({WIKI} "title") now', "see Foo now"),
        ("see [Foo](https://a.example/x(y)z(w)) now", "see Foo now"),
        ("an (aside [Foo](https://a.example/x) here)", "an (aside Foo here)"),
    ],
)
def test_a_link_whose_address_has_parentheses_reads_as_its_words(raw: str, plain: str) -> None:
    assert plain_text(raw) == plain


def test_the_formatted_words_link_to_the_whole_address() -> None:
    assert inline_runs(f"see [Foo]({WIKI}) now") == [
        Run("see "),
        Run("Foo", (), WIKI),
        Run(" now"),
    ]


def test_a_snippet_starting_inside_such_a_link_shows_no_syntax() -> None:
    assert plain_excerpt(f"…oo]({WIKI}) and more…") == "…and more…"
    assert plain_excerpt("words before [Foo](https://en.wikipedia.org/wiki/Foo_(b…") == (
        "words before Foo…"
    )
