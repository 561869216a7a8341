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

log = logging.getLogger(__name__)

MMAP_THRESHOLD_BYTES = 32 << 20
"""Blocks below this come from the heap (glibc's maximum for its dynamic threshold)."""
TRIM_BYTES = 16 << 20
"""Free memory at the heap's top kept for reuse instead of returned to the kernel."""
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def keep_large_buffers() -> bool:
    """Set glibc's thresholds for this process (no-op elsewhere); True when set."""
    if not sys.platform.startswith("linux"):
        return False
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    done = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)) and bool(
        mallopt(_M_TRIM_THRESHOLD, TRIM_BYTES)
    )
    log.debug(
        "glibc mmap threshold %d, trim threshold %d: %s", MMAP_THRESHOLD_BYTES, TRIM_BYTES, done
    )
    return done
