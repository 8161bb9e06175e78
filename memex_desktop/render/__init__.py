"""Safe, faithful rendering of saved content for the reader pane and ``show`` (DESIGN.md §5).

Saved content is hostile input. Every document is built from escaped values and sanitised
fragments and passes nh3 with an explicit allow-list (see :mod:`memex_desktop.render.sanitize`);
remote images are placeholders unless the caller allows remote content for the item.
Pure Python: rendering large documents belongs on a worker thread, and its big steps in the
render process (:mod:`memex_desktop.render.apart`, asked for by ``RenderContext.big_steps_apart``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memex_desktop.lazy_names import names_of_modules

if TYPE_CHECKING:
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

# Each name's module, imported when the name is first asked for: a window imports the
# renderer's light parts (image checks, HTML pieces) before its first frame, and the renderer
# itself (nh3, cmark-gfm, the entity models) only once it renders, after that frame.
_MODULE_OF = {
    "RenderContext": "document",
    "RenderedDoc": "document",
    "html_to_text": "text",
    "markdown_to_safe_html": "markdown_html",
    "render_entity": "entities",
    "sanitize_html": "sanitize",
}


__getattr__ = names_of_modules(__name__, _MODULE_OF)
