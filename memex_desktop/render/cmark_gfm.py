"""cmark-gfm's Markdown to HTML, with what it allocates freed.

``cmarkgfm`` frees neither the document tree a conversion parses nor the HTML it renders:
rendering the 5 KB articles of the benchmark library lost about 25 KB each, and a Markdown
export of 100,000 items grew to 1.4 GB. The same compiled library is opened again here with
the few functions a conversion needs, among them ``cmark_node_free`` and the library's own
allocator (which ``cmarkgfm`` does not expose), so each conversion gives back what it took.
The library is the one ``cmarkgfm`` loaded: one copy, one registry of extensions.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any

import cffi
from cmarkgfm import _cmark


def _library_file() -> str:
    """The file ``cmarkgfm``'s compiled module was loaded from."""
    spec = importlib.util.find_spec(_cmark.__name__)
    if spec is None or not spec.origin:
        raise ImportError("cmark-gfm's compiled library was not found")
    return spec.origin


_FFI = cffi.FFI()
_FFI.cdef(
    """
    typedef struct cmark_mem {
        void *(*calloc)(size_t, size_t);
        void *(*realloc)(void *, size_t);
        void (*free)(void *);
    } cmark_mem;
    cmark_mem *cmark_get_default_mem_allocator(void);
    void cmark_gfm_core_extensions_ensure_registered(void);
    void *cmark_find_syntax_extension(const char *name);
    void *cmark_parser_new(int options);
    int cmark_parser_attach_syntax_extension(void *parser, void *extension);
    void cmark_parser_feed(void *parser, const char *buffer, size_t len);
    void *cmark_parser_finish(void *parser);
    void *cmark_parser_get_syntax_extensions(void *parser);
    void cmark_parser_free(void *parser);
    char *cmark_render_html(void *root, int options, void *extensions);
    void cmark_node_free(void *node);
    """
)
_LIB: Any = _FFI.dlopen(_library_file())
_LIB.cmark_gfm_core_extensions_ensure_registered()
_MEMORY: Any = _LIB.cmark_get_default_mem_allocator()

FOOTNOTES: int = _cmark.lib.CMARK_OPT_FOOTNOTES


def markdown_to_html(text: str, options: int, extensions: Sequence[str]) -> str:
    """CommonMark (with the named GitHub extensions) to HTML, as cmark-gfm renders it."""
    found = [_LIB.cmark_find_syntax_extension(name.encode("ascii")) for name in extensions]
    if _FFI.NULL in found:
        raise ValueError(f"cmark-gfm has no extension among {list(extensions)}")
    encoded = text.encode("utf-8")
    parser = _LIB.cmark_parser_new(options)
    try:
        for extension in found:
            _LIB.cmark_parser_attach_syntax_extension(parser, extension)
        _LIB.cmark_parser_feed(parser, encoded, len(encoded))
        root = _LIB.cmark_parser_finish(parser)
        if root == _FFI.NULL:
            raise ValueError("cmark-gfm parsed no document")
        try:
            rendered = _LIB.cmark_render_html(
                root, options, _LIB.cmark_parser_get_syntax_extensions(parser)
            )
            try:
                return bytes(_FFI.string(rendered)).decode("utf-8")
            finally:
                _MEMORY.free(rendered)
        finally:
            _LIB.cmark_node_free(root)
    finally:
        _LIB.cmark_parser_free(parser)
