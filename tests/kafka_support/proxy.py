"""A TCP proxy on loopback that cuts connections mid-stream, for fault tests.

It forwards client -> broker bytes and counts them; each time the count passes the next cut
threshold it aborts every open connection, and it can refuse new connections for a while
(an outage). Everything is bounded: a fixed number of cuts, a fixed outage length.
"""

from __future__ import annotations

import asyncio
import contextlib


class FaultProxy:
    """Forwards ``127.0.0.1:listen_port`` to ``127.0.0.1:target_port`` and injects cuts."""

    def __init__(
        self,
        listen_port: int,
        target_port: int,
        *,
        cut_every_bytes: int = 0,
        max_cuts: int = 0,
        outage_seconds: float = 0.0,
    ) -> None:
        self.listen_port = listen_port
        self.target_port = target_port
        self.cut_every_bytes = cut_every_bytes
        self.max_cuts = max_cuts
        self.outage_seconds = outage_seconds
        self.cuts = 0
        self.refused = 0
        self.forwarded = 0
        self._next_cut = cut_every_bytes
        self._writers: set[asyncio.StreamWriter] = set()
        self._refusing_until = 0.0
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.listen_port)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        self._abort_all()
        if self._server is not None:
            await self._server.wait_closed()

    def cut(self) -> None:
        """Abort every open connection now; refuse new ones during the outage."""
        self.cuts += 1
        loop = asyncio.get_running_loop()
        self._refusing_until = loop.time() + self.outage_seconds
        self._abort_all()

    def _abort_all(self) -> None:
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def _accept(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        if asyncio.get_running_loop().time() < self._refusing_until:
            self.refused += 1
            client_w.transport.abort()
            return
        try:
            broker_r, broker_w = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            client_w.transport.abort()
            return
        self._writers.update((client_w, broker_w))
        await asyncio.gather(
            self._pipe(client_r, broker_w, upstream=True),
            self._pipe(broker_r, client_w, upstream=False),
        )

    async def _pipe(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, upstream: bool
    ) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
                if upstream:
                    self._count(len(data))
        except (ConnectionError, OSError):
            pass
        finally:
            self._writers.discard(writer)
            with contextlib.suppress(Exception):
                writer.transport.abort()

    def _count(self, size: int) -> None:
        self.forwarded += size
        if self.cut_every_bytes and self.cuts < self.max_cuts and self.forwarded >= self._next_cut:
            self._next_cut = self.forwarded + self.cut_every_bytes
            self.cut()
