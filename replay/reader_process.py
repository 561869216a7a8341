"""Partition files read and decoded in processes of their own.

Decoding a capture line (JSON framing, base64) costs several times what sending the record
does, so a folder's partitions are read by child processes (``python -m`` this module: a fresh
interpreter that imports only the reading code), each writing ready chunks (``chunks.py``) to
its standard output as framed pickles. The pipe (widened to ``_PIPE_BYTES`` where Linux allows,
so a frame takes a few system calls, not dozens) bounds how far a reader runs ahead of the
sender. The sender process then does what a raw producer does, and decoding runs on the
machine's other cores. With ``--loop`` a file is read and decoded once: the sender keeps the
first pass's frames in a private temporary file as they arrive and reads the later passes from
it (a pickle is only read back from where this process wrote it), so the later passes cost
neither a reader process nor a pipe. A small folder's chunks (``hold``) are kept as they are
instead: the later passes then cost no unpickling either (about a tenth of a pass's CPU). A
thread of the sender receives the frames as the reader writes them, into a queue: all of them
for a held folder (its chunks are kept anyway), ``READ_AHEAD_FRAMES`` ahead of the sender for
a larger one. So the reader is not stopped by a full pipe (1 MiB, about two frames of demo
records) while the target opens or the sender waits for acknowledgements.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import pickle
import queue
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any, BinaryIO

from tisink.core.errors import TisinkError
from tisink.replay.chunk_reader import read_chunks
from tisink.replay.chunks import Chunk
from tisink.replay.errors import ReplayError

_HEAD = struct.Struct("<iI")
"""A frame's head: the pass (``_END`` for the last frame) and the length of its pickle."""
_END = -1
_PIPE_BYTES = 1 << 20
READ_AHEAD_FRAMES = 32
"""Frames a stream of a folder too large to hold receives ahead of the sender (about 20 MB of
demo records)."""


def serve(paths: Sequence[tuple[int, Path]], chunk: int, out: BinaryIO) -> None:
    """The partitions' files, round-robin by chunk, then an end frame (None, or a failure's
    message)."""
    try:
        readers = {p: read_chunks(path, p, chunk) for p, path in paths}
        while readers:
            for partition, reader in list(readers.items()):
                read = next(reader, None)
                if read is None:
                    del readers[partition]
                    continue
                _send(out, 0, tuple(read)[1:])
        _send(out, _END, None)
    except TisinkError as err:
        _send(out, _END, str(err))


def _send(out: BinaryIO, loop: int, item: object) -> None:
    data = pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(_HEAD.pack(loop, len(data)))
    out.write(data)
    out.flush()


