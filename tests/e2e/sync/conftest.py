"""Fixtures of the sync and command-line end-to-end tests."""

from support.sync_env import harness_factory, library_emulator  # noqa: F401
