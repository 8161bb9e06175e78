"""Safe, faithful rendering of saved content for the reader pane and ``show`` (DESIGN.md §5).

Saved content is hostile input. Every document is built from escaped values and sanitised
fragments and passes nh3 with an explicit allow-list (see :mod:`memex_desktop.render.sanitize`);
remote images are placeholders unless the caller allows remote content for the item.
Pure Python: rendering large documents belongs on a worker thread, and its big steps in the
render process (:mod:`memex_desktop.render.apart`, asked for by ``RenderContext.big_steps_apart``).
"""

from memex_desktop.render.document import RenderContext, RenderedDoc
from memex_desktop.render.entities import render_entity
from memex_desktop.render.markdown_html import markdown_to_safe_html
from memex_desktop.render.sanitize import sanitize_html
from memex_desktop.render.text import html_to_text

__all__ = [
    "RenderContext",
    "RenderedDoc",
    "html_to_text",
    "markdown_to_safe_html",
    "render_entity",
    "sanitize_html",
]
