"""Errors of the command-line floor: a play refused before it starts, and one that failed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tisink.core.errors import TisinkError

if TYPE_CHECKING:
    from tisink.summary import RunSummary


class PlayRefused(TisinkError):
    """The play cannot start as asked (an empty feed, a file-sink folder holding an earlier
    run); nothing was written."""


class PlayFailed(TisinkError):
    """The play stopped on an error; ``summary`` says how far it got: what was acknowledged,
    its latency and timing, ``error`` and the last checkpoint."""

    def __init__(self, summary: RunSummary) -> None:
        self.summary = summary
        super().__init__(summary.error or "the play failed")


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
