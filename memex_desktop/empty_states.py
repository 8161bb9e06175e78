"""Why a list of results is empty, and the one action that fixes it, in words for people.

The results list never shows a blank: a query that finds nothing, filters that exclude
everything, an empty shelf or feed, a cache waiting for its first sync, a computer that is
offline and a cache that cannot be read each say so, with the fix (clear the search, clear
the filters, sign in, sync, or what the store's error says to do).
"""

from __future__ import annotations

from dataclasses import dataclass

from memex_desktop.api.plain_text import shortened

# The actions an empty list offers; the window carries them out.
CLEAR_SEARCH = "clear_search"
CLEAR_ALL = "clear_all"
SIGN_IN = "settings"
SYNC = "retry"
FRESH_CACHE = "fresh_cache"
# Ask the server for the items of the feed shown (a sync does not list feeds).
LIST_FEED = "list_feed"


@dataclass(frozen=True)
class ListContext:
    """What the list shows: the query, the active filters and scope, the cache and the link.

    ``filters`` names every active filter except the query (filter menus, and a type or tag
    picked in the sidebar); ``scope`` is the sidebar's kind of entry (all, type, tag, view,
    feed, deleted).
    """

    query: str = ""
    filters: tuple[str, ...] = ()
    scope: str = "all"
    scope_label: str = ""
    library_empty: bool = False
    signed_in: bool = True
    offline: bool = False
    syncing: bool = False
    # Why the cache could not be read for this list (words for the person), if it could not.
    unreadable: str = ""
    # Whether starting with a fresh cache gets past that (a damaged or newer cache).
    fresh_start: bool = False
    # Why the query means nothing (an unknown type), in words for the person, if it does not.
    query_problem: str = ""
    # The names of tag: filters in the query that no cached tag has.
    unknown_tags: tuple[str, ...] = ()
    # Whether the query narrows beyond its words: filters (tag:, type:, site:, dates),
    # exclusions (-word), phrases or OR.
    query_narrows: bool = False
    # Whether the server ever listed the feed shown (a feed's items are only known once it
    # has: nothing of a feed never listed is in the cache for words or filters to narrow).
    feed_listed: bool = True


@dataclass(frozen=True)
class EmptyState:
    """The words an empty list shows and its fixing action (``action`` "" for none)."""

    title: str
    explanation: str
    action: str = ""
    action_label: str = ""


def quoted(query: str) -> str:
    """A query as the person typed it, in typographic quotes (on one line, shortened)."""
    return f"\u201c{shortened(query)}\u201d"


def empty_state(context: ListContext) -> EmptyState:
    """Why the list of ``context`` is empty, and what fixes it."""
    if context.query_problem:
        # The search never ran: that, not the cache or the library, is why the list is empty
        # (and the list is the one place that says it; see SearchController).
        return EmptyState(
            "This search cannot run", context.query_problem, CLEAR_SEARCH, "Clear search"
        )
    if context.unreadable:
        # Not "nothing matches": what the list would hold is not known.
        if context.fresh_start:
            return EmptyState(
                "Your library cannot be read",
                context.unreadable,
                FRESH_CACHE,
                "Start with a fresh cache…",
            )
        return EmptyState("Your library cannot be read", context.unreadable)
    if context.library_empty:
        return _empty_library(context)
    if context.unknown_tags:
        names = ", ".join(quoted(name) for name in context.unknown_tags)
        many = len(context.unknown_tags) > 1
        return EmptyState(
            f"No tag{'s' * many} called {names}",
            f"No cached item carries a tag of th{'ose names' if many else 'at name'}. Check "
            "the spelling: the Tags section of the sidebar lists the tags.",
            CLEAR_SEARCH,
            "Clear search",
        )
    if context.scope == "feed" and not context.feed_listed:
        return _feed_not_listed(context)
    offline = (
        " Memex cannot be reached: only what is already cached was searched." * context.offline
    )
    if context.filters:
        # The search is one of the things that together leave nothing: named among them.
        parts = [quoted(context.query)] * bool(context.query) + list(context.filters)
        together = (
            f"both {parts[0]} and {parts[1]}"
            if len(parts) == 2
            else f"all of {', '.join(parts[:-1])} and {parts[-1]}"
            if len(parts) > 2
            else parts[0]
        )
        return EmptyState(
            "No items match these filters",
            f"No item fits {together}. Remove one above, or clear them all.{offline}",
            CLEAR_ALL,
            "Clear all",
        )
    if context.query:
        where = (
            f" in {context.scope_label}" if context.scope != "all" and context.scope_label else ""
        )
        if context.query_narrows:
            # Fewer words would not help where a filter or an exclusion left nothing.
            why = (
                f"No item{where} fits every part of this search: its words, filters and"
                " exclusions. Remove a part of it, or clear it."
            )
        else:
            why = f"Nothing{where} holds these words. Check the spelling or try fewer words."
        return EmptyState(
            f"No items match {quoted(context.query)}",
            f"{why}{offline}",
            CLEAR_SEARCH,
            "Clear search",
        )
    return _empty_scope(context)


def _empty_library(context: ListContext) -> EmptyState:
    """A cache that holds nothing yet: syncing, waiting for a sign-in, or offline."""
    if not context.signed_in:
        return EmptyState(
            "Sign in to sync",
            "Your library appears here once it is synced from Memex.",
            SIGN_IN,
            "Sign in…",
        )
    if context.syncing:
        return EmptyState(
            "Syncing your library…",
            "Items are listed here as they arrive.",
        )
    if context.offline:
        return EmptyState(
            "Memex cannot be reached",
            "Your library is synced as soon as the Memex server answers.",
            SYNC,
            "Try again",
        )
    return EmptyState(
        "Your library is empty",
        "Save a page in Memex, or drop a link on this window, and it appears here.",
    )


def _feed_not_listed(context: ListContext) -> EmptyState:
    """A feed whose items Memex never listed: nothing of it is cached yet."""
    title = "This feed has not been listed yet"
    if not context.signed_in:
        return EmptyState(title, "Sign in to read its items from Memex.", SIGN_IN, "Sign in…")
    if context.offline:
        return EmptyState(
            title,
            "Memex cannot be reached: the feed's items are listed once it answers.",
            LIST_FEED,
            "Try again",
        )
    return EmptyState(
        title,
        "Memex is asked for its items when the feed is opened; they appear here once it answers.",
        LIST_FEED,
        "Ask again",
    )


def _empty_scope(context: ListContext) -> EmptyState:
    """A sidebar entry that lists nothing, without a query or filters narrowing it."""
    if context.scope == "deleted":
        return EmptyState(
            "Nothing was deleted upstream",
            "Items the Memex server stops returning are kept here, never silently erased.",
        )
    if context.scope == "feed":
        if context.offline:
            return EmptyState(
                "This feed had no items when Memex last listed it",
                "Memex cannot be reached now: the feed is listed again once it answers.",
                LIST_FEED,
                "Try again",
            )
        return EmptyState(
            "This feed has no items on Memex",
            "Memex lists no items for this feed. Its new items appear when it is listed again.",
            LIST_FEED,
            "List again",
        )
    if context.scope == "view":
        return EmptyState(
            "This saved view lists nothing yet",
            "None of the cached items fits the view; the server's results appear when it answers.",
            SYNC,
            "Sync now",
        )
    return EmptyState(
        "Nothing to show here",
        "Every cached item of this list was deleted upstream.",
    )
