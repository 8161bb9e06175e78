"""The Memex HTTP API: contract models, typed errors and the client. No Qt here."""
