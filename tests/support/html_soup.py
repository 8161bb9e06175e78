"""Hypothesis strategies of hostile and broken HTML for the render tests."""

from __future__ import annotations

from hypothesis import strategies as st

TAGS = [
    "a",
    "img",
    "p",
    "b",
    "script",
    "svg",
    "math",
    "style",
    "iframe",
    "table",
    "td",
    "ul",
    "li",
    "noscript",
    "textarea",
    "title",
    "template",
    "object",
    "form",
    "video",
    "div",
    "span",
    "pre",
    "code",
    "base",
    "meta",
    "details",
    "h1",
    "blockquote",
    "br",
]
ATTRS = [
    "href",
    "src",
    "srcset",
    "style",
    "onerror",
    "onclick",
    "class",
    "title",
    "alt",
    "background",
    "poster",
    "data",
    "action",
    "xlink:href",
    "width",
    "start",
    "id",
]
VALUES = [
    "javascript:alert(1)",
    "JaVa\tScRiPt:x",
    "https://t.example/p.gif",
    "//t.example/x",
    "/rel/x.png",
    "data:text/html,<script>x</script>",
    "mailto:a@b.example",
    "memex://entity/1",
    "notice",
    "remote-image",
    'x" onload="y',
    "&#106;avascript:x",
    "url(https://t.example/b.png)",
    "expression(alert(1))",
    "",
    "<img src=x>",
    "\x00",
]
TEXTS = [
    "hello",
    "<",
    ">",
    "&",
    "&amp;",
    "\xa0",
    '"',
    "'",
    "-->",
    "<!--",
    "]]>",
    " ",
    "\n",
    "é",
    "[x](javascript:y)",
]


@st.composite
def html_ish(draw: st.DrawFn, depth: int = 0) -> str:
    """HTML-like text from an alphabet of tags, attributes, schemes and awkward characters."""
    parts: list[str] = []
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.integers(0, 3))
        if kind == 0 or depth > 2:
            parts.append(draw(st.sampled_from(TEXTS)))
        else:
            tag = draw(st.sampled_from(TAGS))
            attrs = "".join(
                f' {draw(st.sampled_from(ATTRS))}="{draw(st.sampled_from(VALUES))}"'
                if draw(st.booleans())
                else f" {draw(st.sampled_from(ATTRS))}={draw(st.sampled_from(VALUES))}"
                for _ in range(draw(st.integers(0, 3)))
            )
            inner = draw(html_ish(depth + 1))
            close = f"</{tag}>" if draw(st.booleans()) else ""
            parts.append(f"<{tag}{attrs}>{inner}{close}")
    return "".join(parts)


# Where html5lib 1.1 is no reference: "template" (it lets "</p>" inside a template close a
# paragraph outside it, though template is a scope boundary) and "select" (it follows the old
# "in select" rules; the HTML standard and html5ever now parse a select's content like a
# body's, so "<select><noembed>" hides what follows).
SOUP_TAGS = [
    "p",
    "b",
    "a",
    "img",
    "div",
    "span",
    "table",
    "tr",
    "td",
    "li",
    "pre",
    "br",
    "h1",
    "blockquote",
    "font",
    "script",
    "style",
    "title",
    "textarea",
    "iframe",
    "noscript",
    "xmp",
    "noembed",
    "plaintext",
    "svg",
    "math",
    "g",
    "desc",
    "circle",
    "set",
    "animate",
    "root",
    "text",
    "foreignObject",
    "mi",
    "mtext",
    "annotation-xml",
    "foo",
    "foo:bar",
    "x",
    "object",
    "image",
    "http://example.com/",
]
SOUP_ATTRS = ["href", "title", "color", "encoding", "onclick", "src", "x", "=y", '"', "/"]
SOUP_VALUES = ['"v"', "'v'", "v", '"text/html"', '"x>y"', "'a\"b'", '"unclosed', "'unclosed", ""]
SOUP_TEXTS = [
    "<",
    ">",
    "&",
    "&amp",
    "&amp;",
    ";",
    '"',
    "'",
    "=",
    "/",
    " ",
    "\n",
    "</",
    "<!--",
    "-->",
    "<!",
    "<?",
    "]]>",
    "<![CDATA[",
    "<x",
    '<a title="',
]


@st.composite
def tag_soup(draw: st.DrawFn, depth: int = 0) -> str:
    """Nested, unclosed, mis-quoted and unknown tags around numbered words."""
    parts: list[str] = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.integers(0, 4))
        if kind == 0 or depth > 3:
            parts.append(f" w{draw(st.integers(0, 999))} ")
        elif kind == 1:
            parts.append(draw(st.sampled_from(SOUP_TEXTS)))
        else:
            tag = draw(st.sampled_from(SOUP_TAGS))
            attrs = "".join(
                f" {draw(st.sampled_from(SOUP_ATTRS))}"
                + (f"={draw(st.sampled_from(SOUP_VALUES))}" if draw(st.booleans()) else "")
                for _ in range(draw(st.integers(0, 2)))
            )
            end = draw(st.sampled_from([">", "/>", ">", ""]))
            inner = draw(tag_soup(depth + 1))
            close = draw(st.sampled_from([f"</{tag}>", "", f"</{tag}"]))
            parts.append(f"<{tag}{attrs}{end}{inner}{close}")
    return "".join(parts)
