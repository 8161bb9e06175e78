"""Pictures a library's items show, served by the emulator as a web site would serve them.

A library's items name their pictures by the sites they came from
(``https://media.example.com/images/worm-compost.jpg``), which do not exist. With a media
folder the emulator stands in for those sites: the folder holds each picture under its site
and path (``media.example.com/images/worm-compost.jpg``), ``GET /media/<site>/<path>`` serves
it, and every answer names the picture at that address of the emulator instead, so the reader
loads it when the person asks. Pictures need no credentials, as on any web site.
"""

from __future__ import annotations

import logging
from pathlib import Path

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

log = logging.getLogger(__name__)

MEDIA_PATH = "/media"
_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".svg": "image/svg+xml",
}


class MediaFiles:
    """The pictures of a media folder: served, and named in answers by the emulator's address."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder.resolve() if folder is not None else None
        # The address each picture has in the library, and its path inside the folder.
        self.addresses: dict[str, str] = {}
        if self.folder is not None and self.folder.is_dir():
            for file in sorted(self.folder.rglob("*")):
                if file.is_file() and file.suffix.lower() in _TYPES:
                    inside = file.relative_to(self.folder).as_posix()
                    for scheme in ("https", "http"):
                        self.addresses[f"{scheme}://{inside}"] = inside
        # Longest first, so that no address is rewritten inside a longer one.
        self._order = sorted(self.addresses, key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self.addresses)

    def rewrite(self, body: str, base_url: str) -> str:
        """``body`` (a JSON answer) with each picture's address pointing at ``base_url``."""
        if not self.addresses:
            return body
        base = base_url.rstrip("/") + MEDIA_PATH
        for address in self._order:
            if address in body:
                body = body.replace(address, f"{base}/{self.addresses[address]}")
        return body

    async def endpoint(self, request: Request) -> Response:
        """``GET /media/<site>/<path>``: the picture, or 404 for anything outside the folder."""
        inside = str(request.path_params.get("path", ""))
        file = self._file(inside)
        if file is None:
            return JSONResponse({"error": f"No picture at {MEDIA_PATH}/{inside[:200]}"}, 404)
        return Response(file.read_bytes(), media_type=_TYPES[file.suffix.lower()])

    def _file(self, inside: str) -> Path | None:
        """The picture file at ``inside``, never a path that leaves the folder."""
        if self.folder is None:
            return None
        candidate = (self.folder / inside).resolve()
        if not candidate.is_relative_to(self.folder) or not candidate.is_file():
            return None
        return candidate if candidate.suffix.lower() in _TYPES else None