class ProcessStream(Iterator[Chunk]):
    """``loops`` passes of some partition files' chunks, the first read by a child process,
    the later ones from the frames kept of the first; ``next`` blocks (the sender calls it from
    a thread)."""

    def __init__(
        self, paths: Sequence[tuple[int, Path]], loops: int, chunk: int, hold: bool = False
    ) -> None:
        args = [f"{partition}={path}" for partition, path in paths]
        self._process = subprocess.Popen(
            [sys.executable, "-m", __name__, str(chunk), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
        )
        assert self._process.stdout is not None
        self._pipe = self._process.stdout
        _widen(self._pipe)
        self._loops = loops
        self._loop = 0
        self._held: list[Any] | None = [] if loops > 1 and hold else None
        """With ``hold``: the first pass's chunks themselves, for the later passes."""
        self._at = 0
        self._kept: BinaryIO | None = (
            tempfile.TemporaryFile()  # noqa: SIM115 (close() closes it)
            if loops > 1 and not hold
            else None
        )
        self._done = False
        self._arrived: queue.Queue[tuple[int, Any]] = queue.Queue(0 if hold else READ_AHEAD_FRAMES)
        self._closing = threading.Event()
        self._receiver = threading.Thread(
            target=self._receive_all, name="tisink-replay-receive", daemon=True
        )
        self._receiver.start()

    def _receive_all(self) -> None:
        """Receive the first pass's frames into ``_arrived`` as they come, until the end frame
        or ``close``."""
        while not self._closing.is_set():
            try:
                frame = self._receive()
            except Exception as err:  # the sender raises it as the stream's end
                frame = (_END, f"reading a replay reader's output failed: {err}")
            while not self._closing.is_set():
                try:
                    self._arrived.put(frame, timeout=0.1)
                    break
                except queue.Full:
                    continue
            if frame[0] == _END:
                return

    def __next__(self) -> Chunk:
        if self._done:
            raise StopIteration
        if self._loop == 0:
            loop, item = self._arrived.get()
            if loop != _END:
                return Chunk(0, *item)
            self._stop_reader()
            if item is not None:
                self._done = True
                raise ReplayError(str(item))
            self._next_loop()
        return self._kept_chunk()

    def holds(self) -> bool:
        """True when the later passes come from the first pass's chunks held in memory."""
        return self._held is not None

    def at_hand(self) -> bool:
        """True in the later passes: their chunks are held, or read from this process's own
        file."""
        return self._loop > 0 and not self._done

    def _receive(self) -> tuple[int, Any]:
        head = self._pipe.read(_HEAD.size)
        if len(head) == _HEAD.size:
            loop, size = _HEAD.unpack(head)
            data = self._pipe.read(size)
            if len(data) == size:
                if self._kept is not None and loop != _END:
                    self._kept.write(head)
                    self._kept.write(data)
                item = pickle.loads(data)
                if self._held is not None and loop != _END:
                    self._held.append(item)
                return loop, item
        code = self._process.wait()
        return _END, f"a replay reader process ended early (exit code {code})"

    def _next_loop(self) -> None:
        """Start the next pass from the kept frames, or end."""
        self._loop += 1
        if self._loop >= self._loops or (self._kept is None and self._held is None):
            self._done = True
            self._drop_kept()
            raise StopIteration
        if self._kept is not None:
            self._kept.seek(0)
        self._at = 0

    def _kept_chunk(self) -> Chunk:
        if self._held is not None:
            while self._at >= len(self._held):
                self._next_loop()
            self._at += 1
            return Chunk(self._loop, *self._held[self._at - 1])
        assert self._kept is not None
        while not (head := self._kept.read(_HEAD.size)):
            self._next_loop()
        _, size = _HEAD.unpack(head)
        return Chunk(self._loop, *pickle.loads(self._kept.read(size)))

    def _drop_kept(self) -> None:
        self._held = None
        if self._kept is not None:
            self._kept.close()
            self._kept = None

    def _stop_reader(self) -> None:
        if self._process.poll() is None:
            self._process.terminate()
        self._process.wait()
        self._pipe.close()

    def close(self) -> None:
        """Stop the reader; a thread still waiting in ``next`` gets a ReplayError."""
        self._closing.set()
        self._stop_reader()
        self._receiver.join()
        self._drop_kept()
        with contextlib.suppress(queue.Full):  # a full queue has frames for a waiting next
            self._arrived.put_nowait((_END, "the replay source was closed"))


def _widen(pipe: IO[bytes]) -> None:
    """Ask Linux for a pipe of ``_PIPE_BYTES`` (its default is 64 KiB); keep what it gives."""
    if sys.platform == "linux":
        with contextlib.suppress(OSError):
            fcntl.fcntl(pipe.fileno(), fcntl.F_SETPIPE_SZ, _PIPE_BYTES)


def main(argv: list[str]) -> None:
    gc.disable()  # a reader makes no reference cycles; its collections only walk chunks
    chunk = int(argv[0])
    paths = [(int(p), Path(path)) for p, path in (arg.split("=", 1) for arg in argv[1:])]
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):  # the sender stopped
        serve(paths, chunk, sys.stdout.buffer)


if __name__ == "__main__":
    main(sys.argv[1:])
