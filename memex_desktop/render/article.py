"""The article inside a saved web page: its main text without navigation, sidebars, footers
and permalink marks, found by readability-lxml (the method of Mozilla's Readability).

Readability scores the page's blocks and keeps the best one with the siblings that belong to
it; when the best is one of several sections of a chapter, or no block at all, the block
around it is taken instead. Readability's last step, a clean-up that drops whole sections it
judges thin (a section of short code examples, say), is left out: what it picked is taken as
the page wrote it, less its permalink marks (``¶`` links to the heading they sit in), and
cleaned by the reader's sanitiser like any page. When the pick holds less than half of the
page's prose (words outside links), it is not trusted; when it holds nearly all of the page,
nothing is left out. Either way the whole page is shown.
"""

from __future__ import annotations

import logging
import re
from itertools import chain
from typing import Any

import lxml.etree
import lxml.html
from readability import Document
from readability.readability import Unparseable

from memex_desktop.render.sanitize import repaired

log = logging.getLogger(__name__)

# Beyond this the scoring takes seconds; such pages (indexes, whole books) are shown whole.
ARTICLE_MAX_CHARS = 1_000_000
# The article must keep at least this share of the words the page has outside links.
MIN_PROSE_SHARE = 0.5
# An article with this share of all the page's words is the whole page: nothing is left out.
WHOLE_PAGE_SHARE = 0.97
PERMALINK_MARKS = frozenset({"¶", "#", "§", "🔗", "link"})
# lxml refuses text that starts with one (the page is text already, decoded by the server).
_XML_DECLARATION_RE = re.compile(r"\A\s*<\?xml[^>]*>")


# Readability may pick one long paragraph, or an unknown element, that holds the rest of a
# page whose markup never closes it; the article is then the block around it, headings and all.
_BLOCKS = frozenset({"div", "article", "section", "main", "td"})


class _Extraction(Document):  # type: ignore[misc]
    """Readability's pick, serialised as it stands (no clean-up of its content)."""

    def select_best_candidate(self, candidates: Any) -> Any:
        """Readability's best block, or the block around it: when the best is no block, or
        is one of several sections of the same kind (a chapter's sections, with the chapter's
        title, introduction and contents around them)."""
        best = super().select_best_candidate(candidates)
        if best is None:
            return None
        element = best["elem"]
        while element.tag not in _BLOCKS and _inner(element.getparent()):
            element = element.getparent()
        parent = element.getparent()
        if _inner(parent) and _has_peer_sections(element, candidates, best["content_score"]):
            element = parent
        if element is best["elem"]:
            return best
        return candidates.get(element, {"content_score": best["content_score"], "elem": element})

    def sanitize(self, node: Any, candidates: Any, keep_all_images: bool = False) -> str:
        """The picked element without permalink marks, as HTML."""
        del candidates, keep_all_images
        for link in list(node.iter("a")):
            if _is_permalink(link):
                link.drop_tree()
        return str(lxml.html.tostring(node, encoding="unicode", method="html"))


def _inner(element: Any) -> bool:
    """Whether ``element`` is an element inside the page's body (not the body itself)."""
    return element is not None and element.tag not in ("body", "html")


def _has_peer_sections(element: Any, candidates: Any, score: float) -> bool:
    """Whether ``element`` has a sibling of its tag and class that scores as content too."""
    threshold = max(10.0, score * 0.2)
    siblings = chain(element.itersiblings(), element.itersiblings(preceding=True))
    return any(
        sibling.tag == element.tag
        and sibling.get("class") == element.get("class")
        and candidates.get(sibling, {}).get("content_score", 0) >= threshold
        for sibling in siblings
    )


def _is_permalink(link: Any) -> bool:
    """Whether a link is a permalink mark: a same-page link showing only ``¶`` or the like."""
    href = (link.get("href") or "").strip()
    text = (link.text_content() or "").strip()
    return href.startswith("#") and (text in PERMALINK_MARKS or "headerlink" in link.classes)


def _word_counts(markup: str) -> tuple[int, int]:
    """How many words a piece of HTML shows, in all and outside links (no scripts, styles)."""
    try:
        root = lxml.html.fromstring(markup)
    except (lxml.etree.ParserError, ValueError):
        return 0, 0
    for element in list(root.iter("script", "style", "head", "title")):
        element.drop_tree()
    words = len(root.text_content().split())
    for element in list(root.iter("a")):
        element.drop_tree()
    return words, len(root.text_content().split())


def article_html(page: str) -> str | None:
    """The article of a whole web page as (unsanitised) HTML, or None when there is no
    trustworthy one (too big, unparseable, holding too little of the page's prose) or it
    is the whole page anyway.

    The page goes through the sanitiser's repair pass first, so that markup lxml would read
    differently (a tag that never ends) is text, as the reader shows it.
    """
    if not page.strip() or len(page) > ARTICLE_MAX_CHARS:
        return None
    source = repaired(_XML_DECLARATION_RE.sub("", page))
    try:
        article = str(_Extraction(source).summary(html_partial=True))
    except (Unparseable, lxml.etree.ParserError, ValueError) as exc:
        log.debug("no article found: %s", exc)
        return None
    page_words, page_prose = _word_counts(source)
    article_words, article_prose = _word_counts(article)
    if (
        article_prose < MIN_PROSE_SHARE * page_prose
        or article_words >= WHOLE_PAGE_SHARE * page_words
    ):
        return None
    return article
