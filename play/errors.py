"""Errors of a play: one refused before it starts, and one that failed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tisink.core.errors import TisinkError

if TYPE_CHECKING:
    from tisink.run.summary import RunSummary


class PlayRefused(TisinkError):
    """The play cannot start as asked (an empty feed, a file-sink folder holding an earlier
    run); nothing was written."""


class PlayFailed(TisinkError):
    """The play stopped on an error; ``summary`` says how far it got: what was acknowledged,
    its latency and timing, ``error`` and the last checkpoint."""

    def __init__(self, summary: RunSummary) -> None:
        self.summary = summary
        super().__init__(summary.error or "the play failed")
