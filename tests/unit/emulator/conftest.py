"""Fixtures of the emulator tests."""

from support.emulator import emulator, emulator_factory  # noqa: F401
