"""The cyclic garbage collector held back while a process sends at line rate.

A replay or play allocates a container per record (key and value tuples, rows, events), none
of them in a reference cycle, so the collector's passes find nothing; by default it runs one
every 700 allocations and walks every object start-up left (modules, classes, schemas) in its
older generations: about a tenth of a replay's CPU. Inside ``rare_collections`` what start-up
built is frozen out of the collector's sight and the young generation is collected every
``YOUNG_THRESHOLD`` allocations; the process's settings come back on exit, so an embedding
program (a test run, a notebook) keeps its own.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

YOUNG_THRESHOLD = 50_000
"""Allocations between two collections of the young generation (CPython's default: 700)."""
OLDER_THRESHOLDS = (20, 100)


@contextlib.contextmanager
def rare_collections() -> Iterator[None]:
    """Freeze the objects that exist now and collect rarely until the block ends."""
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *OLDER_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
