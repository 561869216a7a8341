"""The progress tracker: a table's checkpoint from out-of-order acknowledgements (spec 7.2).

TiCDC gives every event a sequential id and a bit in a bitmap, and moves the checkpoint to a
resolved ts once every bit before it is set. A resolved ts only ever follows a whole flush, so
the ids between two resolved ts form one contiguous *range*, and what matters is only whether a
range is fully acknowledged, not which of its ids are. We therefore keep one counter per range
instead of one bit per event: same semantics, no per-event bookkeeping in Python.

A range's counter is ``itertools.repeat(None, n)``: its ``__next__`` is the ack every event of
the range shares. That is one C call, atomic under the GIL (a sink may ack from another
thread), allocates nothing, and ``__length_hint__`` reads how many acks are still missing.
Each event's callback must fire at most once; an ack past a range's count raises StopIteration.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable
from itertools import repeat

from tisink.model.events import ResolvedTs

log = logging.getLogger(__name__)


class _EventRange:
    """The events of one flush and the resolved ts recorded right after them, if any."""

    __slots__ = ("ack", "pending", "resolved")

    def __init__(self, count: int) -> None:
        self.pending = repeat(None, count)
        self.ack: Callable[[], None] = self.pending.__next__
        self.resolved: ResolvedTs | None = None

    def unacked(self) -> int:
        return self.pending.__length_hint__()


class ProgressTracker:
    """Tracks flushed events and resolved ts of one table; ``advance()`` gives the checkpoint.

    The checkpoint reaches a resolved ts only after every event added before it was acknowledged,
    whatever the order of the acks; with nothing pending it moves at once. Resolved ts with no
    events between them coalesce. Memory is one small object per flush still unacknowledged.
    A frozen tracker (table closing) never moves the checkpoint again.
    """

    __slots__ = ("_checkpoint", "_frozen", "_next_event_id", "_ranges", "table_id")

    def __init__(self, table_id: int, start: ResolvedTs | None = None) -> None:
        self.table_id = table_id
        self._checkpoint = start if start is not None else ResolvedTs.normal(0)
        self._ranges: deque[_EventRange] = deque()
        self._next_event_id = 0
        self._frozen = False

    @property
    def next_event_id(self) -> int:
        """The id the next event will get; events so far have ids ``0 .. next_event_id - 1``."""
        return self._next_event_id

    @property
    def frozen(self) -> bool:
        return self._frozen

    def add_events(self, count: int) -> Callable[[], None]:
        """Register the next ``count`` events and return their ack.

        The same callable serves every event of the range: call it once per acknowledged event.
        """
        span = _EventRange(count)
        self._ranges.append(span)
        self._next_event_id += count
        return span.ack

    def add_resolved_ts(self, resolved: ResolvedTs) -> None:
        """Record that every event added so far is covered by ``resolved``.

        Callers pass increasing resolved ts (the table sink drops the others). Ignored when
        frozen.
        """
        if self._frozen:
            return
        self._release()
        if not self._ranges:
            self._move_to(resolved)
        else:
            # a later resolved ts with no events since the last one replaces it (coalescing)
            self._ranges[-1].resolved = resolved

    def advance(self) -> ResolvedTs:
        """The checkpoint: the last resolved ts whose preceding events are all acknowledged."""
        if self._ranges:
            self._release()
        return self._checkpoint

    def pending_events(self) -> int:
        """Events added but not yet acknowledged (TiCDC ``trackingCount``)."""
        self._release()
        return sum(span.unacked() for span in self._ranges)

    def freeze(self) -> None:
        """Stop the checkpoint where it is: a closing table's late acks must not move it."""
        if not self._frozen:
            self._frozen = True
            log.debug("table %d: progress frozen at %s", self.table_id, self._checkpoint)

    def _release(self) -> None:
        """Drop fully acknowledged ranges from the front, moving to their resolved ts."""
        ranges = self._ranges
        while ranges and ranges[0].unacked() == 0:
            resolved = ranges.popleft().resolved
            if resolved is not None:
                self._move_to(resolved)

    def _move_to(self, resolved: ResolvedTs) -> None:
        if not self._frozen and resolved > self._checkpoint:
            self._checkpoint = resolved
