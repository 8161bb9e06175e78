"""Real documentation pages (tests/fixtures/pages) render as their authors meant them.

Markdown is checked against markdown-it-py, an independent CommonMark implementation: the same
code blocks, nested lists, tables, headings and links. HTML keeps every code block and nested
list, none of the page's classes, its anchors (namespaced) and its drawings' text.
"""

from __future__ import annotations

import gzip
import re
from collections import Counter
from pathlib import Path

import lxml.html
import pytest
from markdown_it import MarkdownIt

from memex_desktop.api.models import parse_content_entity
from memex_desktop.render import RenderContext, render_entity, sanitize_html
from memex_desktop.render.article import article_html
from memex_desktop.render.markdown_html import markdown_to_safe_html
from memex_desktop.render.sanitize import ANCHOR_PREFIX, PLACEHOLDER_CLASSES
from memex_desktop.render.text import html_to_text

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages"
MARKDOWN = sorted((PAGES / "markdown").glob("*.md"))
HTML = sorted((PAGES / "html").glob("*.html*"))


def _read(path: Path) -> str:
    """A corpus file's text (the largest page is stored compressed)."""
    if path.suffix == ".gz":
        return gzip.decompress(path.read_bytes()).decode("utf-8")
    return path.read_text(encoding="utf-8")


def _page_url(path: Path) -> str:
    """Where the page was published, so its own links resolve as on the web."""
    return f"https://docs.example/{path.name.removesuffix('.gz')}"


def _structure(markup: str) -> Counter[str]:
    """What a reader must see of a document: code blocks, nested lists, tables, headings,
    links, and the text of every code block."""
    root = lxml.html.fragment_fromstring(markup, create_parent="div")
    found: Counter[str] = Counter()
    for pre in root.iter("pre"):
        found["pre"] += 1
        found["code: " + " ".join(pre.text_content().split())] += 1
    for item in root.iter("li"):
        if any(child.tag in ("ul", "ol") for child in item.iter() if child is not item):
            found["nested list"] += 1
    for tag in ("table", "h1", "h2", "h3", "h4", "blockquote"):
        found[tag] = sum(1 for _ in root.iter(tag))
    found["link"] = sum(1 for link in root.iter("a") if link.get("href"))
    return found


_COMMONMARK = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda path: path.name)
def test_markdown_renders_as_an_independent_commonmark_renderer_does(path: Path) -> None:
    text = _read(path)
    ours, _ = markdown_to_safe_html(text, allow_remote=False)
    theirs, _ = sanitize_html(_COMMONMARK.render(text), allow_remote=False, converted=True)
    # markdown-it-py links no bare addresses (GitHub's autolink extension does).
    expected, got = _structure(theirs), _structure(ours)
    expected.pop("link")
    got.pop("link")
    assert got == expected


def test_the_corpus_holds_every_case_the_reader_must_get_right() -> None:
    """Code in lists and quotes, nested lists, tables, C preprocessor lines, TOCs, SVG."""
    markdown = "\n".join(_read(path) for path in MARKDOWN)
    assert re.search(r"(?m)^ {4,}```", markdown)  # code in a nested list item
    assert re.search(r"(?m)^> {5}\S", markdown)  # code in a quote
    assert re.search(r"(?m)^  [-*] ", markdown)  # a list nested by two spaces
    assert re.search(r"(?m)^\|.*\|$", markdown)  # a table
    assert re.search(r"(?m)^#define ", markdown)  # inside code: no heading
    html = "\n".join(_read(path) for path in HTML)
    assert html.count("<svg") >= 5
    assert 'class="toc"' in html
    assert 'role="navigation"' in html


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda path: path.name)
def test_no_code_line_of_markdown_becomes_a_heading(path: Path) -> None:
    safe, _ = markdown_to_safe_html(_read(path), allow_remote=False)
    headings = re.findall(r"<h[1-6][^>]*>(.*?)</h[1-6]>", safe, re.DOTALL)
    assert not [text for text in headings if re.match(r"\s*(define|include|if|endif)\b", text)]


def test_a_link_whose_text_is_in_brackets_is_a_link() -> None:
    safe, _ = markdown_to_safe_html(
        "A claim.[[1]](https://ref.example/1) More [[2]][two].\n\n[two]: https://ref.example/2",
        allow_remote=False,
    )
    assert "](" not in safe
    assert '<a href="https://ref.example/1">[1]</a>' in safe
    assert '<a href="https://ref.example/2">[2]</a>' in safe


@pytest.mark.parametrize("path", HTML, ids=lambda path: path.name)
def test_every_code_block_and_nested_list_of_a_page_survives(path: Path) -> None:
    page = _read(path)
    safe, _ = sanitize_html(page, allow_remote=False, base_url=_page_url(path))
    before, after = (
        _structure(lxml.html.tostring(lxml.html.fromstring(page.encode()), encoding="unicode")),
        _structure(safe),
    )
    for key in [key for key in before if key == "pre" or key.startswith("code: ")]:
        assert after[key] == before[key], key
    assert after["nested list"] == before["nested list"]
    assert after["table"] == before["table"]


