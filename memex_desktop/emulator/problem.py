"""Request validation helpers and the error every handler raises to answer with a status."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from memex_desktop.emulator.library import JsonObject


class ApiProblem(Exception):
    """Answer the request with ``status`` and the JSON ``payload`` (``{"error": ...}``...)."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.payload: JsonObject = {"error": message, **extra}


def reject_unknown_fields(body: JsonObject, allowed: Collection[str], where: str) -> None:
    """400 naming every field of ``body`` the endpoint does not know (strict validation)."""
    unknown = sorted(key for key in body if key not in allowed)
    if unknown:
        raise ApiProblem(
            400,
            f"Unknown parameter(s) for {where}: {', '.join(unknown)}. "
            f"Allowed: {', '.join(sorted(allowed))}.",
        )


def refuse_fields(body: JsonObject, refused: Collection[str], *, nested: str | None = None) -> None:
    """400 ``Unknown field: <name>`` for the first field of ``body`` a server refuses.

    ``refused`` names top-level fields (``"sortBy"``), or fields of the ``nested`` object
    (``"data.id"``); a plain name also matches inside ``nested``. The message names the field
    as it appears in its own object, so a client can drop exactly that key and retry.
    """
    if not refused:
        return
    for key in sorted(body):
        if key in refused:
            raise ApiProblem(400, f"Unknown field: {key}")
    inner = body.get(nested) if nested is not None else None
    if isinstance(inner, dict):
        for key in sorted(inner):
            if key in refused or f"{nested}.{key}" in refused:
                raise ApiProblem(400, f"Unknown field: {key}")


def optional_str(body: JsonObject, key: str) -> str | None:
    """A string field or ``None``; 400 for any other type."""
    value = body.get(key)
    if value is None or isinstance(value, str):
        return value
    raise ApiProblem(400, f"{key} must be a string")


def optional_bool(body: JsonObject, key: str) -> bool | None:
    """A boolean field or ``None``; 400 for any other type."""
    value = body.get(key)
    if value is None or isinstance(value, bool):
        return value
    raise ApiProblem(400, f"{key} must be a boolean")


def optional_int(body: JsonObject, key: str, *, minimum: int) -> int | None:
    """An integer field (at least ``minimum``) or ``None``; 400 otherwise."""
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise ApiProblem(400, f"{key} must be an integer")
    if value < minimum:
        raise ApiProblem(400, f"{key} must be at least {minimum}")
    return int(value)


def optional_number(body: JsonObject, key: str) -> float | None:
    """A number field or ``None``; 400 for any other type."""
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ApiProblem(400, f"{key} must be a number")
    return float(value)


def string_list(body: JsonObject, key: str) -> list[str]:
    """A list of strings (missing or null is empty); 400 for anything else."""
    value = body.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ApiProblem(400, f"{key} must be an array of strings")
    return list(value)


def optional_object(body: JsonObject, key: str) -> JsonObject | None:
    """A JSON object field or ``None``; 400 for any other type."""
    value = body.get(key)
    if value is None or isinstance(value, dict):
        return value
    raise ApiProblem(400, f"{key} must be an object")
