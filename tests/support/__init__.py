"""Shared test helpers; the fixture modules are registered as plugins by ``tests/conftest.py``."""
