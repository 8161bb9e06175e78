"""Shared test helpers (fixtures are imported by the conftest files that use them)."""
