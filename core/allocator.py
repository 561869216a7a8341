"""glibc's allocator set for a process that sends at line rate.

The Kafka clients build every produce request in fresh buffers of a few MB (aiokafka's record
batch builder and request encoding, librdkafka's copies). glibc serves a request that large
with its own ``mmap`` and returns it to the kernel on ``free``, so every request touches fresh
pages: a replay of 500k demo messages took 180k page faults (the kernel zeroing each page),
about a seventh of its CPU. Raising the mmap threshold above those buffers and the trim
threshold above their sum keeps them in the heap for reuse (37k faults). glibc's own dynamic
threshold does this only for blocks up to 32 MB and only after it has freed one; this sets it
from the start. The cost is memory the process keeps instead of returning: at most
``TRIM_BYTES`` beyond its peak use.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import sys
from typing import Any

log = logging.getLogger(__name__)

MMAP_THRESHOLD_BYTES = 32 << 20
"""Blocks below this come from the heap (glibc's maximum for its dynamic threshold)."""
TRIM_BYTES = 16 << 20
"""Free memory at the heap's top kept for reuse instead of returned to the kernel."""
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def _glibc(function: str) -> Any | None:
    """glibc's ``function``, or None where the C library is another (musl has no mallopt or
    malloc_trim) or the platform not Linux."""
    if not sys.platform.startswith("linux"):
        return None
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        return getattr(ctypes.CDLL(name), function)
    except (OSError, AttributeError):
        return None


def keep_large_buffers() -> bool:
    """Set glibc's thresholds for this process (no-op elsewhere); True when set."""
    mallopt = _glibc("mallopt")
    if mallopt is None:
        return False
    done = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)) and bool(
        mallopt(_M_TRIM_THRESHOLD, TRIM_BYTES)
    )
    log.debug(
        "glibc mmap threshold %d, trim threshold %d: %s", MMAP_THRESHOLD_BYTES, TRIM_BYTES, done
    )
    return done


def release_free_memory() -> bool:
    """Give the heap's free pages back to the kernel now (glibc's ``malloc_trim``; no-op
    elsewhere); True when done. For a step that builds large temporaries once (the Spark
    driver planning every table's rows: 150 MB of numpy temporaries at 2M rows): with
    ``keep_large_buffers`` they stay in the heap, resident for the rest of the play."""
    trim = _glibc("malloc_trim")
    if trim is None:
        return False
    trim(0)
    return True
