"""Pasted and dropped text -> the links saved, found as chat apps find them."""

from __future__ import annotations

import pytest

from memex_desktop.api.text_links import find_links

# (name, pasted text, the links found in it)
PASTED: list[tuple[str, str, list[str]]] = [
    (
        "comma after",
        "read this: https://clip.example.com/article, it's good",
        ["https://clip.example.com/article"],
    ),
    ("in parentheses", "(https://paren.example.com/x)", ["https://paren.example.com/x"]),
    ("full stop after", "See https://a.example.com/x.", ["https://a.example.com/x"]),
    ("ellipsis after", "wait for it https://dots.example.com/x...", ["https://dots.example.com/x"]),
    ("unicode ellipsis", "hmm https://a.example.com/x…", ["https://a.example.com/x"]),
    ("question mark", "did you see https://a.example.com/x?", ["https://a.example.com/x"]),
    ("exclamation", "look https://a.example.com/x!", ["https://a.example.com/x"]),
    ("semicolon", "first https://a.example.com/x; then", ["https://a.example.com/x"]),
    ("colon", "https://a.example.com/x: a good read", ["https://a.example.com/x"]),
    ("bare www", "go to www.example.com/x now", ["https://www.example.com/x"]),
    ("bare www host only", "www.example.com.", ["https://www.example.com"]),
    ("bare www upper case", "WWW.EXAMPLE.COM/X", ["https://WWW.EXAMPLE.COM/X"]),
    ("www alone is no link", "the www. prefix", []),
    (
        "wikipedia keeps its parenthesis",
        "https://en.wikipedia.org/wiki/Foo_(bar)",
        ["https://en.wikipedia.org/wiki/Foo_(bar)"],
    ),
    (
        "wikipedia inside parentheses",
        "(see https://en.wikipedia.org/wiki/Foo_(bar)).",
        ["https://en.wikipedia.org/wiki/Foo_(bar)"],
    ),
    ("markdown link", "[the text](https://md.example.com/a)", ["https://md.example.com/a"]),
    (
        "markdown link with a url as its text",
        "[https://shown.example.com](https://target.example.com/a)",
        ["https://target.example.com/a"],
    ),
    (
        "markdown link with a title",
        '[t](https://md.example.com/a "A title")',
        ["https://md.example.com/a"],
    ),
    ("markdown link to www", "[t](www.example.com/x)", ["https://www.example.com/x"]),
    (
        "markdown link glued to the next word",
        "[t](https://md.example.com/a)and [u](<https://md.example.com/b>).",
        ["https://md.example.com/a", "https://md.example.com/b"],
    ),
    (
        "markdown link to wikipedia",
        "[Foo](https://en.wikipedia.org/wiki/Foo_(bar))",
        ["https://en.wikipedia.org/wiki/Foo_(bar)"],
    ),
    ("markdown bold", "**https://bold.example.com/x**", ["https://bold.example.com/x"]),
    ("markdown code", "`https://code.example.com/x`", ["https://code.example.com/x"]),
    ("angle brackets", "<https://angle.example.com/a>", ["https://angle.example.com/a"]),
    ("double quotes", 'he said "https://q.example.com/a"', ["https://q.example.com/a"]),
    ("single quotes", "'https://q.example.com/a'", ["https://q.example.com/a"]),
    ("curly quotes", "“https://q.example.com/a”", ["https://q.example.com/a"]),
    ("guillemets", "«https://q.example.com/a»", ["https://q.example.com/a"]),
    ("square brackets", "[https://sq.example.com/a]", ["https://sq.example.com/a"]),
    ("corner brackets", "「https://jp.example.com/x」を見て", ["https://jp.example.com/x"]),
    ("ideographic full stop", "見て https://jp.example.com/x。次へ", ["https://jp.example.com/x"]),
    (
        "ideographic comma",
        "https://jp.example.com/x、https://jp.example.com/y",
        [
            "https://jp.example.com/x",
            "https://jp.example.com/y",
        ],
    ),
    ("fullwidth parentheses", "（https://jp.example.com/x）", ["https://jp.example.com/x"]),
    (
        "katakana middle dot stays",
        "https://ja.wikipedia.org/wiki/ジョン・レノン。",
        ["https://ja.wikipedia.org/wiki/ジョン・レノン"],
    ),
    ("unicode path", "https://münchen.example/straße.", ["https://münchen.example/straße"]),
    ("ipv6 host", "at http://[2001:db8::1]:8080/x.", ["http://[2001:db8::1]:8080/x"]),
    ("ipv6 loopback", "(http://[::1]/a)", ["http://[::1]/a"]),
    ("port", "http://localhost:8000/x, then", ["http://localhost:8000/x"]),
    ("ipv4 and port", "http://127.0.0.1:5000/x.", ["http://127.0.0.1:5000/x"]),
    (
        "query with commas",
        "https://a.example.com:8443/p?a=1,2&b=3, ok",
        ["https://a.example.com:8443/p?a=1,2&b=3"],
    ),
    ("query with a semicolon", "https://a.example.com/a?q=x;y", ["https://a.example.com/a?q=x;y"]),
    ("fragment", "https://a.example.com/path#frag.", ["https://a.example.com/path#frag"]),
    (
        "apostrophe inside",
        "https://en.wikipedia.org/wiki/O'Brien's",
        ["https://en.wikipedia.org/wiki/O'Brien's"],
    ),
    (
        "several in one text",
        "https://a.example.com/1 and https://b.example.com/2\nhttps://c.example.com/3",
        ["https://a.example.com/1", "https://b.example.com/2", "https://c.example.com/3"],
    ),
    (
        "a list glued by commas",
        "https://a.example.com/x,https://b.example.com/y;https://c.example.com/z",
        ["https://a.example.com/x", "https://b.example.com/y", "https://c.example.com/z"],
    ),
    (
        "a quoted list",
        "'https://a.example.com/x', 'https://b.example.com/y'",
        ["https://a.example.com/x", "https://b.example.com/y"],
    ),
    (
        "an archived page keeps the address inside it",
        "https://web.archive.org/web/2020/https://example.com/",
        ["https://web.archive.org/web/2020/https://example.com/"],
    ),
    (
        "the same link twice",
        "https://a.example.com/x https://a.example.com/x.",
        ["https://a.example.com/x"],
    ),
    ("an e-mail address is no link", "mail me at bob@example.com.", []),
    ("an e-mail address at www is no link", "bob@www.example.com", []),
    ("a bare domain is no link", "see example.com or notes.md", []),
    ("a scheme alone is no link", "type https:// first", []),
    (
        "a label with a colon is no link",
        "note:important https://e.example.com",
        ["https://e.example.com"],
    ),
    ("glued to a word after a dot", "e.g.https://a.example.com/x", ["https://a.example.com/x"]),
    # Found, so that saving refuses them with a reason instead of saying nothing.
    ("javascript is found to be refused", "javascript:alert(1)", ["javascript:alert(1)"]),
    ("ftp is found to be refused", "ftp://files.example.com/a.", ["ftp://files.example.com/a"]),
    ("mailto is found to be refused", "mailto:bob@example.com", ["mailto:bob@example.com"]),
]


@pytest.mark.parametrize(("text", "links"), [c[1:] for c in PASTED], ids=[c[0] for c in PASTED])
def test_links_found_in_pasted_text(text: str, links: list[str]) -> None:
    assert find_links(text) == links
