"""Errors of record and replay."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tisink.core.errors import TisinkError
from tisink.eventsink.errors import EventSinkError

if TYPE_CHECKING:
    from tisink.run.summary import RunSummary


class ReplayError(EventSinkError):
    """A source cannot be replayed into the target as asked: the message names the partition
    and offset or the option."""


class ReplayFailed(TisinkError):
    """``tisink replay`` cannot start as asked (a source it cannot read, a target without
    partitions, pacing options that contradict)."""


class ReplayRefused(ReplayFailed):
    """``tisink replay`` will not run as asked (its target is its own source or has fewer
    partitions, pacing options that contradict, a target without partitions); nothing was sent
    or created."""

    refusal = True


class ReplayStopped(TisinkError):
    """The replay stopped on an error; ``summary`` says how far it got: the records
    acknowledged, their latency and timing, and ``error``."""

    def __init__(self, summary: RunSummary) -> None:
        self.summary = summary
        super().__init__(summary.error or "the replay failed")
