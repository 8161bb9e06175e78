"""A window whose lists follow a first sync while it runs: a server slow enough that the sync
takes seconds, the window refreshing its list often, and the count the sidebar shows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memex_desktop.emulator import RunningEmulator
from memex_desktop.emulator.synthetic import generate_library
from memex_desktop.settings import Settings
from memex_desktop.ui.sidebar import ALL_ITEMS, SidebarModel
from support.emulator import EmulatorFactory
from support.window import WindowFactory

if TYPE_CHECKING:
    from memex_desktop.app import AppContext

REFRESH_MS = 150  # how often a list follows a sync in these tests (a second in the app)


def slow_server(
    emulator_factory: EmulatorFactory,
    size: int,
    *,
    seed: int,
    words_per_entity: int,
    answer_delay_s: float,
) -> RunningEmulator:
    """An emulator holding a generated library of ``size`` items, each answer held back
    ``answer_delay_s``."""
    library = generate_library(size, seed=seed, words_per_entity=words_per_entity)
    running = emulator_factory(library=library)
    running.faults.latency(answer_delay_s)
    return running


def window_following_sync(
    window_factory: WindowFactory, server: RunningEmulator, settings: Settings
) -> AppContext:
    """The window on a fresh data folder, talking to ``server`` with ``settings``, its list
    read again every REFRESH_MS while a sync runs."""
    context = window_factory(server=server, settings=settings)
    context.window.search.sync_refresh_ms = REFRESH_MS
    return context


def all_items_count(context: AppContext) -> int:
    """The number the sidebar shows beside All items (0 before any count)."""
    model = context.window.sidebar.sidebar_model
    count = model.data(model.index_of(ALL_ITEMS.key), SidebarModel.CountRole)
    return count if isinstance(count, int) else 0
