"""The keys of cache.db's ``sync_state`` table, declared once for every reader and writer.

The sync writes them and the store, the window and the command line read them; each key is
named here so a read and its write can never disagree on the spelling. Losing any of them
only costs a re-fetch (the cache is disposable).
"""

from __future__ import annotations

# The position of an interrupted full pass (JSON; "" when none is under way).
STATE_FULL_PASS = "sync.full_pass"
# The newest created_at held (the incremental pull's watermark; an earlier version kept
# max(updated_at, created_at) under "sync.newest_ms", which can run ahead of every save).
STATE_NEWEST_MS = "sync.newest_created_ms"
# Ids missing from the last complete pass (marked deleted if the next one misses them too),
# and how many a pass held back for the person to confirm (JSON, or "").
STATE_MISSING_ONCE = "sync.missing_once"
STATE_DELETIONS_HELD = "sync.deletions_held"
# When the last complete pass and the last sync of any kind ended (epoch milliseconds).
STATE_LAST_FULL_MS = "sync.last_full_pass_at_ms"
STATE_LAST_SYNC_MS = "sync.last_sync_at_ms"
# Why the last pull could not read the saved views / followed feeds ("" when it could): the
# sidebar says so instead of showing an empty section.
STATE_VIEWS_PROBLEM = "sync.views_problem"
STATE_FEEDS_PROBLEM = "sync.feeds_problem"
# What a server was found to support, one key per API base URL after this prefix.
STATE_SERVER_PREFIX = "sync.server:"
# How far the list of the body index's words has got (see store/terms.py).
STATE_BODY_TERMS = "store.body_terms"
