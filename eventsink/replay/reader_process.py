"""Partition files read and decoded in processes of their own.

Decoding a capture line (JSON framing, base64) costs several times what sending the record
does, so a folder's partitions are read by child processes (``spawn``: no state of the sender
is copied), each sending ready chunks (``chunks.py``) through a pipe, at most ``_AHEAD`` chunks
ahead (the pipe's own buffer) of what the sender has taken. The sender process then does what
a raw producer does, and the decoding runs on the machine's other cores.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Sequence
from multiprocessing.connection import Connection
from pathlib import Path

from tisink.core.errors import TisinkError
from tisink.eventsink.replay.chunks import Chunk, to_chunk
from tisink.eventsink.replay.errors import ReplayError
from tisink.eventsink.replay.records import read_partition_file


def serve(paths: Sequence[tuple[int, str]], loops: int, chunk: int, conn: Connection) -> None:
    """The child: every pass of its partitions' files, round-robin by chunk, then None; a
    failure is sent as its message."""
    try:
        for loop in range(loops):
            readers = {p: read_partition_file(Path(path), chunk) for p, path in paths}
            while readers:
                for partition, reader in list(readers.items()):
                    records = next(reader, None)
                    if records is None:
                        del readers[partition]
                    else:
                        conn.send(to_chunk(loop, partition, records))
        conn.send(None)
    except TisinkError as err:
        conn.send(str(err))
    except (BrokenPipeError, KeyboardInterrupt):
        pass  # the sender stopped
    finally:
        conn.close()


class ProcessStream(Iterator[Chunk]):
    """The chunks of some partition files, read by a child process; ``next`` blocks (the
    sender calls it from a thread)."""

    def __init__(self, paths: Sequence[tuple[int, Path]], loops: int, chunk: int) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe(duplex=False)
        self._process = context.Process(
            target=serve,
            args=([(p, str(path)) for p, path in paths], loops, chunk, child),
            name="tisink-replay-reader",
            daemon=True,
        )
        self._process.start()
        child.close()
        self._done = False

    def __next__(self) -> Chunk:
        if self._done:
            raise StopIteration
        try:
            item = self._conn.recv()
        except EOFError:
            item = f"the reader process ended early (exit code {self._process.exitcode})"
        if isinstance(item, Chunk):
            return item
        self._done = True
        self.close()
        if item is None:
            raise StopIteration
        raise ReplayError(str(item))

    def close(self) -> None:
        self._conn.close()
        if self._process.is_alive():
            self._process.terminate()
        self._process.join(5)
