"""Fixtures of the sync and command-line end-to-end tests.

Every test here that starts an emulator with ``library_emulator`` runs against both emulator
profiles (``default`` and ``first-party``, see ``memex_desktop.emulator.config``) unless it
names a profile itself: the sync, the outbox and the command line must hold whichever way the
real service pages, identifies items and takes notes.
"""

from collections.abc import Iterator
from typing import Any

import pytest
from support.sync_env import emulators


@pytest.fixture
def library_emulator(emulator_profile: str) -> Iterator[Any]:
    """``library_emulator(library, profile=None, **config)``: the run's profile by default."""
    with emulators(emulator_profile) as start:
        yield start


@pytest.fixture
def one_profile_emulator() -> Iterator[Any]:
    """``one_profile_emulator(library, profile="default", **config)``, for tests that name
    the one profile (or variant) they are about: they run once."""
    with emulators() as start:
        yield start
