"""Fixtures of the sign-in tests."""

from support.oauth import fresh_token_store, oauth_emulator  # noqa: F401
