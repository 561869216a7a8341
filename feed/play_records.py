"""What a player takes besides the feed's own records: the places an engine adds to the feed."""

from __future__ import annotations

from dataclasses import dataclass

from tisink.codec.bootstrap import BootstrapSend
from tisink.feed.format.records import FeedDDL, FeedResolved, FeedRow


@dataclass(frozen=True, slots=True)
class RowsStart:
    """The place of the feed's first row: ``send-all-bootstrap-at-start`` fires here."""

    ts: int


@dataclass(frozen=True, slots=True)
class WatermarkPoint:
    """A point of the watermark policy that is not a ``resolved`` record of the feed."""

    ts: int


@dataclass(frozen=True, slots=True)
class BootstrapAt:
    """A BOOTSTRAP a Spark partition owner writes, as TiCDC's per-table cadence decided for
    the whole feed (``feed/spark/bootstraps.py``): right before the transaction of table
    ``table_id`` at ``ts`` (-1: after everything at or before ``ts``). ``send`` names the
    owner's view of its partition."""

    ts: int
    table_id: int
    send: BootstrapSend


PlayRecord = FeedRow | FeedDDL | FeedResolved | RowsStart | WatermarkPoint | BootstrapAt
"""What a player takes."""
