"""Partition files read and decoded in processes of their own.

Decoding a capture line (JSON framing, base64) costs several times what sending the record
does, so a folder's partitions are read by child processes (``python -m`` this module: a fresh
interpreter that imports only the reading code), each writing ready chunks (``chunks.py``) to
its standard output as framed pickles. The pipe's buffer bounds how far a reader runs ahead of
the sender. The sender process then does what a raw producer does, and decoding runs on the
machine's other cores; with ``--loop`` a file is decoded once, the later passes resend the
first pass's frames from a private temporary file (never from the folder: a pickle is only
read back from where this process wrote it).
"""

from __future__ import annotations

import contextlib
import pickle
import struct
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from tisink.core.errors import TisinkError
from tisink.eventsink.replay.chunks import Chunk, to_chunk
from tisink.eventsink.replay.errors import ReplayError
from tisink.eventsink.replay.records import read_partition_file

_HEAD = struct.Struct("<iI")
"""A frame's head: the pass (``_END`` for the last frame) and the length of its pickle."""
_END = -1


def serve(paths: Sequence[tuple[int, Path]], loops: int, chunk: int, out: BinaryIO) -> None:
    """Every pass of the partitions' files, round-robin by chunk, then an end frame (None, or
    a failure's message). The first pass's frames are kept in a private temporary file, so the
    later passes of ``--loop`` are copied from it instead of decoded again."""
    with contextlib.ExitStack() as stack:
        kept = stack.enter_context(tempfile.TemporaryFile()) if loops > 1 else None
        try:
            _first_pass(paths, chunk, out, kept)
            for loop in range(1, loops):
                assert kept is not None
                kept.seek(0)
                while head := kept.read(_HEAD.size):
                    _, size = _HEAD.unpack(head)
                    out.write(_HEAD.pack(loop, size) + kept.read(size))
            _send(out, _END, None)
        except TisinkError as err:
            _send(out, _END, str(err))


def _first_pass(
    paths: Sequence[tuple[int, Path]], chunk: int, out: BinaryIO, kept: BinaryIO | None
) -> None:
    readers = {p: read_partition_file(path, chunk) for p, path in paths}
    while readers:
        for partition, reader in list(readers.items()):
            records = next(reader, None)
            if records is None:
                del readers[partition]
                continue
            frame = _send(out, 0, tuple(to_chunk(0, partition, records))[1:])
            if kept is not None:
                kept.write(frame)


def _send(out: BinaryIO, loop: int, item: object) -> bytes:
    data = pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
    frame = _HEAD.pack(loop, len(data)) + data
    out.write(frame)
    out.flush()
    return frame


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
        loop, item = self._receive()
        if loop != _END:
            return Chunk(loop, *item)
        self._done = True
        self.close()
        if item is None:
            raise StopIteration
        raise ReplayError(str(item))

    def _receive(self) -> tuple[int, Any]:
        head = self._pipe.read(_HEAD.size)
        if len(head) == _HEAD.size:
            loop, size = _HEAD.unpack(head)
            data = self._pipe.read(size)
            if len(data) == size:
                return loop, pickle.loads(data)
        code = self._process.wait()
        return _END, f"a replay reader process ended early (exit code {code})"

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
