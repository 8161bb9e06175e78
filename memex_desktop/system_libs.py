"""The system libraries Qt's window plugin needs on Linux, and how to install what is missing.

The PySide6 wheel brings Qt itself but not the X11/xcb libraries its platform plugin links
against. When one is missing Qt aborts naming ``xcb-cursor0`` whatever is really absent, so
this asks the dynamic linker (``ldd`` on the plugin Qt will load) and names the Debian
packages. ``python -m memex_desktop.system_libs --install`` installs them when it runs as root
on a system with apt-get, and otherwise prints the one command to run. No Qt is imported.

The window runs :func:`start_up_problem` before it creates its QApplication: a load of the
plugin Qt is about to load anyway (about 2 ms, work Qt then does not repeat), and ``ldd`` only
when that load failed for a missing library, to name every one.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "MissingLibraries",
    "debian_package",
    "install_command",
    "libraries_missing_at_start",
    "main",
    "missing_libraries",
    "not_found_in_ldd_output",
    "platform_plugin",
    "start_up_problem",
]

# Sonames whose Debian package is not named after them by the usual rule.
_PACKAGE_EXCEPTIONS = {
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libgobject-2.0.so.0": "libglib2.0-0",
    "libgio-2.0.so.0": "libglib2.0-0",
    "libz.so.1": "zlib1g",
    "libbrotlidec.so.1": "libbrotli1",
    "libbrotlicommon.so.1": "libbrotli1",
    "libGLdispatch.so.0": "libglvnd0",
    "libgssapi_krb5.so.2": "libgssapi-krb5-2",
}
_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found\s*$", re.MULTILINE)
_SONAME = re.compile(r"^(lib[A-Za-z0-9_+.-]*?)\.so\.(\d+)")
# How the dynamic loader names a library it cannot find (the first one only).
_CANNOT_OPEN = re.compile(r"(\S+\.so[.\d]*): cannot open shared object file")


@dataclass(frozen=True)
class MissingLibraries:
    """What the window plugin cannot find: sonames, and the packages that provide them."""

    plugin: Path
    sonames: tuple[str, ...]

    @property
    def packages(self) -> list[str]:
        """The Debian packages to install, each once, in a stable order."""
        return sorted({debian_package(soname) for soname in self.sonames})


def debian_package(soname: str) -> str:
    """The Debian package that provides ``soname`` (libxcb-icccm.so.4 -> libxcb-icccm4).

    Debian names a library package after its soname: the name in lower case, then its major
    version, with a hyphen between when the name ends in a digit.
    """
    if soname in _PACKAGE_EXCEPTIONS:
        return _PACKAGE_EXCEPTIONS[soname]
    found = _SONAME.match(soname)
    if found is None:
        return soname
    name, version = found.group(1).lower(), found.group(2)
    return f"{name}-{version}" if name[-1].isdigit() else f"{name}{version}"


def not_found_in_ldd_output(output: str) -> tuple[str, ...]:
    """The sonames ``ldd`` reports as ``=> not found``, each once, in its order."""
    return tuple(dict.fromkeys(_NOT_FOUND.findall(output)))


def platform_plugin(environ: Mapping[str, str]) -> str:
    """The name of the platform plugin Qt will load (xcb, wayland, offscreen...)."""
    chosen = environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if chosen:
        return chosen
    if environ.get("WAYLAND_DISPLAY") and environ.get("XDG_SESSION_TYPE") == "wayland":
        return "wayland"
    return "xcb"


def _qt_plugin_dir() -> Path | None:
    """PySide6's platform plugin folder, found without importing Qt."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "Qt" / "plugins" / "platforms"


