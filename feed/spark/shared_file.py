"""A large read-only value every task reads, shared through the page cache instead of copied.

A Spark broadcast unpickles its value in every task: a generated workload's recorded schedule
(about 27 bytes a row with its tables' plans) then sits in each Python worker, once per core.
Here the driver writes the value once to a file that Spark ships to each executor
(``SparkContext.addFile``). The value is pickled with protocol 5 and its large buffers (numpy
arrays) written beside the pickle, page-aligned; a task maps the file read-only and unpickles
the arrays as views of the mapping, so the tasks of one machine share one copy of their bytes
in the page cache.
"""

from __future__ import annotations

import mmap
import os
import pickle
import struct
from pathlib import Path
from typing import Any

_ALIGN = 4096
_TRAILER = struct.Struct("<QQ")
"""At the file's end: the offset of the table of buffers, and how many there are."""
_ENTRY = struct.Struct("<QQ")
"""A buffer's (offset, length); the pickle itself is the last entry."""


def write_shared(value: Any, path: Path) -> None:
    """Write ``value`` to ``path`` for ``read_shared``."""
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(value, protocol=5, buffer_callback=buffers.append)
    entries: list[tuple[int, int]] = []
    with path.open("wb") as out:
        for part in [*(buffer.raw() for buffer in buffers), memoryview(data)]:
            at = out.tell()
            at += -at % _ALIGN
            out.seek(at)
            out.write(part)
            entries.append((at, part.nbytes))
        table = out.tell()
        for entry in entries:
            out.write(_ENTRY.pack(*entry))
        out.write(_TRAILER.pack(table, len(entries)))


def read_shared(path: str | os.PathLike[str]) -> Any:
    """The value ``write_shared`` wrote to ``path``; its buffers are read-only views of the
    file, mapped (the mapping lives as long as they do)."""
    with open(path, "rb") as file:
        mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    view = memoryview(mapped)
    table, count = _TRAILER.unpack_from(view, len(view) - _TRAILER.size)
    parts = [
        view[at : at + length]
        for at, length in (_ENTRY.unpack_from(view, table + i * _ENTRY.size) for i in range(count))
    ]
    return pickle.loads(parts[-1], buffers=parts[:-1])
