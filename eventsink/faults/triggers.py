"""When one fault kind fires on one partition: ``every`` slot of commit time, ``at`` commit
ts, every ``nth`` eligible message, or a seeded draw with probability ``p`` (see ``spec``)."""

from __future__ import annotations

import random

from tisink.core.clock import TSO_LOGICAL_BITS
from tisink.eventsink.faults.spec import FaultSpec


class Trigger:
    """The points of one kind on one partition. Only the partition's own messages move it,
    so the points are the same on any engine and at any parallelism."""

    def __init__(self, spec: FaultSpec, topic: str, partition: int) -> None:
        self.spec = spec
        self._slot: int | None = None
        self._at = list(spec.at)
        self._seen = 0
        """Eligible messages so far (``nth`` counts them)."""
        self._rng = (
            random.Random(f"{spec.seed}/{spec.kind}/{topic}/{partition}") if spec.p else None
        )

    def fires(self, commit_ts: int) -> bool:
        """Whether the kind fires at a message with ``commit_ts`` (0: a message without one,
        which only a draw can pick)."""
        spec = self.spec
        self._seen += 1
        fired = bool(spec.nth) and self._seen % spec.nth == 0
        if spec.every_ms and commit_ts:
            slot = (commit_ts >> TSO_LOGICAL_BITS) // spec.every_ms
            if self._slot is None:
                self._slot = slot
            elif slot > self._slot:
                self._slot = slot
                fired = True
        if self._at and commit_ts and commit_ts >= self._at[0]:
            while self._at and commit_ts >= self._at[0]:
                self._at.pop(0)
            fired = True
        if self._rng is not None and self._rng.random() < spec.p:
            fired = True
        return fired