@pytest.mark.parametrize("path", HTML, ids=lambda path: path.name)
def test_no_class_of_a_page_reaches_the_reader_stylesheet(path: Path) -> None:
    safe, _ = sanitize_html(_read(path), allow_remote=False, base_url=_page_url(path))
    classes = {name for value in re.findall(r'class="([^"]*)"', safe) for name in value.split()}
    assert classes <= PLACEHOLDER_CLASSES


def test_a_page_cannot_pass_for_the_app_notice_or_a_section_heading() -> None:
    entity = parse_content_entity(
        {
            "id": "w1",
            "type": "web",
            "title": "t",
            "html": '<p class="notice">Your session expired</p><div class="section">Body</div>',
        }
    )
    html = render_entity(entity, RenderContext(whole_page=True)).html
    assert html.count('class="notice"') == 0
    assert "<p>Your session expired</p><div>Body</div>" in html


@pytest.mark.parametrize("path", HTML, ids=lambda path: path.name)
def test_every_same_page_link_finds_its_anchor(path: Path) -> None:
    safe, _ = sanitize_html(_read(path), allow_remote=False, base_url=_page_url(path))
    ids = set(re.findall(r'\s(?:id|name)="([^"]*)"', safe))
    targets = re.findall(r'href="#([^"]*)"', safe)
    assert all(target.startswith(ANCHOR_PREFIX) for target in ids | set(targets))
    assert not [target for target in targets if target not in ids]


def test_a_table_of_contents_links_to_its_headings() -> None:
    path = PAGES / "html" / "debian-reference-ch08.html"
    address = "https://www.debian.org/doc/manuals/debian-reference/ch08.en.html"
    safe, _ = sanitize_html(_read(path), allow_remote=False, base_url=address)
    assert len(re.findall(r'href="#page-', safe)) >= 10


def test_a_drawing_shows_as_a_placeholder_with_its_words() -> None:
    path = PAGES / "html" / "sqlite-lang-droptable.html"
    safe, _ = sanitize_html(_read(path), allow_remote=False)
    assert "<svg" not in safe
    assert "<path" not in safe
    shown = " ".join(html_to_text(safe).split())
    assert "[drawing: DROP TABLE IF EXISTS schema-name . table-name ]" in shown


def _words(markup: str) -> list[str]:
    """The words a piece of sanitised HTML shows."""
    return re.findall(r"\w+", html_to_text(markup))


def test_the_article_view_keeps_the_body_and_drops_the_navigation() -> None:
    page = _read(PAGES / "html" / "python-tutorial-errors.html")
    root = lxml.html.fromstring(page.encode())
    body = root.xpath('//div[@role="main"]')[0]
    body_words = _words(
        sanitize_html(lxml.html.tostring(body, encoding="unicode"), allow_remote=False)[0]
    )
    navigation = " ".join(
        element.text_content() for element in root.xpath('//*[@role="navigation"]')
    )
    entity = parse_content_entity(
        {
            "id": "w",
            "type": "web",
            "title": "Errors",
            "url": _page_url(PAGES / "e.html"),
            "html": page,
        }
    )
    article = render_entity(entity, RenderContext())
    whole = render_entity(entity, RenderContext(whole_page=True))
    shown = Counter(_words(article.html))
    assert not Counter(word for word in body_words if word != "¶") - shown
    for phrase in ("Previous topic", "Next topic", "This Page", "Report a Bug", "Show Source"):
        assert phrase in navigation
        assert phrase not in article.text
        assert phrase in whole.text
    assert "¶" not in article.text
    assert "Show the whole page" in article.text
    assert "Show the whole page" not in whole.text


def test_a_page_whose_article_is_doubtful_is_shown_whole() -> None:
    assert article_html(_read(PAGES / "html" / "python-contents.html.gz")) is None
    assert article_html("") is None


@pytest.mark.parametrize("path", HTML, ids=lambda path: path.name)
def test_the_article_view_keeps_every_code_block(path: Path) -> None:
    page = _read(path)
    entity = parse_content_entity(
        {"id": "w", "type": "web", "title": "t", "url": _page_url(path), "html": page}
    )
    shown = render_entity(entity, RenderContext()).html
    whole = render_entity(entity, RenderContext(whole_page=True)).html
    code = [key for key in _structure(whole) if key == "pre" or key.startswith("code: ")]
    assert all(_structure(shown)[key] == _structure(whole)[key] for key in code)


def test_code_in_a_list_item_and_in_a_quote_stays_a_code_block() -> None:
    source = (
        '- build it:\n\n  ```c\n  #define FHS_CAT_ROOT "/var/cache/man"\n  ```\n\n'
        "> run it:\n>\n>     make check\n\n"
        "- [x] done\n"
    )
    safe, _ = markdown_to_safe_html(source, allow_remote=False)
    assert "<h1" not in safe
    assert '<pre><code>#define FHS_CAT_ROOT "/var/cache/man"' in safe
    assert "<blockquote>" in safe
    assert "<pre><code>make check" in safe
    assert "[x] done" in safe
