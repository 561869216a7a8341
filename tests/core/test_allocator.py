"""glibc's thresholds: large buffers freed and allocated again stop costing page faults."""

from __future__ import annotations

import subprocess
import sys

import pytest

_CHURN = """
import resource, sys
from tisink.core.allocator import keep_large_buffers
if sys.argv[1] == "tuned":
    assert keep_large_buffers()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(30):  # a produce request's buffers (batch, encoding, frame), built and dropped
    buffers = [bytearray(3 << 20) for _ in range(3)]
    for buffer in buffers:
        buffer[::4096] = b"x" * len(buffer[::4096])
    del buffers, buffer
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(mode: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _CHURN, mode], capture_output=True, text=True, check=True
    )
    return int(done.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_large_buffers_are_reused_instead_of_faulted_in_again() -> None:
    default, tuned = _faults("default"), _faults("tuned")
    # 90 blocks of 3 MB touched page by page: about 70k faults when each gets fresh pages
    assert default > 30_000
    assert tuned < default / 10


_PLANNED = """
import sys
import numpy as np
from tisink.core.allocator import keep_large_buffers, release_free_memory
def resident_mb():
    return int(open("/proc/self/statm").read().split()[1]) * 4096 / 1e6
assert keep_large_buffers()
kept, scratch = [], []  # the step's temporaries (blocks under the mmap threshold: from the
for _ in range(12):  # heap), each followed by a small array it keeps, which pins the heap
    scratch.append(np.ones(1 << 21))  # 16 MB
    kept.append(np.arange(1 << 10))
del scratch
before = resident_mb()
done = release_free_memory()
print(done, before, resident_mb())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_a_steps_freed_temporaries_go_back_to_the_kernel() -> None:
    out = subprocess.run(
        [sys.executable, "-c", _PLANNED], capture_output=True, text=True, check=True
    ).stdout.split()
    done, before, after = out[0] == "True", float(out[1]), float(out[2])
    assert done
    assert before > after + 100  # the heap kept most of 192 MB of scratch until the trim
    assert after < 100
