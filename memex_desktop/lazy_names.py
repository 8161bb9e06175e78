"""A package's names imported from their modules when first asked for (PEP 562).

A package whose ``__init__`` imported every module to offer their names imported them all
for whoever needed one light part: ``memex_desktop.store.errors`` brought the reader, the
writer, pydantic and sqlite-utils with it (about 120 ms before a window's first frame).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def names_of_modules(package: str, module_of: Mapping[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: each name of ``module_of`` is imported from the
    module it maps to (relative to the package) when first asked for, then kept."""

    def attribute(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return attribute
