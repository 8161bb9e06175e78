"""The render steps written for speed give exactly what their plain spelling gives.

Each test keeps the plain spelling of one step (regular expressions over the whole text, every
cleaning pass with the attribute filter) as the reference and compares it with the fast one
on generated input.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from memex_desktop.render import sanitize, text

_BULLET_GAP_RE = re.compile(r"(?m)^( *(?:-|\d+\.)) *\n+")
_BLANK_LINES_RE = re.compile(r"\n{3,}")


def _tidy_by_regex(source: str) -> str:
    """The text version's last step as three whole-text passes."""
    source = _BULLET_GAP_RE.sub(r"\1 ", source)
    source = "\n".join(line.rstrip() for line in source.split("\n"))
    return _BLANK_LINES_RE.sub("\n\n", source).strip("\n")


# Lines of the kinds the step treats differently: list markers alone, markers with text,
# blank and space-only lines, sentences ending in "." or "-", tabs and non-breaking spaces.
_LINE = st.sampled_from(
    ["", "", " ", "  ", "-", "- ", "-  ", "  - ", "1.", "12. ", " 3.  ", "-\t", "1.x", "a.", "b-"]
) | st.text(alphabet=" -.1a\t\u00a0", max_size=6)


@settings(max_examples=3000, deadline=None)
@given(st.lists(_LINE, max_size=14))
def test_tidying_the_text_version_matches_the_regex_spelling(lines: list[str]) -> None:
    source = "\n".join(lines)
    assert text._tidy(source) == _tidy_by_regex(source)


_TAG = st.sampled_from(["a", "p", "table", "tr", "td", "div", "span", "img", "li", "svg", "pre"])
_ATTRIBUTE = st.sampled_from(["id", "name", "href", "src", "class", "alt", "onclick"])
_VALUE = st.sampled_from(
    ["#x", "#", "report#part", "https://example.org/report#z", "/relative#q", "figure", "x y"]
)
_PIECE = (
    st.builds(
        lambda tag, attributes: f"<{tag} " + " ".join(f'{a}="{v}"' for a, v in attributes) + ">",
        _TAG,
        st.lists(st.tuples(_ATTRIBUTE, _VALUE), max_size=3),
    )
    | st.builds(lambda tag: f"</{tag}>", _TAG)
    | st.sampled_from(["text", " & ", "<", ">", "line\n"])
)


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(_PIECE, max_size=30),
    st.sampled_from([None, "https://example.org/report"]),
    st.sampled_from(["page", "markdown", "app"]),
)
def test_later_cleaning_passes_need_no_attribute_filter(
    pieces: list[str], base_url: str | None, markup: sanitize.Markup
) -> None:
    """The filter keeps every value it returns, so passes after the first can leave it out."""
    first_pass, later_passes = sanitize._cleaners(sanitize.usable_base_url(base_url), markup)
    source = sanitize.repaired("".join(pieces))
    assert sanitize._stable_clean(first_pass, later_passes, source) == sanitize._stable_clean(
        first_pass, first_pass, source
    )
