"""ProseMirror (TipTap) JSON of notes and chat messages to template HTML with reference cards.

Every string taken from the JSON is escaped here and link targets are checked by the sanitiser
later, so a hostile document can only produce text, allowed tags and allowed links.
"""

from __future__ import annotations

from typing import Any

from memex_desktop.api.content import (
    REFERENCE_NODE_TYPES,
    reference_target,
    rich_text_references,
)
from memex_desktop.render.document import (
    RenderContext,
    esc,
    image,
    reference_card,
)
from memex_desktop.render.sanitize import escape_attr

# A hostile document can nest deeply; below this depth only the text is kept.
MAX_DEPTH = 60

_BLOCKS = {
    "paragraph": "p",
    "blockquote": "blockquote",
    "bulletList": "ul",
    "bullet_list": "ul",
    "orderedList": "ol",
    "ordered_list": "ol",
    "listItem": "li",
    "list_item": "li",
    "table": "table",
    "tableRow": "tr",
    "tableCell": "td",
    "tableHeader": "th",
}
_MARKS = {
    "bold": "b",
    "strong": "b",
    "italic": "i",
    "em": "i",
    "code": "code",
    "strike": "s",
    "underline": "u",
    "subscript": "sub",
    "superscript": "sup",
}


def _attrs(node: dict[str, Any]) -> dict[str, Any]:
    """A node's ``attrs`` as a dict (empty when missing or malformed)."""
    attrs = node.get("attrs")
    return attrs if isinstance(attrs, dict) else {}


def _text_node(node: dict[str, Any]) -> str:
    """A text node with its marks (bold, italic, code, links, ...)."""
    text = node.get("text")
    html = esc(text) if isinstance(text, str) else ""
    marks = node.get("marks")
    if not isinstance(marks, list):
        return html
    for mark in marks:
        if not isinstance(mark, dict):
            continue
        kind = mark.get("type")
        if kind == "link":
            href = _attrs(mark).get("href")
            if isinstance(href, str):
                html = f'<a href="{escape_attr(href.strip())}">{html}</a>'
        elif isinstance(kind, str) and kind in _MARKS:
            tag = _MARKS[kind]
            html = f"<{tag}>{html}</{tag}>"
    return html


def _plain_text(node: Any) -> str:
    """All text of a subtree, escaped, in document order (iterative: depth is unbounded)."""
    texts: list[str] = []
    stack: list[Any] = [node]
    while stack:
        current = stack.pop()
        if not isinstance(current, dict):
            continue
        text = current.get("text")
        if isinstance(text, str):
            texts.append(esc(text))
        children = current.get("content")
        if isinstance(children, list):
            stack.extend(reversed(children))
    return " ".join(texts)


def prosemirror_to_html(node: Any, context: RenderContext, depth: int = 0) -> str:
    """Template HTML for a ProseMirror node (usually the ``doc``)."""
    if not isinstance(node, dict):
        return esc(node) if isinstance(node, str) else ""
    if depth > MAX_DEPTH:
        # Too deep to lay out, but every item it names still gets its card.
        cards = (reference_card(r.target, context) for r in rich_text_references(node))
        return _plain_text(node) + "".join(cards)
    kind = node.get("type")
    attrs = _attrs(node)
    if kind == "text":
        return _text_node(node)
    if kind in REFERENCE_NODE_TYPES:
        target = reference_target(node)
        if target:
            return reference_card(target, context)
        tag_id = attrs.get("tag_id") or attrs.get("tagId")
        return f'<span class="ref">#{esc(tag_id)}</span>' if isinstance(tag_id, str) else ""
    if kind in ("hardBreak", "hard_break"):
        return "<br>"
    if kind in ("horizontalRule", "horizontal_rule"):
        return "<hr>"
    if kind == "image":
        src = attrs.get("src")
        alt = attrs.get("alt") if isinstance(attrs.get("alt"), str) else ""
        html = image(src, str(alt)) if isinstance(src, str) and src else ""
        target = reference_target(node)
        return html + (reference_card(target, context) if target else "")
    if kind == "mention":
        label = attrs.get("label") or attrs.get("id")
        return f"@{esc(label)}" if label else ""
    inner = _children(node, context, depth)
    if kind in ("codeBlock", "code_block"):
        return f"<pre><code>{inner}</code></pre>"
    if kind == "heading":
        level = attrs.get("level")
        level = level if type(level) is int and 1 <= level <= 6 else 2
        return f"<h{level}>{inner}</h{level}>"
    if isinstance(kind, str) and kind in _BLOCKS:
        tag = _BLOCKS[kind]
        start = attrs.get("start") if tag == "ol" else None
        start_attr = f' start="{start}"' if type(start) is int and start != 1 else ""
        return f"<{tag}{start_attr}>{inner}</{tag}>"
    if kind == "doc":
        return inner
    # Unknown node types keep their content (and any text they carry): nothing is hidden.
    text = node.get("text")
    own = esc(text) if isinstance(text, str) else ""
    return own + inner


def _children(node: dict[str, Any], context: RenderContext, depth: int) -> str:
    """The HTML of a node's children."""
    children = node.get("content")
    if not isinstance(children, list):
        return ""
    return "".join(prosemirror_to_html(child, context, depth + 1) for child in children)
