"""The shortcuts taken while preparing sync pages give exactly what the general code gives.

Each shortcut skips work for the common case (a canonical address, a plain title, a shallow
rich-text document, a save without rich text); these tests compare it with the general path
on generated input, so a shortcut that starts to disagree fails here, not in the index.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from hypothesis import given, settings
from hypothesis import strategies as st

from memex_desktop.api import content
from memex_desktop.api.plain_text import is_plain_line, plain_excerpt
from memex_desktop.store import extract
from memex_desktop.store.urls import host_and_path, normalize_url, parse_and_normalize

_SCHEMES = st.sampled_from(["https://", "https://", "http://", "HTTPS://", "ftp://", "https:/"])
_HOSTS = st.sampled_from(
    ["www.example.com", "example.com", "www.www.a.example", "www.com"]
) | st.builds(
    "".join,
    st.lists(
        st.sampled_from(
            [
                "www.",
                "WWW.",
                "sub.",
                "xn--bcher-kva.",
                "1.2.3.",
                "example",
                ".com",
                "com",
                "-x",
                "a.b",
                "www",
                ".",
                "é",
            ]
        ),
        min_size=1,
        max_size=4,
    ),
)
_PORTS = st.sampled_from(["", "", ":443", ":80", ":8080", ":"])
_PATHS = st.builds(
    "".join,
    st.lists(
        st.sampled_from(
            ["/", "//", "a", "B", "_c~d", "%20", ".", "..", ":@", "(x)", "+", "é", "\\"]
        ),
        max_size=5,
    ),
)
_QUERIES = st.sampled_from(
    ["", "?a=b", "?a=b&c=d", "?utm_source=x", "?a=", "?fbclid=1", "?a=b&", "?", "?x=1#f",
     "?a=b/c", "#top", "?Gclid=2", "?q=a+b"]
)  # fmt: skip
_URLS = st.builds(lambda *parts: "".join(parts), _SCHEMES, _HOSTS, _PORTS, _PATHS, _QUERIES)


@settings(max_examples=600, deadline=None)
@given(_URLS)
def test_normalize_url_shortcut_agrees_with_parsing(url: str) -> None:
    try:
        expected: str | None = parse_and_normalize(url)
    except ValueError:
        expected = None
    try:
        found: str | None = normalize_url(url)
    except ValueError:
        found = None
    assert found == expected


def test_www_and_trailing_slashes_are_normalized_by_the_shortcut() -> None:
    assert normalize_url("https://www.reddit.com/r/x/comments/1/t/") == (
        "https://reddit.com/r/x/comments/1/t"
    )
    assert normalize_url("https://www.www.example.com//?a=b") == "https://example.com?a=b"
    assert normalize_url("https://www.com/") == "https://www.com"


@settings(max_examples=600, deadline=None)
@given(_URLS)
def test_host_and_path_read_as_urlsplit_reads(url: str) -> None:
    try:
        parts = urlsplit(url)
        expected = (parts.hostname or "", parts.path)
    except ValueError:
        expected = ("", "")
    assert host_and_path(url) == expected


_TITLE_CHARACTERS = st.sampled_from(
    [*list("ab c\t\n#>-*+_09[]()!{}<>&;`~….:/\\é"), "\xa0", "\u2003", "\x1c", "{{", "**"]
)


@settings(max_examples=600, deadline=None)
@given(st.lists(_TITLE_CHARACTERS, max_size=14).map("".join))
def test_a_plain_line_is_its_own_plain_excerpt(text: str) -> None:
    if is_plain_line(text):
        assert plain_excerpt(text) == text


@settings(max_examples=600, deadline=None)
@given(st.lists(_TITLE_CHARACTERS, max_size=300).map("".join))
def test_title_line_is_the_plain_first_line(text: str) -> None:
    assert content.title_line(text) == plain_excerpt(content.first_line(text))


def test_a_plain_title_is_kept_and_markup_is_not() -> None:
    assert is_plain_line("Compost bins, a field guide (2024)")
    assert not is_plain_line("**Compost** bins")
    assert not is_plain_line("1. Compost")
    assert not is_plain_line("two  spaces")
    assert content.display_title({"title": "See [the guide](https://x.example)"}) == (
        "See the guide"
    )


_LEAVES = st.one_of(
    st.sampled_from(["x", " y\n", "s"]),
    st.none(),
    st.integers(0, 3),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["text", "hardBreak", "hard_break"])},
        optional={"text": st.sampled_from(["a", "b c", "", 5])},
    ),
)


def _node(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=4),
        st.fixed_dictionaries(
            {
                "type": st.sampled_from(
                    ["doc", "paragraph", "heading", "listItem", "text", "odd", 7, None, ["text"]]
                )
            },
            optional={
                "content": st.one_of(st.lists(children, max_size=4), st.just("words")),
                "text": st.just("t"),
            },
        ),
    )


_DOCUMENTS = st.recursive(_LEAVES, _node, max_leaves=40)


def _deep_text(doc: Any) -> str:
    parts: list[str] = []
    content._add_rich_text_deep(doc, parts)
    return "".join(parts).strip()


@settings(max_examples=600, deadline=None)
@given(_DOCUMENTS)
def test_rich_text_recursion_reads_as_the_stack_walk(doc: Any) -> None:
    assert content.rich_text(doc) == _deep_text(doc)


def test_rich_text_past_the_recursion_depth_reads_the_same() -> None:
    doc: Any = {"type": "text", "text": "end"}
    for level in range(3000):
        doc = {"type": "paragraph" if level % 2 else "listItem", "content": [doc, "s"]}
    assert content.rich_text(doc) == _deep_text(doc)
    assert content.rich_text(doc).startswith("end")


def test_a_save_without_rich_text_still_cites_through_its_fields() -> None:
    note = {
        "id": "n1",
        "type": "annotation",
        "text": "see {{content:t1}}",
        "content": {
            "type": "doc",
            "content": [{"type": "memex-reference", "attrs": {"content_id": "t2"}}],
        },
    }
    _parent, mentions = extract.own_references(note, json.dumps(note))
    assert ("t2", None) in mentions
    chat = {"id": "c1", "type": "chatThread", "summary": "as {{content:t3}} says"}
    assert ("t3", None) in extract.own_references(chat, json.dumps(chat))[1]
    page = {"id": "w1", "type": "web", "full_text": 'a -reference" {{content:t4}}'}
    assert extract.own_references(page, json.dumps(page))[1] == []
