"""An independent HTML5 check that rendered output can neither run code nor fetch anything.

The output is re-parsed with html5lib (a different parser from the sanitiser's) and every
element and attribute is inspected.
"""

from __future__ import annotations

from typing import Any

import html5lib

FORBIDDEN_TAGS = frozenset(
    [
        "script",
        "iframe",
        "object",
        "embed",
        "svg",
        "math",
        "style",
        "link",
        "meta",
        "base",
        "form",
        "frame",
        "frameset",
        "template",
        "noscript",
        "textarea",
        "select",
        "input",
        "button",
        "video",
        "audio",
        "source",
        "track",
        "applet",
        "picture",
        "area",
        "keygen",
        "isindex",
        "marquee",
    ]
)
URL_ATTRIBUTES = frozenset(
    [
        "href",
        "src",
        "action",
        "formaction",
        "background",
        "poster",
        "srcset",
        "xlink:href",
        "data",
        "cite",
        "longdesc",
        "dynsrc",
        "lowsrc",
        "codebase",
        "classid",
        "manifest",
        "icon",
        "ping",
    ]
)
FETCHING_ATTRIBUTES = frozenset({"src", "srcset", "poster", "background", "data", "dynsrc"})
ALLOWED_SCHEMES = ("http:", "https:", "mailto:", "memex:")


def _local(name: str) -> str:
    """An element or attribute name without its ``{namespace}`` prefix."""
    return name.rsplit("}", 1)[-1].lower()


def problems(rendered: str, *, allow_remote: bool = False) -> list[str]:
    """Everything unsafe in ``rendered`` (empty when it is safe)."""
    found: list[str] = []
    root: Any = html5lib.parseFragment(rendered, treebuilder="etree", namespaceHTMLElements=True)
    for element in root.iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        if "}" in tag and not tag.startswith("{http://www.w3.org/1999/xhtml}"):
            found.append(f"foreign element {tag}")
        name = _local(tag)
        if name in FORBIDDEN_TAGS:
            found.append(f"forbidden element <{name}>")
        if name == "img" and not allow_remote:
            found.append("an <img> outside the placeholder mechanism")
        for raw_attr, value in element.attrib.items():
            attr = _local(raw_attr) if "}" in raw_attr else raw_attr.lower()
            if attr.startswith("on"):
                found.append(f"event handler {attr}= on <{name}>")
            if attr == "style":
                found.append(f"style= on <{name}>")
            if attr in URL_ATTRIBUTES or raw_attr.lower() == "xlink:href":
                url = "".join(ch for ch in value if ord(ch) > 32).lower()
                if not url.startswith(ALLOWED_SCHEMES):
                    found.append(f"{attr}={value!r} on <{name}> (scheme not allowed)")
                if attr in FETCHING_ATTRIBUTES and not (allow_remote and name == "img"):
                    found.append(f"remote resource {attr}={value!r} on <{name}>")
                if attr == "src" and name == "img" and not url.startswith(("http:", "https:")):
                    found.append(f"image source {value!r} is not a web URL")
    return found
