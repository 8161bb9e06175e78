"""One table of the search language: each operator against the library in
``tests/fixtures/search/library.json``, run on the store and through the command line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

LIBRARY = Path(__file__).resolve().parents[1] / "fixtures" / "search" / "library.json"
WORM_BIN = {"worm-guide", "tweet-1", "video-1", "other-site", "reddit-1"}
URBANPLOTS = {"worm-guide", "tomato-log", "blog-sub"}


@dataclass(frozen=True)
class Case:
    """A query and what it finds: ids (in this order when ``ordered``) or an error's words."""

    query: str
    found: tuple[str, ...] = ()
    ordered: bool = False
    sort: str = "relevance"
    error: str = ""

    def __str__(self) -> str:
        return f"{self.query!r} {self.sort}"


def case(query: str, *found: str, ordered: bool = False, sort: str = "relevance") -> Case:
    """A case that finds ``found``."""
    return Case(query, tuple(found), ordered, sort)


CASES = [
    case("worm bin", *sorted(WORM_BIN)),
    case("bin worm", *sorted(WORM_BIN)),
    case('"bin worm"', "worm-guide", "other-site"),
    case('"worm bin"', *sorted(WORM_BIN)),
    case("worm -bin", "pdf-1"),
    case('compost -"bin worm"', "tweet-1"),
    case("mulch OR tomatoes", "note-1", "blog-sub", "tomato-log"),
    case('"bin worm" OR mulch', "worm-guide", "other-site", "note-1", "blog-sub"),
    case("tag:compost", "worm-guide", "tweet-1", "blog-sub"),
    case("#compost", "worm-guide", "tweet-1", "blog-sub"),
    case("#garden mulch", "blog-sub"),
    case("tag:compost OR tag:garden", "worm-guide", "tweet-1", "blog-sub", "tomato-log"),
    case('tag:"local first"', "note-1"),
    case("worm -tag:compost", "video-1", "other-site", "reddit-1", "pdf-1"),
    case("tag:nosuchtag"),
    case("type:tweet", "tweet-1"),
    case("type:tweets worm", "tweet-1"),
    case("type:video", "video-1"),
    case("type:youtube", "video-1"),
    case("type:note", "note-1"),
    case("type:highlight", "highlight-1"),
    case("type:pdf", "pdf-1"),
    case("type:reddit", "reddit-1"),
    case("type:web", "worm-guide", "tomato-log", "blog-sub", "other-site"),
    case("type:page -type:web"),
    case("site:urbanplots.example.com", *sorted(URBANPLOTS)),
    case("site:https://www.urbanplots.example.com/x", *sorted(URBANPLOTS)),
    case("site:blog.urbanplots.example.com", "blog-sub"),
    case("site:reddit.com", "reddit-1"),
    case("site:example.com", *sorted(URBANPLOTS | {"tweet-1"})),
    case("type:web -site:urbanplots.example.com", "other-site"),
    case("urbanplots.example.com", *sorted(URBANPLOTS)),
    case("urbanplots", *sorted(URBANPLOTS)),
    case("after:2024-05-01", "tomato-log", "note-1", "highlight-1", "pdf-1"),
    case("before:2024-02", "blog-sub", "other-site"),
    case("after:2024-03 before:2024-04", "worm-guide", "reddit-1"),
    case("is:deleted", "gone-1"),
    case("is:deleted compost", "gone-1"),
    case("compost ", "worm-guide", "tweet-1", "other-site"),
    case("compost", "worm-guide", "tweet-1", "other-site", "reddit-1"),
    # Order: an exact title or address first; by date when asked.
    case("Worm Bins for Flat Dwellers", "worm-guide", ordered=True),
    case("https://urbanplots.example.com/worm-bins-for-flat-dwellers", "worm-guide", ordered=True),
    case(
        "worm bin",
        *("tweet-1", "reddit-1", "worm-guide", "video-1", "other-site"),
        ordered=True,
        sort="newest",
    ),
    case(
        "worm bin",
        *("other-site", "video-1", "worm-guide", "reddit-1", "tweet-1"),
        ordered=True,
        sort="oldest",
    ),
    Case("type:gizmo", error='There is no type "gizmo"'),
    Case("after:2024-13-01", error='"after:2024-13-01" is not a date'),
    Case("is:archived", error="is:deleted"),
    Case("worm OR tag:compost", error="OR cannot join a word or phrase and a tag: filter"),
    Case("worm OR -compost", error="and an excluded word or phrase"),
    Case("tag:compost (type:web OR type:tweet)", error="Brackets do not group terms."),
]