def missing_libraries(
    environ: Mapping[str, str] | None = None, plugin_dir: Path | None = None
) -> MissingLibraries | None:
    """What the platform plugin Qt will load lacks, or None when nothing can be told missing
    (not Linux, no ldd, no such plugin, or every library found)."""
    import shutil
    import subprocess

    environ = os.environ if environ is None else environ
    if not sys.platform.startswith("linux"):
        return None
    folder = plugin_dir if plugin_dir is not None else _qt_plugin_dir()
    ldd = shutil.which("ldd", path=environ.get("PATH"))
    if folder is None or ldd is None:
        return None
    plugin = folder / f"libq{platform_plugin(environ)}.so"
    if not plugin.is_file():
        return None
    try:
        done = subprocess.run(
            [ldd, str(plugin)], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    sonames = not_found_in_ldd_output(done.stdout)
    return MissingLibraries(plugin, sonames) if sonames else None


def _load(path: str) -> None:
    """Load a shared library as Qt's plugin loader does (raises OSError when it cannot)."""
    import ctypes

    ctypes.CDLL(path, mode=os.RTLD_LAZY | os.RTLD_LOCAL)


def libraries_missing_at_start(
    environ: Mapping[str, str] | None = None,
    plugin_dir: Path | None = None,
    load: Callable[[str], object] = _load,
) -> MissingLibraries | None:
    """What the X11 window plugin lacks, checked cheaply as the window starts on Linux: only
    when Qt will use xcb (QT_QPA_PLATFORM unset or xcb) on a display (DISPLAY set). None when
    the plugin loads, or fails for a reason other than a missing library (Qt then says why)."""
    environ = os.environ if environ is None else environ
    if not sys.platform.startswith("linux") or not environ.get("DISPLAY"):
        return None
    if environ.get("QT_QPA_PLATFORM", "").strip() not in ("", "xcb"):
        return None
    if platform_plugin(environ) != "xcb":
        return None
    folder = plugin_dir if plugin_dir is not None else _qt_plugin_dir()
    plugin = folder / "libqxcb.so" if folder is not None else None
    if plugin is None or not plugin.is_file():
        return None
    try:
        load(str(plugin))
    except OSError as exc:
        first = _CANNOT_OPEN.search(str(exc))
        if first is None:
            return None
        every = missing_libraries({**environ, "QT_QPA_PLATFORM": "xcb"}, folder)
        return every or MissingLibraries(plugin, (first.group(1),))
    return None


def start_up_problem(environ: Mapping[str, str] | None = None) -> str | None:
    """Why the window cannot open and the command that fixes it, or None when it can."""
    missing = libraries_missing_at_start(environ)
    if missing is None:
        return None
    import shutil

    return explanation(missing, as_root=_is_root(), has_apt=shutil.which("apt-get") is not None)


def install_command(packages: Sequence[str], *, as_root: bool) -> list[str]:
    """The command that installs ``packages`` with apt-get (with sudo unless root)."""
    prefix = [] if as_root else ["sudo"]
    return [*prefix, "apt-get", "install", "-y", "--no-install-recommends", *packages]


def _shell(command: Sequence[str]) -> str:
    return " ".join(command)


def explanation(missing: MissingLibraries, *, as_root: bool, has_apt: bool) -> str:
    """What is missing and the command that installs it, for a terminal."""
    lines = [
        "The window cannot open: Qt's window system plugin needs system libraries that are "
        "not installed:",
        *(f"  {soname}" for soname in missing.sonames),
    ]
    if has_apt:
        update = ["apt-get", "update"] if as_root else ["sudo", "apt-get", "update"]
        command = install_command(missing.packages, as_root=as_root)
        lines += ["Install them with:", f"  {_shell(update)} && {_shell(command)}"]
    else:
        lines.append(
            "Install the packages that provide them with your system's package manager "
            f"(on Debian and Ubuntu: {' '.join(missing.packages)})."
        )
    return "\n".join(lines)


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def main(argv: Sequence[str] | None = None, *, as_root: bool | None = None) -> int:
    """Check (and with ``--install``, when root, install) the window's system libraries."""
    import argparse
    import shutil
    import subprocess

    parser = argparse.ArgumentParser(
        prog="python -m memex_desktop.system_libs",
        description="Check the system libraries Qt's window plugin needs on Linux.",
    )
    parser.add_argument(
        "--install", action="store_true", help="install what is missing (root and apt-get)"
    )
    args = parser.parse_args(argv)
    root = _is_root() if as_root is None else as_root
    missing = missing_libraries()
    if missing is None:
        return 0
    apt_get = shutil.which("apt-get")
    if args.install and root and apt_get is not None:
        print(
            f"Installing the libraries Qt's window plugin needs: {' '.join(missing.packages)}",
            file=sys.stderr,
        )
        for command in (
            ["apt-get", "update", "-qq"],
            install_command(missing.packages, as_root=True),
        ):
            if subprocess.run(command, check=False).returncode != 0:
                print(f"`{_shell(command)}` failed.", file=sys.stderr)
                return 1
        still = missing_libraries()
        if still is None:
            return 0
        missing = still
    print(explanation(missing, as_root=root, has_apt=apt_get is not None), file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
