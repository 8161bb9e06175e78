"""Fixtures of the sync tests."""

from support.sync_env import harness_factory, library_emulator  # noqa: F401
