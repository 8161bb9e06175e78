"""A Memex-compatible API server (Starlette + uvicorn) for ``--demo``, tests and development.

Same paths, auth headers and response shapes as the service (response-shape.txt), its own
SQLite store, usage metering, asynchronous processing of saves and switchable faults.
See :mod:`memex_desktop.emulator.search` for how listing and notes behave, and
:func:`profile_settings` for the profile that disagrees with the client (``first-party``).
"""

from memex_desktop.emulator.config import PROFILES, EmulatorConfig, profile_settings
from memex_desktop.emulator.faults import Faults
from memex_desktop.emulator.server import RunningEmulator, run_emulator_in_thread, serve
from memex_desktop.emulator.state import EmulatorState, RequestRecord

__all__ = [
    "PROFILES",
    "EmulatorConfig",
    "EmulatorState",
    "Faults",
    "RequestRecord",
    "RunningEmulator",
    "profile_settings",
    "run_emulator_in_thread",
    "serve",
]
