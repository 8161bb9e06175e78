"""The ``memex-desktop`` command (DESIGN.md §7): the window by default, subcommands for scripts.

Expected failures (offline, rejected key, unknown id, a full disk ...) print one line to stderr
and exit non-zero, never a traceback; the exit status says which failure it was (see
``EXIT_*``). Store, API and sync modules are imported inside the commands so ``--version`` and
``--help`` stay fast and the window starts without loading what it does not need.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import itertools
import json
import logging
import math
import os
import re
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from memex_desktop import __version__, paths
from memex_desktop.api.content import type_label
from memex_desktop.api.errors import ApiError, BadApiUrl, NetworkUnavailable
from memex_desktop.errors import (
    SAVE_STATE_WORDS,
    STOPPED,
    UPDATING_CACHE,
    ConnectionState,
    Credential,
    UserMessage,
    failure_message,
    save_state_words,
    state_message,
    user_message,
)
from memex_desktop.runtime import return_freed_memory_periodically, settle_garbage_collector
from memex_desktop.settings import API_KEY_ENV, Settings
from memex_desktop.store.errors import StoreError
from memex_desktop.store.search_language import (
    SERVER_CONTENT_TYPES,
    SORTS,
    SearchLanguageError,
    content_types,
    parse_query,
    remote_request,
    type_help,
    typed_in_full,
)

if TYPE_CHECKING:
    from memex_desktop.api.client import MemexClient
    from memex_desktop.services import Connection
    from memex_desktop.store import CacheReader, Outbox, OutboxOp, StoreWriter
    from memex_desktop.store.save_description import SavedItem
    from memex_desktop.sync import SyncEngine, SyncOutcome, SyncProgress, SyncReport
    from memex_desktop.sync.folder_lock import FolderLock

_log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_OFFLINE = 3
EXIT_SERVER_DOWN = 4
EXIT_AUTH = 5
EXIT_CREDITS = 6
EXIT_NOT_FOUND = 7
EXIT_INCOMPATIBLE = 8
EXIT_BUSY = 9  # another memex-desktop is syncing the same data folder
EXIT_READ_ONLY = 10  # the data folder cannot be written (a command that writes did nothing)
EXIT_CANCELLED = 130
EXIT_BROKEN_PIPE = 141  # what a shell reports for a command its pipe reader left (128 + SIGPIPE)

# The exit status of each connection state a command can end in (README "Exit status").
STATE_EXIT: dict[ConnectionState, int] = {
    ConnectionState.ONLINE: EXIT_OK,
    ConnectionState.NOT_CONFIGURED: EXIT_AUTH,
    ConnectionState.OFFLINE: EXIT_OFFLINE,
    ConnectionState.SERVER_DOWN: EXIT_SERVER_DOWN,
    ConnectionState.AUTH_REJECTED: EXIT_AUTH,
    ConnectionState.INSUFFICIENT_CREDITS: EXIT_CREDITS,
    ConnectionState.INCOMPATIBLE: EXIT_INCOMPATIBLE,
}

PROG = "memex-desktop"
MAX_PORT = 65535
# The largest integer SQLite stores: a count or an id above it is no count or id of a library.
MAX_INT = 2**63 - 1
# How long ``save`` waits for another process's sending to end before it leaves its saves to
# that process: long enough for another save's send, short against a sync's minutes.
SAVE_LOCK_WAIT_S = 1.0


class CliError(Exception):
    """An expected failure: one line for stderr and the exit status."""

    def __init__(self, message: str, exit_code: int = EXIT_FAILURE) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class FolderNotWritable(CliError):
    """The data folder cannot be written (read-only): a command that writes did nothing."""

    def __init__(self, message: str) -> None:
        super().__init__(message, EXIT_READ_ONLY)


# --------------------------------------------------------------------------- the parser


def _add_global_options(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """--data-dir/--api-url/--api-key, accepted before or after the subcommand."""
    default: Any = None if top else argparse.SUPPRESS
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=default,
        help="folder of the local cache and outbox (env MEMEX_DATA_DIR)",
    )
    parser.add_argument(
        "--api-url", default=default, help="base URL of the Memex API (env MEMEX_API_URL)"
    )
    parser.add_argument(
        "--api-key",
        default=default,
        help="API key for this run (env MEMEX_API_KEY; otherwise the keyring)",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0 if top else argparse.SUPPRESS,
        help="log more to stderr (repeat for debug)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The whole command-line interface (a README test checks every subcommand is listed)."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        usage="%(prog)s [options] [memex://entity/ID]\n       %(prog)s COMMAND ...",
        description="A local-first desktop knowledge browser for Memex. "
        "Without a subcommand it opens the window; given a memex://entity/ID link, on that "
        "item (in the window already open on the same data folder, if there is one).",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    parser.add_argument(
        "--demo",
        action="store_true",
        help="open the window on the bundled demo library (embedded emulator)",
    )
    parser.add_argument(
        "--quit-after-sync",
        action="store_true",
        help="quit the window after its first sync (exit status 0 when it succeeded)",
    )
    _add_global_options(parser, top=True)
    # Named as the command is: the usage above is the window's, which argparse would prefix.
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", prog=PROG)

    def command(name: str, handler: Callable[[argparse.Namespace, Any], int], help_: str) -> Any:
        cmd = sub.add_parser(name, help=help_, description=help_)
        _add_global_options(cmd, top=False)
        cmd.set_defaults(handler=handler)
        return cmd

    cmd = command(
        "sync",
        cmd_sync,
        "fetch new and changed items, mark the ones deleted on the server, and send queued "
        "saves and notes (progress on stderr)",
    )
    cmd.add_argument("--full", action="store_true", help="a complete pass with reconciliation")
    cmd.add_argument(
        "--confirm-deletions",
        action="store_true",
        help="mark items deleted upstream even when a pass finds more than it marks unasked",
    )
    cmd.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")

    cmd = command("search", cmd_search, "search the local cache (or the server with --remote)")
    cmd.description = (
        'search the local cache (or the server with --remote). QUERY: words, "a phrase", '
        '-word, -"a phrase", a OR b, tag:NAME or #NAME, type:NAME, site:HOST, '
        "after:YYYY-MM-DD, before:YYYY-MM, is:deleted; its words need no quotes, and may "
        "come among the options (search compost -worm --limit 5)"
    )
    cmd.add_argument(
        "query", metavar="QUERY", help="what to look for, in the search language above"
    )
    cmd.add_argument(
        "--type",
        action="append",
        default=[],
        metavar="T",
        help=f"kind of item (repeatable): {type_help()}, or a Memex content type",
    )
    cmd.add_argument("--tag", metavar="NAME", help="only items with this tag")
    cmd.add_argument(
        "--sort", choices=SORTS, default="relevance", help="result order (default: relevance)"
    )
    cmd.add_argument(
        "--limit",
        type=_positive_int,
        default=20,
        metavar="N",
        help="show at most N results (default: %(default)s)",
    )
    cmd.add_argument(
        "--remote", action="store_true", help="ask the server too and cache what it returns"
    )
    cmd.add_argument("--json", action="store_true", help="print a JSON array")

    cmd = command(
        "show",
        cmd_show,
        "print a cached item as the reader shows it, then its highlights and notes",
    )
    cmd.add_argument("id", metavar="ID", help="the item to show (its id, or the start of it)")
    cmd.add_argument(
        "--format",
        choices=("text", "html"),
        default="text",
        help="plain text, or the reader's safe HTML (default: %(default)s)",
    )

    cmd = command("save", cmd_save, "queue URL saves (sent at once when online)")
    cmd.add_argument(
        "urls", nargs="+", metavar="URL", help="a web address; - reads text from stdin (as --text)"
    )
    cmd.add_argument(
        "--text",
        action="store_true",
        help="the arguments are text: save the links in it, found as a paste into the window does",
    )

    cmd = command("note", cmd_note, "write a note on a cached item (or a reply) through the outbox")
    cmd.add_argument(
        "id", metavar="ID", help="the item the note is on (its id, or the start of it)"
    )
    cmd.add_argument("text", metavar="TEXT", help="what the note says (quote it in the shell)")
    cmd.add_argument(
        "--reply-to",
        metavar="NOTE_ID",
        help="answer this note in the item's thread (its id, or the start of it)",
    )

    cmd = command("outbox", cmd_outbox, "list, retry or drop queued saves")
    cmd.add_argument(
        "action",
        nargs="?",
        choices=("list", "retry", "drop"),
        default="list",
        help="list the queued saves, or retry or drop one (default: %(default)s)",
    )
    cmd.add_argument(
        "op_id",
        nargs="?",
        metavar="ID",
        help="the number `outbox list` shows for the save to retry or drop",
    )
    cmd.add_argument("--json", action="store_true", help="print a JSON array (list)")

    cmd = command("export", cmd_export, "write every cached item, note, thread and tag to DIR")
    cmd.add_argument(
        "directory",
        type=Path,
        metavar="DIR",
        help="the folder to write into (made if it does not exist)",
    )
    cmd.add_argument(
        "--format",
        choices=("json", "markdown"),
        default="json",
        help="one JSON library file, or a Markdown file per item (default: %(default)s)",
    )
    cmd.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr")

    cmd = command(
        "import", cmd_import, "load a JSON export, a library file or JSON Lines into the cache"
    )
    cmd.add_argument(
        "file",
        type=Path,
        metavar="FILE",
        help="a JSON export of this app, a Memex library file, or JSON Lines of items",
    )

    cmd = command("login", cmd_login, "sign in with Memex in the browser (OAuth with PKCE)")
    cmd.add_argument(
        "--no-browser", action="store_true", help="print the URL to open instead of opening it"
    )
    cmd.add_argument(
        "--timeout", type=_positive_float, default=300.0, metavar="SECONDS", help="how long to wait"
    )

    command("logout", cmd_logout, "sign out of Memex: forget the sign-in tokens")

    # The emulator is a server: it reads no data folder and talks to no API, and its key is
    # the one it accepts, so it takes none of the other commands' options.
    about = "run a Memex-compatible API server on loopback"
    cmd = sub.add_parser("emulator", help=about, description=about)
    cmd.set_defaults(handler=cmd_emulator)
    cmd.add_argument(
        "--api-key",
        default=argparse.SUPPRESS,
        help=f"the API key it accepts (env {API_KEY_ENV}; without one, the demo's, which it "
        "prints once ready)",
    )
    cmd.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=argparse.SUPPRESS,
        help="log more to stderr (repeat for debug)",
    )
    cmd.add_argument("--host", default="127.0.0.1", help="address to listen on")
    cmd.add_argument(
        "--port", type=_port, default=8787, help="TCP port to listen on (0: any free one)"
    )
    cmd.add_argument(
        "--library",
        type=Path,
        metavar="FILE",
        help="library file: JSON, or JSON Lines (.jsonl) read as a stream",
    )
    cmd.add_argument(
        "--generate",
        type=_positive_int,
        metavar="N",
        help="serve a generated library of N items instead of a file",
    )
    cmd.add_argument(
        "--media",
        type=Path,
        metavar="DIR",
        help="serve the pictures in DIR under /media (default: the demo's, with the demo library)",
    )
    cmd.add_argument(
        "--balance-micros",
        type=int,
        default=None,
        metavar="N",
        help="the account's pay-as-you-go credit, in millionths of a dollar (what costs more "
        "is refused as out of credit)",
    )
    cmd.add_argument(
        "--max-page-size",
        type=_positive_int,
        default=None,
        metavar="N",
        help="the most items one page of search results holds",
    )
    cmd.add_argument(
        "--processing-delay",
        type=_non_negative_float,
        default=None,
        metavar="SECONDS",
        help="how long a saved link takes to be processed into an item",
    )
    cmd.add_argument(
        "--latency-ms",
        type=_non_negative_float,
        default=0.0,
        metavar="MS",
        help="delay every request by MS milliseconds, as a distant server would",
    )
    cmd.add_argument(
        "--bandwidth-kbps",
        type=_non_negative_float,
        default=0.0,
        metavar="KBPS",
        help="send responses over one link of KBPS kilobits per second (0: unlimited)",
    )
    cmd.add_argument(
        "--profile",
        choices=("default", "first-party"),
        default="default",
        help="first-party: page, identify items and take notes as first-party code suggests "
        "the real service may (silent page cap, rows dropped, id != content_id, ...)",
    )
    cmd.add_argument("--ignore-offset", action="store_true", help="always page from 0")
    cmd.add_argument("--ignore-sort-by", action="store_true", help="accept and ignore sortBy")
    cmd.add_argument(
        "--moved-to", metavar="URL", help="answer every request 301 with a Location on URL"
    )

    command("doctor", cmd_doctor, "check what the Memex server does with the app's requests")

    cmd = command("bench", cmd_bench, "run the benchmarks of a source checkout")
    cmd.add_argument("--entities", type=_positive_int, default=10_000, metavar="N")
    cmd.add_argument("--json", action="store_true", help="print one JSON object of measures")
    cmd.add_argument("--only", action="append", default=[], metavar="AREA", help="e.g. sync")
    return parser


def subcommands(parser: argparse.ArgumentParser) -> tuple[str, ...]:
    """The subcommands of ``parser`` (declared once, in :func:`build_parser`)."""
    return tuple(_subparsers(parser))


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Each subcommand's parser by name."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _query_words_last(parser: argparse.ArgumentParser, arguments: list[str]) -> list[str]:
    """``search``'s arguments with the words of its query joined into one, after ``--``.

    The search language excludes a word with a leading dash (``-fox``), which argparse takes
    for an option it does not know, and a query of several words would need quotes: every
    argument that is not one of the command's options (or an option's value) is a word of
    the query, in the order typed.
    """
    start = next((n for n, a in enumerate(arguments) if a in _subparsers(parser)), None)
    if start is None or arguments[start] != "search":
        return arguments
    takes_value: set[str] = set()
    flags: set[str] = set()
    for action in _subparsers(parser)["search"]._actions:
        (flags if action.nargs == 0 else takes_value).update(action.option_strings)
    options: list[str] = []
    words: list[str] = []
    rest = iter(arguments[start + 1 :])
    for argument in rest:
        name = argument.split("=", 1)[0]
        if argument == "--":
            words.extend(rest)
        elif name in takes_value:
            options.append(argument)
            if "=" not in argument:
                options.extend(itertools.islice(rest, 1))
        elif argument in flags or re.fullmatch(r"-v+", argument):
            options.append(argument)
        else:
            words.append(argument)
    query = ["--", " ".join(words)] if words else []
    return [*arguments[: start + 1], *options, *query]


T = TypeVar("T", int, float)


def _number(text: str, parse: Callable[[str], T], problem: Callable[[T], str | None]) -> T:
    """argparse type body: ``text`` read by ``parse``, refused with ``problem``'s words."""
    try:
        value = parse(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if (words := problem(value)) is not None:
        raise argparse.ArgumentTypeError(f"{words}: {text!r}")
    return value


def _positive_int(text: str) -> int:
    """argparse type: an integer of at least 1."""

    def problem(value: int) -> str | None:
        if value < 1:
            return "must be at least 1"
        return f"must be at most {MAX_INT}" if value > MAX_INT else None

    return _number(text, int, problem)


def _positive_float(text: str) -> float:
    """argparse type: a finite number above 0 (a time to wait)."""
    return _number(
        text, float, lambda v: None if math.isfinite(v) and v > 0 else "must be a number above 0"
    )


def _port(text: str) -> int:
    """argparse type: a TCP port number, 0 (any free port) to 65535."""
    return _number(
        text, int, lambda v: None if 0 <= v <= MAX_PORT else f"must be a port from 0 to {MAX_PORT}"
    )


def _non_negative_float(text: str) -> float:
    """argparse type: a finite number of at least 0."""
    return _number(
        text,
        float,
        lambda v: None if math.isfinite(v) and v >= 0 else "must be a number of at least 0",
    )


# --------------------------------------------------------------------------- the session


@dataclass
class Session:
    """What one command run uses: settings, folders, credentials and lazily opened stores."""

    settings: Settings
    data_dir: Path
    api_url: str
    api_key_flag: str | None = field(default=None, repr=False)
    stack: ExitStack = field(default_factory=ExitStack)
    _reader: CacheReader | None = None
    _writer: StoreWriter | None = None
    _outbox: Outbox | None = None
    _client: MemexClient | None = None
    _connection: Connection | None = None
    _folder_lock: FolderLock | None = None
    _read_only_noted: bool = False

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> Session:
        """Settings file, then environment, then flags (each overrides the one before)."""
        settings = Settings.load()
        data_dir = settings.effective_data_dir(getattr(args, "data_dir", None))
        api_url = settings.effective_api_url(getattr(args, "api_url", None))
        return cls(settings, data_dir, api_url, getattr(args, "api_key", None))

    def _ensure_data_dir(self) -> None:
        """Create the data folder (a clear error when it cannot be, or cannot be written)."""
        self._refuse_a_file_as_data_dir()
        why = self.read_only_reason(files=False)
        if why is not None:
            raise FolderNotWritable(
                f"cannot write in the data folder {self.data_dir}: {why}. Make it writable "
                "(or mount it read-write), or choose another data folder with --data-dir or "
                "MEMEX_DATA_DIR. Reading it works: search, show, outbox list, export"
            )
        self.data_dir.mkdir(parents=True, exist_ok=True)

    def read_only_reason(self, *, files: bool = True) -> str | None:
        """Why nothing can be written in the data folder (with ``files``: or to its cache or
        outbox), in words for a person; None when it can be, or does not exist yet."""
        from memex_desktop.store.read_only import folder_write_problem

        stores = (paths.cache_db_path(self.data_dir), paths.outbox_db_path(self.data_dir))
        return folder_write_problem(self.data_dir, stores if files else ())

    def note_read_only(self, why: str, *, unread: str | None = None) -> None:
        """Say once on stderr that this run reads a data folder it cannot write (``unread``:
        a file whose last changes a read cannot see)."""
        if self._read_only_noted:
            return
        self._read_only_noted = True
        missed = f" (the last changes, still in {unread}, are not shown)" if unread else ""
        print(
            f"{PROG}: note: the data folder {self.data_dir} cannot be written ({why}); it is "
            f"read as it is{missed}, and nothing can be saved, synced or changed there",
            file=sys.stderr,
        )

    def _refuse_a_file_as_data_dir(self) -> None:
        """A data folder that is a file is a mistyped path: said as such, not as no library."""
        if self.data_dir.exists() and not self.data_dir.is_dir():
            raise CliError(
                f"the data folder {self.data_dir} is a file, not a folder: check --data-dir "
                "and MEMEX_DATA_DIR"
            )

    def reader(self, *, create: bool = False) -> CacheReader:
        """The read connection of this thread (opens the cache, migrating it if needed).

        Without ``create`` a data folder that holds no cache is an error, not a new library.
        A command that only reads opens no writer: a writer's thread indexes any backlog,
        compacts and checkpoints while it is open, and finishes that indexing as it closes,
        which would hold up the command for seconds on a large backlog and write to a cache
        a window or a sync may be writing; the reader finds rows not indexed yet by itself.
        With ``create`` the command writes (it caches what the server returns), and its
        writer makes the cache.
        """
        if self._reader is None:
            cache = paths.cache_db_path(self.data_dir)
            self._refuse_a_file_as_data_dir()
            if not create and self._writer is None and not cache.exists():
                # A read command never creates a library: a mistyped --data-dir would
                # otherwise answer every search with an empty new cache.
                raise CliError(
                    f"There is no library in {self.data_dir} (no {cache.name} there). Run "
                    f"`{PROG} sync` to create it, or check --data-dir and MEMEX_DATA_DIR."
                )
            why = None if create or self._writer is not None else self.read_only_reason()
            if why is not None:
                # A backup or a read-only mount: read as it is, never migrated or written.
                from memex_desktop.store.read_only import FrozenCacheReader

                frozen = FrozenCacheReader(cache)
                self._reader = frozen
                self.stack.callback(frozen.close)
                self.note_read_only(why, unread=f"{cache.name}-wal" if frozen.wal_unread else None)
                return frozen
            if create:
                self.writer()  # makes the cache, brought up to date
            elif self._writer is None:
                self._bring_up_to_date(cache)
            from memex_desktop.store import CacheReader

            self._reader = CacheReader(cache)
            self.stack.callback(self._reader.close)
        return self._reader

    def writer(self) -> StoreWriter:
        """The single writer of the cache."""
        if self._writer is None:
            from memex_desktop.store import StoreWriter

            self._ensure_data_dir()
            cache = paths.cache_db_path(self.data_dir)
            self._bring_up_to_date(cache)
            self._writer = StoreWriter(cache)
            self.stack.callback(self._writer.close)
        return self._writer

    @staticmethod
    def _bring_up_to_date(cache: Path) -> None:
        """Apply the cache's pending migrations, saying so on stderr with their progress.

        Done here rather than by the store as it opens, where no progress can be shown:
        putting a large cache back in date order takes minutes.
        """
        from memex_desktop.store.schema import migrations_pending

        if migrations_pending(cache):
            from memex_desktop.store.schema import open_cache

            print(f"{PROG}: {UPDATING_CACHE.one_line()}", file=sys.stderr)
            open_cache(cache, progress=_MigrationProgress(sys.stderr)).close()

    def outbox(self) -> Outbox:
        """The queue of saves (a separate, fully synchronous file)."""
        if self._outbox is None:
            from memex_desktop.store import Outbox

            self._ensure_data_dir()
            self._outbox = Outbox(paths.outbox_db_path(self.data_dir))
            self.stack.callback(self._outbox.close)
            if self._outbox.recovery is not None:
                print(f"{PROG}: {self._outbox.recovery.message()}", file=sys.stderr)
        return self._outbox

    def folder_lock(self) -> FolderLock:
        """The lock one syncing or sending process at a time holds on the data folder
        (released when the command ends, whatever happened)."""
        if self._folder_lock is None:
            from memex_desktop.sync.folder_lock import FolderLock

            self._ensure_data_dir()
            self._folder_lock = FolderLock(paths.sync_lock_path(self.data_dir))
            self.stack.callback(self._folder_lock.release)
        return self._folder_lock

    def held_by(self) -> str:
        """Who holds the data folder's lock, for a line that says why this run waits or
        stops: "another memex-desktop (process 123)"."""
        holder = self.folder_lock().holder()
        process = f" (process {holder})" if holder is not None else ""
        return f"another {PROG}{process}"

    def connection(self) -> Connection:
        """Where this run talks to and with which credentials, as the window finds them
        (:func:`memex_desktop.services.connect`), looked up once, when first needed."""
        if self._connection is None:
            from memex_desktop import services

            self._connection = services.connect(
                self.settings, api_url=self.api_url, api_key=self.api_key_flag
            )
            if self._connection.signed_in is not None:
                self.stack.callback(self._connection.signed_in.close)
        return self._connection

    def has_credentials(self) -> bool:
        """Whether calls can be authenticated (a given credential, a sign-in or a stored key)."""
        return self.connection().auth.present

    def client(self) -> MemexClient:
        """The API client with this run's credentials; a clear error without any."""
        if self._client is None:
            from memex_desktop import services

            client = services.make_client(self.settings, self.connection())
            if client is None:
                raise CliError(state_message(ConnectionState.NOT_CONFIGURED).one_line(), EXIT_AUTH)
            self._client = client
            self.stack.callback(client.close)
        return self._client

    def engine(self) -> SyncEngine:
        """The sync engine over this session's client and stores, as the window builds it."""
        from memex_desktop import services

        return services.make_engine(
            self.settings, self.client(), self.writer(), self.outbox(), self.reader()
        )

    def credential(self) -> Credential | None:
        """How this run signs in, for words about it (None before anything looked it up)."""
        return self._connection.credential if self._connection is not None else None

    def words(self, exc: BaseException) -> UserMessage:
        """The words for ``exc``, fitting how this run signs in."""
        return user_message(exc, self.credential())

    def close(self) -> None:
        """Close everything opened (the writer drains its queue first)."""
        self.stack.close()


# --------------------------------------------------------------------------- sync


def exit_status(outcome: SyncOutcome) -> int:
    """The exit status a command ends with after a sync (or a drain) that ended so."""
    from memex_desktop.sync import SyncOutcome

    if outcome.state is not None:
        return STATE_EXIT[outcome.state]
    return EXIT_CANCELLED if outcome is SyncOutcome.CANCELLED else EXIT_FAILURE


class _MigrationProgress:
    """Prints how far bringing the cache up to date has come: in place on a terminal, every
    tenth of the way otherwise."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.in_place = stream.isatty()
        self.shown = -1

    def __call__(self, done: int, total: int) -> None:
        percent = 100 * done // total if total > 0 else 100
        step = percent if self.in_place else percent // 10 * 10
        if step == self.shown:
            return
        self.shown = step
        end = "\r" if self.in_place and percent < 100 else "\n"
        print(f"{PROG}: updating the cache: {step}%", end=end, file=self.stream)
        self.stream.flush()


class _StderrProgress:
    """Prints sync progress to stderr, at most a few lines per second."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.last_at = 0.0
        self.last_phase = ""

    def __call__(self, progress: SyncProgress, *, last: bool = False) -> None:
        """Print ``progress`` unless a line of its phase was printed less than 0.5 s ago;
        the ``last`` of a phase is always printed (a phase ends on what it did)."""
        now = time.monotonic()
        if progress.phase == self.last_phase and now - self.last_at < 0.5 and not last:
            return
        self.last_at, self.last_phase = now, progress.phase
        from memex_desktop.sync.summary import progress_line

        print(progress_line(progress), file=self.stream)
        self.stream.flush()


def _report_failure(report: SyncReport, session: Session) -> int:
    """One stderr line for a sync that did not finish; the exit status of its outcome."""
    from memex_desktop.sync import SyncOutcome

    if report.outcome is SyncOutcome.CANCELLED:
        message = STOPPED
    elif report.error is not None:
        message = session.words(report.error)
    elif report.state is not None:
        message = state_message(report.state, session.credential())
    else:
        message = user_message(RuntimeError(f"a sync ended {report.outcome.value}"))
    print(f"{PROG}: {message.one_line()}", file=sys.stderr)
    return exit_status(report.outcome)


def cmd_sync(args: argparse.Namespace, session: Session) -> int:
    """Pull, reconcile when due (or --full), drain the outbox; summary on stdout.

    One sync at a time per data folder: a second one stops at once, touching nothing, and
    the one running is not disturbed (it also sends saves queued while it runs).
    """
    from memex_desktop.sync.folder_lock import release_and_hand_over

    lock = session.folder_lock()
    if not lock.acquire():
        raise CliError(
            f"{session.held_by()} is already syncing {session.data_dir}; it also sends the "
            "saves queued meanwhile. Nothing was done: run this again once it has ended",
            EXIT_BUSY,
        )
    progress = None if args.quiet else _StderrProgress(sys.stderr)
    engine = session.engine()
    report = engine.run(
        full=args.full or args.confirm_deletions,
        progress=progress,
        resume_paused_outbox=True,
        confirm_deletions=args.confirm_deletions,
    )
    sent, attention = report.sent, report.needs_attention
    if report.ok:
        # Saves queued by other commands while this sync ran, which left them to it.
        for drained in release_and_hand_over(
            lock, session.outbox(), lambda: engine.drain_outbox(progress=progress)
        ):
            sent += drained.sent
            attention += drained.needs_attention
    lock.release()
    summary = (
        f"synced: {_counted(report.pulled, 'item')} read, {report.changes.changed_count} "
        f"changed, {report.deleted_upstream} deleted upstream, {_counted(sent, 'save')} "
        "sent"
    )
    if report.deletions_held:
        print(
            f"{PROG}: {report.deletions_held} items look deleted on the server, more than a "
            f"sync marks without asking; nothing was marked. If they really were deleted, run "
            f"`{PROG} sync --full --confirm-deletions`",
            file=sys.stderr,
        )
    if report.not_reconciled:
        print(f"{PROG}: deleted items not checked: {report.not_reconciled}", file=sys.stderr)
    pending = session.outbox().pending_count()
    if pending:
        summary += f", {pending} still queued"
    if attention:
        summary += f", {attention} need attention (see `{PROG} outbox`)"
    if report.ok or report.pulled or sent:
        print(summary)
    return EXIT_OK if report.ok else _report_failure(report, session)


# --------------------------------------------------------------------------- search / show


# The most characters of a result's snippet printed (on its own line, under the title).
SNIPPET_CHARS = 200


def _plain_snippet(snippet: str) -> str:
    """The store marks matches with control characters; the command line shows plain text."""
    return _cut_at_word(snippet.replace("\x02", "").replace("\x03", ""), SNIPPET_CHARS)


def _cut_at_word(text: str, limit: int) -> str:
    """``text`` on one line in at most ``limit`` characters: cut after a whole word, the cut
    marked with an ellipsis (a word cut in two reads as a typo)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    kept = text[: limit - 1]
    if not text[limit - 1].isspace() and " " in kept:
        kept = kept[: kept.rfind(" ")]
    return kept.rstrip(" ,;:-–—") + "…"


def cmd_search(args: argparse.Namespace, session: Session) -> int:
    """Search the cache (and the server with --remote); text lines or a JSON array."""
    try:
        parse_query(args.query)
        args.content_types = tuple(kind for name in args.type for kind in content_types(name))
    except SearchLanguageError as exc:
        raise CliError(user_message(exc).one_line(), EXIT_USAGE) from exc
    reader = session.reader(create=args.remote)
    tag_id: str | None = None
    if args.tag:
        matches = [tag for tag in reader.tags() if tag.name.lower() == args.tag.lower()]
        if not matches and not args.remote:
            raise CliError(f"no tag named {args.tag!r} in the local library", EXIT_NOT_FOUND)
        tag_id = matches[0].id if matches else None
    unreachable: NetworkUnavailable | None = None
    batches: Iterator[list[dict[str, Any]]] | None = None
    if args.remote:
        try:
            batches = iter([_remote_rows(args, session)])
        except NetworkUnavailable as exc:
            # The local library still answers: its results, then why the server was not.
            unreachable = exc
    if batches is None:
        query = typed_in_full(args.query)
        ids = reader.search_ids(
            query, types=args.content_types, tag_id=tag_id, sort=args.sort, limit=args.limit
        )
        batches = _local_rows(reader, query, ids)
    printed = _print_rows(batches, json_output=args.json)
    if unreachable is not None:
        words = session.words(unreachable).one_line()
        print(f"{PROG}: only the local library was searched: {words}", file=sys.stderr)
        return EXIT_OFFLINE
    if not printed and not args.json:
        print("no results", file=sys.stderr)
    return EXIT_OK


def _print_rows(batches: Iterator[list[dict[str, Any]]], *, json_output: bool) -> int:
    """Print search results a batch at a time (text lines, or one JSON array); how many."""
    printed = 0
    if json_output:
        # One JSON array, written a batch at a time: a long list starts at once.
        sys.stdout.write("[")
        for batch in batches:
            for row in batch:
                sys.stdout.write((", " if printed else "") + json.dumps(row, ensure_ascii=False))
                printed += 1
            sys.stdout.flush()
        print("]")
        return printed
    for batch in batches:
        for row in batch:
            print(f"{row['id']}  [{type_label(row['type'])}]  {row['title'] or '(untitled)'}")
            if row["url"]:
                print(f"    {row['url']}")
            if row["snippet"]:
                print(f"    {_cut_at_word(row['snippet'], SNIPPET_CHARS)}")
            printed += 1
        sys.stdout.flush()
    return printed


# Results read (rows and snippets) and printed at a time: the first lines of a long list come
# at once, and memory holds one batch.
SEARCH_BATCH = 200


def _local_rows(
    reader: CacheReader, query: str, ids: Sequence[str]
) -> Iterator[list[dict[str, Any]]]:
    """The printed rows of these results, a batch at a time."""
    for start in range(0, len(ids), SEARCH_BATCH):
        yield [
            {
                "id": hit.id,
                "type": hit.type,
                "title": hit.title,
                "url": hit.url,
                "snippet": _plain_snippet(hit.snippet),
                "created_at": hit.created_at,
            }
            for hit in reader.hits(query, ids[start : start + SEARCH_BATCH])
        ]


def _remote_rows(args: argparse.Namespace, session: Session) -> list[dict[str, Any]]:
    """Ask the server, cache what it returns (cache-on-view), rows in the server's order.

    The server applies what it can of the query (words, tags, types, dates, the order); the
    rest (phrases, exclusions, sites) is applied here to what it returned.
    """
    reader = session.reader()
    text, filters = remote_request(
        parse_query(args.query), sort=args.sort, tag_ids=reader.tag_ids_named
    )
    if sendable := [kind for kind in args.content_types if kind in SERVER_CONTENT_TYPES]:
        filters["content_types"] = sendable
    if args.tag:
        filters["tag"] = args.tag
    ids, _changes = session.engine().remote_search(text, limit=args.limit, **filters)
    ids = reader.matching_ids(args.query, ids)
    rows_by_id = reader.get_many(ids)
    rows = []
    for entity_id in ids:
        row = rows_by_id.get(entity_id)
        if row is None or (args.content_types and row.type not in args.content_types):
            continue
        rows.append(
            {
                "id": row.id,
                "type": row.type,
                "title": row.title,
                "url": row.url,
                "snippet": _cut_at_word(row.snippet_source, SNIPPET_CHARS),
                "created_at": row.created_at,
            }
        )
    return rows


def cmd_show(args: argparse.Namespace, session: Session) -> int:
    """Print one cached entity as the reader renders it (text or safe HTML)."""
    reader = session.reader()
    entity_id = _whole_id(reader, args.id)
    entity = reader.entity(entity_id)
    if entity is None:
        raise CliError(f"no cached item with id {args.id!r}", EXIT_NOT_FOUND)
    row = reader.get(entity_id)
    if row is not None and row.deleted_upstream_at is not None:
        print(
            f"{PROG}: note: this item was deleted on the server; the local copy is kept",
            file=sys.stderr,
        )
    from memex_desktop.sync.export import highlights_and_notes, render_for_cli

    language = session.settings.transcript_language
    sys.stdout.write(render_for_cli(entity, reader, args.format, transcript_language=language))
    if args.format == "text" and (after := highlights_and_notes(reader, entity, markdown=False)):
        # What the notes pane shows beside the reader: its highlights and note threads.
        sys.stdout.write("\n" + "\n".join(after).rstrip() + "\n")
    if not sys.stdout.isatty():
        sys.stdout.flush()
    return EXIT_OK


# The shortest start of an id taken for the whole of it (shorter ones match too many).
MIN_ID_PREFIX = 4


def _whole_id(reader: CacheReader, given: str) -> str:
    """The cached id ``given`` stands for: itself, or the one cached id it is the start of."""
    if len(given) < MIN_ID_PREFIX or reader.get(given) is not None:
        return given
    starting = reader.ids_starting_with(given, limit=4)
    if len(starting) > 1:
        shown = ", ".join(starting[:3])
        raise CliError(
            f"{given!r} is the start of more than one cached item's id ({shown}…): give more of it",
            EXIT_USAGE,
        )
    return starting[0] if starting else given


# --------------------------------------------------------------------------- save / outbox


def cmd_save(args: argparse.Namespace, session: Session) -> int:
    """Queue each URL (acknowledged only after the outbox commit), then try to send them.

    Every address ends in one of two places, whatever the disk does: "queued: URL" on stdout
    once its commit is done, or "not kept: URL" on stderr after the reason, in which case
    the exit status is 1 and nothing is sent (the saves queued wait for the next sync).
    """
    from memex_desktop.store import CredentialsInUrl, savable_url

    tally = _SaveTally()
    urls, without_links = _urls_to_save(args.urls, as_text=args.text)
    for text in without_links:
        print(f"{PROG}: no link to save in {text[:200]!r}", file=sys.stderr)
        tally.refused += 1
    # The outbox first: short of disk space, it takes the cache's WAL back before it opens.
    outbox, problem = _open_outbox_for_saves(session)
    cache_problem = None if outbox is None else _open_cache_for_saves(session)
    for url in urls:
        try:
            savable_url(url)
        except CredentialsInUrl as exc:  # its words show the address without them
            print(f"{PROG}: cannot save {exc}", file=sys.stderr)
            tally.refused += 1
            continue
        except ValueError as exc:
            print(f"{PROG}: cannot save {url!r}: {exc}", file=sys.stderr)
            tally.refused += 1
            continue
        if outbox is not None and problem is None:
            try:
                result = outbox.enqueue_url(url)
            except (StoreError, OSError) as exc:
                problem = exc
        if problem is not None:
            if not tally.not_kept:
                # Said once, before the addresses it cost, so the first line says why.
                print(f"{PROG}: {_problem_line(session, problem)}", file=sys.stderr)
            print(f"{PROG}: not kept: {url}", file=sys.stderr)
            tally.not_kept += 1
            continue
        if result.status == "already_saved":
            print(f"already saved: {url} ({result.entity_id})")
            tally.already_saved += 1
        elif result.status == "already_queued":
            print(f"already queued: {url}")
            tally.already_queued += 1
        else:
            print(f"queued: {url}")
            tally.queued += 1
        sys.stdout.flush()
    waiting = tally.queued + tally.already_queued
    if problem is not None:
        if not tally.not_kept:  # every address was refused, so none was lost
            print(f"{PROG}: {_problem_line(session, problem)}", file=sys.stderr)
        elif waiting:
            print(f"{tally.summary()}; the ones queued are sent by the next `{PROG} sync`")
        else:
            print(tally.summary())
        return problem.exit_code if isinstance(problem, CliError) else EXIT_FAILURE
    status = EXIT_FAILURE if tally.refused else EXIT_OK
    if cache_problem is not None:
        print(f"{PROG}: {cache_problem.one_line()}", file=sys.stderr)
        if waiting:
            print(f"{tally.summary()}; sent by a `{PROG} sync` once the cache opens")
        return EXIT_FAILURE
    if not waiting:
        return status
    assert outbox is not None  # a problem opening it returned above
    sent = _send_queued(session, outbox, tally.summary())
    return sent if sent != EXIT_OK else status


def _open_outbox_for_saves(session: Session) -> tuple[Outbox | None, BaseException | None]:
    """The outbox ``save`` queues in, or why it cannot be opened (a full disk, a folder that
    cannot be written): then every address is named as not kept instead of queued."""
    try:
        return session.outbox(), None
    except (StoreError, OSError, FolderNotWritable) as exc:
        return None, exc


def _problem_line(session: Session, exc: BaseException) -> str:
    """The line that says why saves were not kept: a command-line refusal as it is worded,
    anything else in the words of ``user_message``."""
    return str(exc) if isinstance(exc, CliError) else session.words(exc).one_line()


def _open_cache_for_saves(session: Session) -> UserMessage | None:
    """Open (and migrate) the cache before the outbox looks into it; the words for why it
    cannot be, since a save does not need the disposable cache (a later sync sends it)."""
    try:
        session.writer()
    except (StoreError, OSError) as exc:
        return session.words(exc)
    return None


@dataclass
class _SaveTally:
    """What ``save`` did with its arguments, for its summary line."""

    queued: int = 0
    already_queued: int = 0
    already_saved: int = 0
    refused: int = 0
    not_kept: int = 0

    def summary(self) -> str:
        """E.g. "1 save queued, 1 already queued": only what happened, counted once each."""
        counts = [
            (count, what)
            for count, what in (
                (self.queued, "queued"),
                (self.already_queued, "already queued"),
                (self.already_saved, "already in the library"),
                (self.refused, "refused"),
                (self.not_kept, "not kept"),
            )
            if count
        ]
        if not counts:
            return "nothing to save"
        (first, what), rest = counts[0], counts[1:]
        return ", ".join([f"{_counted(first, 'save')} {what}", *(f"{n} {w}" for n, w in rest)])


def _counted(count: int, noun: str) -> str:
    """``count`` and ``noun``, plural unless it is one: "1 save", "2 saves"."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def _urls_to_save(arguments: list[str], *, as_text: bool) -> tuple[list[str], list[str]]:
    """The URLs ``save`` queues, and the texts that hold none.

    An argument is a URL as typed, so a malformed one is refused rather than cut down to
    what looks valid; with ``--text``, or ``-`` (stdin), it is text and its links are taken.
    """
    from memex_desktop.api.text_links import find_links

    urls: list[str] = []
    without_links: list[str] = []
    for argument in arguments:
        if not as_text and argument != "-":
            urls.append(argument)
            continue
        text = sys.stdin.read() if argument == "-" else argument
        found = find_links(text)
        urls.extend(found)
        if not found:
            without_links.append(text.strip() or "(empty)")
    return urls, without_links


def cmd_note(args: argparse.Namespace, session: Session) -> int:
    """Queue a note (or a reply) as the window does, then try to send it."""
    from memex_desktop.sync.notes import NoteTargetUnknown, queue_note

    session.writer()
    outbox = session.outbox()
    reader = session.reader()
    # The starts of ids `show` takes name the same items here, for the note and its parent.
    target_id = _whole_id(reader, args.id)
    reply_to = _whole_id(reader, args.reply_to) if args.reply_to else None
    try:
        result = queue_note(outbox, reader, args.text, target_id=target_id, reply_to=reply_to)
    except NoteTargetUnknown as exc:
        missing = exc.args[0]
        what = "note" if reply_to is not None and missing in (reply_to, args.reply_to) else "item"
        raise CliError(
            f"no cached {what} with id {missing!r} (sync first, or check the id)",
            EXIT_NOT_FOUND,
        ) from None
    except ValueError as exc:
        raise CliError(f"cannot write the note: {exc}", EXIT_USAGE) from None
    print(f"queued: note {result.op.external_id if result.op else ''}".rstrip())
    sys.stdout.flush()
    return _send_queued(session, outbox, "note queued")


def _send_queued(session: Session, outbox: Any, what: str) -> int:
    """Send what was just queued when possible; the exit status ``save`` and ``note`` share.

    While another process syncs the data folder the saves stay queued for it: it sends them
    before it ends (see sync/folder_lock.py), and two processes sending at once could send
    one save twice.
    """
    from memex_desktop.store import KnownStoreError
    from memex_desktop.sync.folder_lock import release_and_hand_over

    if not session.has_credentials():
        print(f"{what}; no API key yet, sent by the next `{PROG} sync`")
        return EXIT_OK
    lock = session.folder_lock()
    if not lock.acquire(wait_s=SAVE_LOCK_WAIT_S):
        print(
            f"{what}; {session.held_by()} is syncing this data folder and sends it before "
            f"it ends (or, should it fail, the next `{PROG} sync` does)"
        )
        return EXIT_OK
    engine = session.engine()
    waiting = {op.id for op in outbox.list(states=["queued", "sending"])}
    try:
        report = engine.drain_outbox(resume_paused=True, max_wait_s=20.0)
    except KnownStoreError as exc:
        # The cache could not take the server's answer; the outbox knows what was sent.
        return _sent_without_cache(session, outbox, waiting, exc)
    if report.ok:
        for drained in release_and_hand_over(
            lock, outbox, lambda: engine.drain_outbox(max_wait_s=20.0)
        ):
            report = replace(
                report,
                sent=report.sent + drained.sent,
                needs_attention=report.needs_attention + drained.needs_attention,
            )
    lock.release()
    pending = outbox.pending_count()
    if report.state in (ConnectionState.OFFLINE, ConnectionState.SERVER_DOWN):
        said = session.words(report.error) if report.error else state_message(report.state)
        waiting_saves = _counted(pending, "save")
        print(f"{said.text} {what}; {waiting_saves} in the outbox, sent by the next `{PROG} sync`")
        return EXIT_OK
    if not report.ok:
        return _report_failure(report, session)
    print(f"sent: {report.sent}" + (f", {pending} still queued" if pending else ""))
    if report.needs_attention:
        print(
            f"{PROG}: {_counted(report.needs_attention, 'save')} refused by the server; "
            f"see `{PROG} outbox`",
            file=sys.stderr,
        )
        return EXIT_FAILURE
    return EXIT_OK


def _sent_without_cache(session: Session, outbox: Any, waiting: set[int], exc: Exception) -> int:
    """What a send whose answer the cache could not take did, said from the outbox: the
    saves it sent are sent (exit 0), the others still queued for the next sync."""
    print(f"{PROG}: {session.words(exc).one_line()}", file=sys.stderr)
    states = {op.id: op.state for op in outbox.list() if op.id in waiting}
    sent = sum(state in ("accepted", "confirmed") for state in states.values())
    pending = outbox.pending_count()
    later = f", {pending} still queued for the next `{PROG} sync`" if pending else ""
    print(f"sent: {sent}{later}; the library shows them after the next `{PROG} sync`")
    refused = sum(state == "needs_attention" for state in states.values())
    return EXIT_FAILURE if refused or not sent else EXIT_OK


def cmd_doctor(args: argparse.Namespace, session: Session) -> int:
    """Probe the server (read-only), print the findings, keep the flags and a report."""
    del args
    from memex_desktop.services import explain_findings
    from memex_desktop.sync.doctor import run_doctor

    client = session.client()
    print(f"checking {client.base_url} ...", file=sys.stderr)
    report = explain_findings(run_doctor(client, page_size=session.settings.page_size))
    print(report.table())
    if report.profile is not None:
        session.writer().set_sync_state(report.profile.state_key, report.profile.dump()).result()
    path = report.write(session.data_dir)
    print(f"report written to {path}", file=sys.stderr)
    if report.can_sync:
        return EXIT_OK
    if report.error is not None:
        from memex_desktop.sync import SyncReport, outcome_for

        return _report_failure(SyncReport(outcome_for(report.error), error=report.error), session)
    return EXIT_INCOMPATIBLE


def cmd_outbox(args: argparse.Namespace, session: Session) -> int:
    """List the queued saves, or retry / drop one by id."""
    from memex_desktop.store import KnownStoreError

    if args.action not in ("retry", "drop"):
        if args.op_id is not None:
            raise CliError(
                f"`outbox list` takes no id (`{PROG} outbox retry {args.op_id}` or "
                f"`{PROG} outbox drop {args.op_id}` act on one)",
                EXIT_USAGE,
            )
        if (why := session.read_only_reason()) is not None:
            return _list_frozen(args, session, why)
        if not session.data_dir.is_file() and not paths.outbox_db_path(session.data_dir).exists():
            # Nothing was ever queued here: said without making the folder or its outbox (a
            # mistyped --data-dir would otherwise be left behind as a new, empty one).
            _print_ops([], json_output=args.json, paused=None)
            return EXIT_OK
        try:
            outbox = session.outbox()
            ops, paused = outbox.list(), outbox.paused_reason()
        except KnownStoreError as exc:
            # Too new to open, or no room to: the saves are still shown, read without writing.
            return _list_read_only(args, session, exc)
        _print_ops(ops, json_output=args.json, paused=paused, items=_saved_items(session, ops))
        return EXIT_OK
    if not args.op_id:
        raise CliError(
            f"`outbox {args.action}` needs the id of an operation (see `{PROG} outbox list`)",
            EXIT_USAGE,
        )
    op_id = _op_id(args.op_id)
    outbox = session.outbox()
    op = outbox.get(op_id)
    if op is None:
        raise CliError(
            f"no operation with id {op_id} in the outbox (see `{PROG} outbox list`)",
            EXIT_NOT_FOUND,
        )
    if args.action == "retry":
        if op.state not in RETRYABLE_STATES:
            # As the window's Retry: a save on its way or accepted would be sent twice.
            raise CliError(
                f"operation {op_id} is “{save_state_words(op.state)}”: only one that is "
                "queued or needs attention can be retried",
                EXIT_USAGE,
            )
        outbox.retry(op_id)
        if outbox.paused_reason() is not None:
            outbox.resume()
        print(f"queued again: {args.op_id}")
    else:
        from memex_desktop.store.errors import SaveBeingSent
        from memex_desktop.sync.folder_lock import drop_save

        try:
            dropped = drop_save(outbox, op_id, paths.sync_lock_path(session.data_dir))
        except SaveBeingSent as exc:
            raise CliError(user_message(exc).one_line(), EXIT_BUSY) from exc
        if not dropped:  # sent and cleared away meanwhile
            raise CliError(f"no operation with id {op_id} in the outbox any more", EXIT_NOT_FOUND)
        print(f"dropped: {args.op_id}")
    return EXIT_OK


def _list_read_only(args: argparse.Namespace, session: Session, exc: BaseException) -> int:
    """List an outbox that cannot be opened (``exc`` says why) from a read-only look."""
    from memex_desktop.store.outbox import read_only_ops

    path = paths.outbox_db_path(session.data_dir)
    if not path.exists():
        raise exc
    ops = read_only_ops(path)
    print(f"{PROG}: {session.words(exc).one_line()}", file=sys.stderr)
    print(f"{PROG}: {path.name} shown read-only; nothing was changed", file=sys.stderr)
    _print_ops(ops, json_output=args.json, paused=None, items=_saved_items(session, ops))
    return EXIT_OK


def _list_frozen(args: argparse.Namespace, session: Session, why: str) -> int:
    """List the outbox of a data folder that cannot be written, read without writing."""
    from memex_desktop.store.outbox import read_only_ops

    path = paths.outbox_db_path(session.data_dir)
    session.note_read_only(why)
    ops = read_only_ops(path) if path.exists() else []
    _print_ops(ops, json_output=args.json, paused=None, items=_saved_items(session, ops))
    return EXIT_OK


def _saved_items(session: Session, ops: list[OutboxOp]) -> Mapping[str, SavedItem]:
    """The items the queued notes and highlights are on, for their descriptions.

    Read from the cache as it is: a listing never makes, migrates or writes a cache, so
    without a current, readable one the saves are told by their own words.
    """
    from memex_desktop.store.save_description import queued_items, saved_items, target_ids
    from memex_desktop.store.schema import SCHEMA_VERSION, file_schema_version

    cache = paths.cache_db_path(session.data_dir)
    try:
        if target_ids(ops) and file_schema_version(cache) == SCHEMA_VERSION:
            return saved_items(session.reader(), ops)
    except (CliError, StoreError) as exc:
        _log.info("the outbox is listed without the cache's titles: %s", exc)
    return queued_items(ops)


def _print_ops(
    ops: list[OutboxOp],
    *,
    json_output: bool,
    paused: Any,
    items: Mapping[str, SavedItem] | None = None,
) -> None:
    """The outbox listing: one line per operation saying what it saves (and why it failed),
    or JSON."""
    from memex_desktop.store.save_description import describe_save

    if json_output:
        print(
            json.dumps(
                [{**_op_json(op), "description": describe_save(op, items)} for op in ops],
                ensure_ascii=False,
            )
        )
        return
    if paused is not None:
        print(f"paused: {failure_message(paused.kind).text}")
    if not ops:
        print("the outbox is empty")
    for op in ops:
        line = f"{op.id}  {save_state_words(op.state):<{STATE_WIDTH}} {describe_save(op, items)}"
        if op.attempts:
            line += f"  (attempts: {op.attempts})"
        print(line)
        if (op.reason or op.error_kind) and op.state in ("queued", "needs_attention"):
            print(f"    {_failure_words(op).one_line()}")


# The width of `outbox list`'s state column: its longest words.
STATE_WIDTH = max(len(words) for words in SAVE_STATE_WORDS.values())


def _failure_words(op: Any) -> UserMessage:
    """Why an operation's last attempt failed, in the person's words."""
    return failure_message(op.error_kind, op.reason, op.attempts)


# The states `outbox retry` queues again (the window's Retry button takes the same).
RETRYABLE_STATES = ("queued", "needs_attention")


def _op_id(text: str) -> int:
    """Outbox operation ids are the numbers `outbox list` prints."""
    if not (text.isascii() and text.isdigit()) or int(text) > MAX_INT:
        raise CliError(
            f"not an outbox operation id: {text!r} (ids are the numbers `{PROG} outbox list` "
            "prints)",
            EXIT_USAGE,
        )
    return int(text)


def _op_json(op: Any) -> dict[str, Any]:
    """An outbox operation as a JSON object (the payload left out: it may be large)."""
    return {
        "id": op.id,
        "kind": op.kind,
        "state": op.state,
        "url": op.url,
        "normalized_url": op.normalized_url,
        "external_id": op.external_id,
        "attempts": op.attempts,
        "error_kind": op.error_kind,
        "reason": op.reason,
        "entity_id": op.entity_id,
        "created_at": op.created_at,
        "updated_at": op.updated_at,
    }


# --------------------------------------------------------------------------- export / import


def cmd_export(args: argparse.Namespace, session: Session) -> int:
    """Write the whole cache to DIR as one JSON library file or a folder of Markdown."""
    from memex_desktop.sync import SyncProgress
    from memex_desktop.sync.export import export_json, export_markdown
    from memex_desktop.sync.summary import exported_sentence

    printer = None if args.quiet else _StderrProgress(sys.stderr)

    def progress(done: int, total: int) -> None:
        if printer is not None:
            words = exported_sentence(done, total)
            printer(SyncProgress("export", done, None, words), last=done >= total)

    directory: Path = args.directory
    if directory.exists() and not directory.is_dir():
        raise CliError(
            f"the export folder {directory} is a file: give `export` a folder (one that does "
            "not exist yet is made)",
            EXIT_USAGE,
        )
    reader = session.reader()
    try:
        if args.format == "json":
            path = export_json(reader, directory, progress)
        else:
            path = export_markdown(reader, directory, progress)
    except OSError as exc:
        if exc.errno not in _EXPORT_FOLDER_ERRORS:
            raise
        # The words name the data folder as the fix; here the folder is the one given.
        words = replace(session.words(exc), action="Give `export` another folder to write into")
        raise CliError(words.one_line()) from exc
    print(f"exported to {path}")
    return EXIT_OK


# Errors making or writing into the export folder that choosing another one fixes: a file in
# the way, no permission to write there, a place where no folder can be made.
_EXPORT_FOLDER_ERRORS = (
    errno.EEXIST,
    errno.ENOTDIR,
    errno.ENOENT,
    errno.EACCES,
    errno.EPERM,
    errno.EROFS,
)


def cmd_import(args: argparse.Namespace, session: Session) -> int:
    """Load a JSON export, a library file or a library in JSON Lines into the cache.

    JSON Lines (by its name or its first line) is read as a stream, a batch of items at a
    time; its unreadable lines are skipped and named, the rest imported, and the exit
    status is then 1.
    """
    from memex_desktop.sync.export import EXPORT_FILE_NAME, import_json
    from memex_desktop.sync.library_import import (
        file_problem,
        import_library_lines,
        is_library_lines,
    )

    path: Path = args.file
    try:
        problem = file_problem(path)
        lines = problem is None and is_library_lines(path)
    except FileNotFoundError:
        raise CliError(f"no such file: {path}", EXIT_NOT_FOUND) from None
    except PermissionError:
        raise CliError(f"{path} cannot be read: permission denied") from None
    if problem is not None:
        if path.is_dir():
            inside = path / EXPORT_FILE_NAME
            hint = f" such as {inside}" if inside.is_file() else ""
            raise CliError(f"{problem}: give `import` an export file{hint}", EXIT_USAGE)
        empty = path.is_file()  # a regular file with nothing in it, not a device
        raise CliError(f"{problem}: nothing was imported", EXIT_FAILURE if empty else EXIT_USAGE)
    if not lines:
        try:
            count = import_json(session.writer(), path)
        except ValueError as exc:
            raise CliError(str(exc)) from exc
        print(f"imported {_counted(count, 'item')}")
        return EXIT_OK
    report = import_library_lines(session.writer(), path)
    print(f"imported {_counted(report.imported, 'item')}")
    if not report.skipped:
        return EXIT_OK
    numbers = sorted(report.skipped_lines)
    named = ", ".join(str(number) for number in numbers[:20])
    more = f" and {report.skipped - 20:,} more" if report.skipped > 20 else ""
    print(
        f"{PROG}: {path}: {_counted(report.skipped, 'line')} could not be read and "
        f"{'was' if report.skipped == 1 else 'were'} skipped (not JSON, or no item in it): "
        f"line{'s' if report.skipped != 1 else ''} {named}{more}",
        file=sys.stderr,
    )
    return EXIT_FAILURE


# --------------------------------------------------------------------------- emulator / bench


def cmd_login(args: argparse.Namespace, session: Session) -> int:
    """Sign in through the browser; the tokens go to the keyring (or memory without one)."""
    from memex_desktop import signin
    from memex_desktop.api.oauth import SignInCancelled, SignInError

    def show_url(url: str) -> None:
        print(
            f"Open this address in a web browser to sign in to Memex:\n\n  {url}\n", file=sys.stderr
        )
        sys.stderr.flush()

    from memex_desktop.api.urls import normalized_api_url

    normalized_api_url(session.api_url)  # an address that cannot be used: one line, nothing before
    how = "with the address printed below" if args.no_browser else "in the browser"
    print(f"Signing in to {session.api_url} {how} (Ctrl-C cancels) ...", file=sys.stderr)
    try:
        signin.sign_in(
            session.api_url,
            open_browser=(lambda _url: False) if args.no_browser else None,
            show_url=show_url,
            timeout_s=args.timeout,
        )
    except SignInCancelled as exc:
        raise CliError(exc.message, EXIT_CANCELLED) from exc
    except SignInError as exc:
        raise CliError(exc.message, EXIT_AUTH) from exc
    print(f"signed in to {session.api_url}")
    if not signin.tokens_outlive_process():
        print(
            f"{PROG}: no system keyring: the sign-in is kept in memory and ends with this command",
            file=sys.stderr,
        )
    return EXIT_OK


def cmd_logout(args: argparse.Namespace, session: Session) -> int:
    """Forget the sign-in tokens of this API URL (and ask the server to revoke them)."""
    from memex_desktop import signin

    if signin.sign_out(session.api_url):
        print(f"signed out of {session.api_url}")
    else:
        print(f"not signed in to {session.api_url}")
    return EXIT_OK


def cmd_emulator(args: argparse.Namespace, session: Session | None) -> int:
    """Serve a Memex-compatible API on loopback until interrupted."""
    del session
    from memex_desktop.emulator import EmulatorConfig, serve
    from memex_desktop.emulator.library import LibraryFileError
    from memex_desktop.emulator.server import ListenError, check_can_listen

    library: dict[str, Any] | None = None
    library_path: Path | None = args.library
    media_dir: Path | None = args.media
    if media_dir is not None and not media_dir.is_dir():
        raise CliError(f"no such folder of pictures: {media_dir}", EXIT_NOT_FOUND)
    if args.generate:
        from memex_desktop.emulator.synthetic import generate_library

        library = generate_library(args.generate)
    elif library_path is None:
        try:
            demo = paths.resource_path("demo", "library.json")
        except FileNotFoundError:
            demo = None
        library_path = demo if demo is not None and demo.is_file() else None
        if media_dir is None and library_path is not None:
            # The demo library's items show pictures the emulator serves beside it.
            pictures = library_path.parent / "media"
            media_dir = pictures if pictures.is_dir() else None
    else:
        library = _library_to_serve(library_path)
        if library is not None:
            library_path = None
    options: dict[str, Any] = {}
    if getattr(args, "api_key", None):
        options["api_key"] = args.api_key
    elif os.environ.get(API_KEY_ENV):
        options["api_key"] = os.environ[API_KEY_ENV]
    if args.balance_micros is not None:
        options["balance_micros"] = args.balance_micros
    if args.max_page_size is not None:
        options["max_page_size"] = args.max_page_size
    if args.processing_delay is not None:
        options["processing_delay_s"] = args.processing_delay
    options["latency_ms"] = args.latency_ms
    options["bandwidth_kbps"] = args.bandwidth_kbps
    from memex_desktop.emulator.config import profile_settings

    switches = profile_settings(args.profile)
    switches.update(
        ignore_offset=args.ignore_offset, ignore_sort_by=args.ignore_sort_by, moved_to=args.moved_to
    )
    if args.max_page_size is None:
        options.setdefault("max_page_size", switches.pop("max_page_size"))
    else:
        switches.pop("max_page_size", None)
    config = EmulatorConfig(
        library_path=library_path, library=library, media_dir=media_dir, **switches, **options
    )
    try:
        check_can_listen(args.host, args.port)
    except ListenError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    where = f"http://{args.host}:{args.port}" if args.port else f"a free port of {args.host}"
    print(f"Memex emulator: loading its library for {where}…", file=sys.stderr)

    def ready(url: str) -> None:
        # The demo's key is no secret, and nothing works without it; a key given is said
        # by where it came from, never printed (MEMEX_API_KEY may hold a real key).
        given = "api_key" in options
        accepted = "the API key given" if given else f"API key {config.api_key}"
        print(f"Memex emulator on {url}, ready ({accepted})", file=sys.stderr, flush=True)

    try:
        serve(config, host=args.host, port=args.port, ready=ready)
    except (LibraryFileError, ListenError) as exc:  # a line of a JSON Lines library, a port
        raise CliError(str(exc), EXIT_USAGE) from None
    return EXIT_OK


def _library_to_serve(path: Path) -> dict[str, Any] | None:
    """The library file the emulator was given, read before it starts so a file that is not
    one is said in one line: a JSON library decoded, None for JSON Lines (read as served,
    its first line checked here)."""
    from memex_desktop.emulator.library import (
        LibraryFileError,
        is_library_lines,
        load_library_file,
        read_library_lines,
    )

    if path.is_dir():
        raise CliError(f"{path} is a folder, not a library file", EXIT_USAGE)
    if not path.is_file():
        raise CliError(f"no such library file: {path}", EXIT_NOT_FOUND)
    try:
        if is_library_lines(path):
            read_library_lines(path)
            return None
        return load_library_file(path)
    except LibraryFileError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None


def cmd_bench(args: argparse.Namespace, session: Session | None) -> int:
    """Run every benchmark module of the source checkout; a table or one JSON object."""
    del session
    from memex_desktop.bench import BenchError, format_table, run_benchmarks

    try:
        results = run_benchmarks(args.entities, only=args.only, log=sys.stderr)
    except BenchError as exc:
        raise CliError(str(exc)) from exc
    if args.json:
        merged: dict[str, float] = {}
        for measures in results.values():
            merged.update(measures)
        print(json.dumps(merged, sort_keys=True))
    else:
        print(format_table(results))
    return EXIT_OK


# --------------------------------------------------------------------------- main


_NEEDS_NO_SESSION = {"emulator", "bench"}


def _configure_logging(verbosity: int) -> None:
    """Warnings to stderr by default; -v info, -vv debug."""
    level = logging.WARNING if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``memex-desktop``; returns the exit status."""
    parser = build_parser()
    arguments = list(sys.argv[1:] if argv is None else argv)
    # A memex:// link without a subcommand (what the desktop file's %u passes) opens the window
    # on that item; argparse cannot take an optional positional next to subcommands.
    url = None
    if not any(argument in subcommands(parser) for argument in arguments):
        url = next((a for a in arguments if a.lower().startswith("memex:")), None)
        if url is not None:
            arguments.remove(url)
    args = parser.parse_args(_query_words_last(parser, arguments))
    args.url = url
    _configure_logging(getattr(args, "verbose", 0) or 0)
    command = getattr(args, "command", None)
    if command is None:
        app = importlib.import_module("memex_desktop.app")
        result: int = app.run_gui(args)
        return result
    session: Session | None = None
    try:
        if command not in _NEEDS_NO_SESSION:
            session = Session.from_args(args)
            # A command's pages and rows churn through memory (see runtime.py: about 1.35
            # times the sync rate); the window settles its own process in app.run_gui.
            settle_garbage_collector()
            return_freed_memory_periodically()
        status: int = args.handler(args, session)
        return status
    except CliError as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return exc.exit_code
    except BadApiUrl as exc:  # --api-url, MEMEX_API_URL or the setting: fixed by the person
        print(f"{PROG}: {user_message(exc).one_line()}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{PROG}: {STOPPED.one_line()}", file=sys.stderr)
        return EXIT_CANCELLED
    except BrokenPipeError:
        # The reader of the output left (`search … | head`): nothing is wrong, and Python's
        # flush at exit must not report the closed pipe either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except (ApiError, StoreError, OSError, sqlite3.Error) as exc:
        return _print_error(exc, session)
    finally:
        if session is not None:
            session.close()


def _print_error(exc: BaseException, session: Session | None) -> int:
    """One line on stderr for an expected failure; its exit status."""
    from memex_desktop.sync import outcome_for

    message = session.words(exc) if session is not None else user_message(exc)
    print(f"{PROG}: {message.one_line()}", file=sys.stderr)
    _log.debug("command failed", exc_info=exc)
    return exit_status(outcome_for(exc))


if __name__ == "__main__":
    raise SystemExit(main())
