"""Markdown to safe reader HTML: raw HTML is escaped, then everything goes through nh3.

Python-Markdown does not sanitise (and ``safe_mode`` is silently ignored), so raw HTML is
turned off by deregistering its block preprocessor and inline pattern, and the output is
cleaned by :func:`sanitize_html` regardless, because markdown link syntax alone can produce
``javascript:`` URLs. Sources larger than :data:`FAST_PATH_CHARS` use the fast subset converter
(:mod:`memex_desktop.render.fastmd`) so a 1 MB article opens quickly; both paths end in the same
sanitiser.
"""

from __future__ import annotations

from typing import Literal

import markdown  # type: ignore[import-untyped]

from memex_desktop.render.fastmd import fast_markdown_to_html
from memex_desktop.render.sanitize import sanitize_html

# Python-Markdown runs at roughly 1.5 ms per KB; above this size the fast converter is used.
FAST_PATH_CHARS = 48_000

Engine = Literal["auto", "full", "fast"]


def _new_markdown() -> markdown.Markdown:
    """A fresh converter with raw HTML disabled (instances keep state between calls)."""
    converter = markdown.Markdown(
        extensions=["tables", "fenced_code", "sane_lists"], output_format="html"
    )
    converter.preprocessors.deregister("html_block")
    converter.inlinePatterns.deregister("html")
    return converter


def markdown_to_html(text: str, *, engine: Engine = "auto") -> str:
    """Markdown to HTML with raw HTML shown as text; NOT yet sanitised."""
    source = text.replace("\x00", "\ufffd")
    use_fast = engine == "fast" or (engine == "auto" and len(source) > FAST_PATH_CHARS)
    if use_fast:
        return fast_markdown_to_html(source)
    return str(_new_markdown().convert(source))


def markdown_to_safe_html(
    text: str,
    *,
    allow_remote: bool,
    base_url: str | None = None,
    engine: Engine = "auto",
) -> tuple[str, list[str]]:
    """Markdown to sanitised reader HTML; returns the HTML and its remote image URLs."""
    return sanitize_html(
        markdown_to_html(text, engine=engine),
        allow_remote=allow_remote,
        base_url=base_url,
        converted=True,
    )
