"""memex-desktop: a local-first desktop knowledge browser for Memex."""

__version__ = "0.1.0"
