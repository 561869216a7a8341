"""Partition files read and decoded in processes of their own.

Decoding a capture line (JSON framing, base64) costs several times what sending the record
does, so a folder's partitions are read by child processes (``python -m`` this module: a fresh
interpreter that imports only the reading code), each writing ready chunks (``chunks.py``) to
its standard output as length-prefixed pickles. The pipe's buffer bounds how far a reader runs
ahead of the sender. The sender process then does what a raw producer does, and decoding runs
on the machine's other cores.
"""

from __future__ import annotations

import contextlib
import pickle
import struct
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from tisink.core.errors import TisinkError
from tisink.eventsink.replay.chunks import Chunk, to_chunk
from tisink.eventsink.replay.errors import ReplayError
from tisink.eventsink.replay.records import read_partition_file

_LENGTH = struct.Struct("<I")


def serve(paths: Sequence[tuple[int, Path]], loops: int, chunk: int, out: BinaryIO) -> None:
    """Every pass of the partitions' files, round-robin by chunk, then None; a failure is
    written as its message."""

    def send(item: object) -> None:
        data = pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
        out.write(_LENGTH.pack(len(data)) + data)
        out.flush()

    try:
        for loop in range(loops):
            readers = {p: read_partition_file(path, chunk) for p, path in paths}
            while readers:
                for partition, reader in list(readers.items()):
                    records = next(reader, None)
                    if records is None:
                        del readers[partition]
                    else:
                        send(to_chunk(loop, partition, records))
        send(None)
    except TisinkError as err:
        send(str(err))


class ProcessStream(Iterator[Chunk]):
    """The chunks of some partition files, read by a child process; ``next`` blocks (the
    sender calls it from a thread)."""

    def __init__(self, paths: Sequence[tuple[int, Path]], loops: int, chunk: int) -> None:
        args = [f"{partition}={path}" for partition, path in paths]
        self._process = subprocess.Popen(
            [sys.executable, "-m", __name__, str(loops), str(chunk), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
        )
        assert self._process.stdout is not None
        self._pipe = self._process.stdout
        self._done = False

    def __next__(self) -> Chunk:
        if self._done:
            raise StopIteration
        item = self._receive()
        if isinstance(item, Chunk):
            return item
        self._done = True
        self.close()
        if item is None:
            raise StopIteration
        raise ReplayError(str(item))

    def _receive(self) -> object:
        head = self._pipe.read(_LENGTH.size)
        if len(head) == _LENGTH.size:
            (size,) = _LENGTH.unpack(head)
            data = self._pipe.read(size)
            if len(data) == size:
                return pickle.loads(data)
        code = self._process.wait()
        return f"a replay reader process ended early (exit code {code})"

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.terminate()
        self._process.wait()
        self._pipe.close()


def main(argv: list[str]) -> None:
    loops, chunk = int(argv[0]), int(argv[1])
    paths = [(int(p), Path(path)) for p, path in (arg.split("=", 1) for arg in argv[2:])]
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):  # the sender stopped
        serve(paths, loops, chunk, sys.stdout.buffer)


if __name__ == "__main__":
    main(sys.argv[1:])
