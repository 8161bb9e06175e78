"""Running the emulator: in a background thread (tests, ``--demo``) or blocking (the CLI).

The thread runner binds the listening socket itself, so port 0 reports the real port and a
restart (``stop()`` then ``start()``) listens on the same port with the same state: what an
offline/online test needs. Stopping closes open connections at once and takes well under a
second; the thread is joined, nothing is left behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import socket
import threading
import time
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any

import uvicorn

from memex_desktop.emulator.app import build_app
from memex_desktop.emulator.config import EmulatorConfig
from memex_desktop.emulator.faults import FaultMiddleware, Faults, NetworkShape
from memex_desktop.emulator.state import EmulatorState

_log = logging.getLogger(__name__)
_START_TIMEOUT_S = 10.0
_STOP_TIMEOUT_S = 5.0


def _uvicorn_config(
    app: FaultMiddleware, *, host: str = "127.0.0.1", port: int = 0, embedded: bool
) -> uvicorn.Config:
    """Uvicorn settings of both runners (h11, no lifespan, no websockets).

    Embedded servers leave the process's logging configuration alone and log no access lines.
    """
    logging_options: dict[str, Any] = {"log_config": None} if embedded else {"log_level": "info"}
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http="h11",
        ws="none",
        lifespan="off",
        loop="asyncio",
        timeout_keep_alive=5,
        access_log=False,
        **logging_options,
    )


def network_faults(config: EmulatorConfig) -> Faults:
    """Fault switches, all off, over the network shape the configuration asks for."""
    return Faults(NetworkShape.of(config.latency_ms, config.bandwidth_kbps))


def _bind(host: str, port: int) -> socket.socket:
    """A listening-ready socket on ``host:port`` (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # The explicit protocol matters: asyncio only sets TCP_NODELAY on accepted sockets whose
    # ``proto`` is IPPROTO_TCP, and without it every small response waits ~40 ms for Nagle.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        # Rebinding the same port right after a stop must work (connections in TIME_WAIT).
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


class RunningEmulator:
    """An emulator served from a background thread; also a context manager."""

    def __init__(
        self,
        config: EmulatorConfig,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        state: EmulatorState | None = None,
    ) -> None:
        self.config = config
        self.host = host
        self.port = port
        self.state = state if state is not None else EmulatorState(config)
        self.faults = network_faults(config)
        self.app = build_app(self.state, self.faults)
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop_event: asyncio.Event | None = None
        self._error: BaseException | None = None

    @property
    def api_key(self) -> str:
        """The API key the emulator accepts."""
        return self.config.api_key

    @property
    def base_url(self) -> str:
        """``http://host:port`` of the running server."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def running(self) -> bool:
        """Whether the server thread is serving."""
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> RunningEmulator:
        """Start serving (again), on the same port as before when restarted."""
        if self.running:
            return self
        sock = _bind(self.host, self.port)
        self.port = int(sock.getsockname()[1])
        server = uvicorn.Server(_uvicorn_config(self.app, embedded=True))
        self.app.stopping.clear()
        self._server, self._error = server, None
        thread = threading.Thread(
            target=self._run, args=(server, sock), name=f"memex-emulator-{self.port}", daemon=True
        )
        self._thread = thread
        thread.start()
        deadline = time.monotonic() + _START_TIMEOUT_S
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the emulator did not start: {self._error!r}")
            time.sleep(0.002)
        return self

    def _run(self, server: uvicorn.Server, sock: socket.socket) -> None:
        """Thread body: an event loop of its own running uvicorn on ``sock``."""
        try:
            asyncio.run(self._serve(server, sock))
        except BaseException as exc:  # reported by start()/stop(), the thread must not die loudly
            self._error = exc
            _log.error("emulator server failed: %r", exc)
        finally:
            sock.close()

    async def _serve(self, server: uvicorn.Server, sock: socket.socket) -> None:
        """Serve until told to stop, then shut down at once.

        uvicorn's own loop polls for exit every 0.1 s and pauses again while shutting down;
        tests start and stop an emulator each, so this loop waits on an event instead.
        """
        self._loop = asyncio.get_running_loop()
        stop = self._stop_event = asyncio.Event()
        config = server.config
        if not config.loaded:
            config.load()
        server.lifespan = config.lifespan_class(config)
        await server.startup(sockets=[sock])
        counter = 0
        while not stop.is_set():
            await server.on_tick(counter)  # keeps the Date header current
            counter += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 1.0)
        await self._shutdown(server)

    async def _shutdown(self, server: uvicorn.Server) -> None:
        """Stop listening, drop every connection, let running handlers finish."""
        for listener in server.servers:
            listener.close()
        for connection in list(server.server_state.connections):
            transport = getattr(connection, "transport", None)
            if transport is not None:
                transport.close()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _STOP_TIMEOUT_S
        while server.server_state.tasks and loop.time() < deadline:
            await asyncio.sleep(0.005)
        for listener in server.servers:
            await listener.wait_closed()

    def stop(self) -> None:
        """Stop serving; open connections are dropped. The state is kept for ``start()``."""
        thread, loop, stop = self._thread, self._loop, self._stop_event
        if thread is None:
            return
        self.app.stopping.set()
        if loop is not None and stop is not None and thread.is_alive():
            try:
                loop.call_soon_threadsafe(stop.set)
            except RuntimeError:
                _log.debug("emulator loop already closed while stopping")
        thread.join(_STOP_TIMEOUT_S * 2)
        if thread.is_alive():
            raise RuntimeError("the emulator server thread did not stop")
        self._server = self._thread = self._loop = self._stop_event = None

    def close(self) -> None:
        """Stop and release the state's database."""
        self.stop()
        self.state.close()

    def __enter__(self) -> RunningEmulator:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def run_emulator_in_thread(
    config: EmulatorConfig, host: str = "127.0.0.1", port: int = 0
) -> RunningEmulator:
    """Start an emulator in a background thread and return it once it accepts connections."""
    return RunningEmulator(config, host, port).start()


class ListenError(OSError):
    """The emulator cannot listen where it was asked (the port is taken, the host unknown)."""


def check_can_listen(host: str, port: int) -> None:
    """Raise :class:`ListenError` when nothing can listen at ``host``:``port``: asked before
    serving, since uvicorn's own refusal is a log line and exit status 3 (the one for
    "offline")."""
    try:
        _bind(host, port).close()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ListenError(f"the emulator cannot listen on {host}:{port}: {reason}") from exc


class _SayingWhenReady(uvicorn.Server):
    """A uvicorn server that calls ``ready`` with its address once it accepts connections."""

    def __init__(self, config: uvicorn.Config, ready: Callable[[str], None]) -> None:
        super().__init__(config)
        self._ready = ready

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            bound = [sock.getsockname() for server in self.servers for sock in server.sockets]
            host, port = bound[0][:2] if bound else (self.config.host, self.config.port)
            self._ready(f"http://{host}:{port}")


def serve(
    config: EmulatorConfig,
    host: str = "127.0.0.1",
    port: int = 8787,
    ready: Callable[[str], None] = lambda _url: None,
) -> None:
    """Serve in the calling thread until interrupted (Ctrl-C); what the CLI runs. ``ready``
    is called with the address once connections are accepted: loading a big library first
    takes a while, and a client started before that is refused.

    Raises:
        ListenError: nothing can listen at ``host``:``port`` (said before anything is served).
    """
    check_can_listen(host, port)
    state = EmulatorState(config)
    app = build_app(state, network_faults(config))
    # After its graceful shutdown uvicorn raises the signal that stopped it again, with the
    # handler it found in place: with the default one a `kill` ended the process before the
    # ``finally`` below, leaving the emulator's database (gigabytes for a big library) behind.
    previous = signal.signal(signal.SIGTERM, _exit_on_signal)
    try:
        uvicorn_config = _uvicorn_config(app, host=host, port=port, embedded=False)
        _SayingWhenReady(uvicorn_config, ready).run()
    finally:
        state.close()
        signal.signal(signal.SIGTERM, previous)


def _exit_on_signal(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)
