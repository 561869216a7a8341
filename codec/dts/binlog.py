"""Synthetic MySQL binlog coordinates for TiDB changes, shared by every DTS format.

DTS consumers expect each event to sit at a binlog place: file name, position, GTID, server id,
a stream-wide ``seqId`` and the binlog header time. TiDB has none of these, so tisink derives
them from the event's TSO alone. Every encoder instance (the DML sink's, each encoder worker's,
the DDL sink's) then agrees without talking to the others, and a replay of the same feed under
``--clock feed`` yields the same coordinates whatever the parallelism.

The scheme (spec/dts-formats.md 2.6 and 7.2 leave it to us):

* ``fileName``: the constant ``tidb-binlog.000001``: one endless binlog file, never rotated.
* ``seqId``: ``((ts - TSO of 2020-01-01) << 6) | index``, so it grows with the commit ts and,
  within one ts, with the entry. ``index`` counts the entries an encoder gave out at that ts:
  a transaction share takes BEGIN, its DML runs and COMMIT, and another share at the same ts
  (another table of the transaction, another partition) continues after it. Index 63 is kept
  for the CHECKPOINT at that ts, which follows every row committed at or before it, and index 62
  for a HEARTBEAT written after the sink's newest rows at that ts. The number
  depends on the ts alone, not on what the encoder saw before (table sinks flush tables
  independently, so an encoder does not see commit ts in order), which keeps the DML, DDL and
  checkpoint encoders in step. Limits: more than 62 entries at one ts share numbers with its
  heartbeat and checkpoint, more than 64 run into the next ts's range; commit ts before 2020
  count as 2020-01-01; the scheme lasts until 2054-11-03.
* ``position``: equal to ``seqId`` (an offset in the one file, so it only grows).
* ``gtid``: ``<SOURCE_UUID>:<commitTs>``: the commit TSO is unique per transaction and increases,
  like a GTID transaction number. A checkpoint's ``syncedGtid`` is ``<SOURCE_UUID>:1-<ts>`` (every
  transaction up to the checkpoint), always with ``fakeGtid`` true.
* ``serverId``: 1; ``threadId``: 0 (TiDB's connection ids do not reach the changefeed).
* transaction id (COMMIT): the decimal start ts, TiDB's own transaction id.
* ``timestamp``: the commit ts's physical part in whole Unix seconds.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from tisink.codec.errors import CodecError
from tisink.model.tso import LOGICAL_BITS, physical_ms

log = logging.getLogger(__name__)

BINLOG_FILE = "tidb-binlog.000001"
BINLOG_FILE_NUMBER = 1
SERVER_ID = 1
THREAD_ID = 0
SOURCE_UUID = "7a4db781-4490-5069-b931-c1faf5980600"
"""uuid5(NAMESPACE_URL, "tisink:tidb"): the stand-in ``server_uuid`` of every TiDB cluster."""

INDEX_BITS = 6
CHECKPOINT_INDEX = (1 << INDEX_BITS) - 1
"""The entry index of a CHECKPOINT: after every entry of a transaction at the same ts."""
HEARTBEAT_INDEX = CHECKPOINT_INDEX - 1
"""The entry index of a HEARTBEAT: after the entries of a transaction, before its checkpoint."""
BASE_MS = 1_577_836_800_000
"""2020-01-01T00:00:00Z, the start of the synthetic binlog."""
_BASE_TSO = BASE_MS << LOGICAL_BITS
_MAX_SEQ = (1 << 64) - 1


def seq_id(ts: int, index: int) -> int:
    """The ``seqId`` (and ``position``) of entry ``index`` of the event at TSO ``ts``."""
    offset = ts - _BASE_TSO if ts > _BASE_TSO else 0
    seq = (offset << INDEX_BITS) + index
    if seq > _MAX_SEQ:
        raise CodecError(f"commit ts {ts} is past the end of the synthetic binlog (2054-11-03)")
    return seq


def gtid(commit_ts: int) -> str:
    """The transaction's GTID."""
    return f"{SOURCE_UUID}:{commit_ts}"


def synced_gtid(ts: int) -> str:
    """The executed GTID set a checkpoint at ``ts`` reports."""
    return f"{SOURCE_UUID}:1-{ts}"


def transaction_id(start_ts: int) -> str:
    """TiDB names a transaction by its start ts."""
    return str(start_ts)


def timestamp_s(ts: int) -> int:
    """The binlog header time of an event at TSO ``ts``: Unix seconds."""
    return physical_ms(ts) // 1000


@dataclass(frozen=True, slots=True)
class Coordinates:
    """Where one entry sits on the synthetic binlog."""

    file_name: str
    position: int
    gtid: str
    server_id: int
    seq_id: int
    timestamp: int


class SyntheticBinlog:
    """Hands out ``seqId``s for one encoder: ``seq_id(ts, index)`` with the index counted per
    commit ts, remembered for the last ``RECENT_TS`` to ``2 * RECENT_TS`` commit timestamps it
    encoded (two generations of counters, so forgetting costs nothing per call)."""

    __slots__ = ("_older", "_used")

    RECENT_TS = 4096

    def __init__(self) -> None:
        self._used: dict[int, int] = {}
        self._older: dict[int, int] = {}

    def allocate(self, ts: int, count: int) -> int:
        """The first of ``count`` consecutive ``seqId``s for a transaction share at ``ts``."""
        used = self._used
        index = used.get(ts)
        if index is None:
            index = self._older.get(ts, 0)
            if len(used) >= self.RECENT_TS:
                self._older, self._used = used, {}
                used = self._used
        used[ts] = index + count
        if index + count > HEARTBEAT_INDEX:
            log.debug("commit ts %d: %d entries run past index 62", ts, index + count)
        seq = ((ts - _BASE_TSO if ts > _BASE_TSO else 0) << INDEX_BITS) + index  # seq_id, inlined
        return seq if seq <= _MAX_SEQ else seq_id(ts, index)

    def checkpoint(self, ts: int) -> int:
        """The ``seqId`` of a CHECKPOINT at ``ts``."""
        return seq_id(ts, CHECKPOINT_INDEX)

    def heartbeat(self, ts: int) -> int:
        """The ``seqId`` of a HEARTBEAT after the rows committed at ``ts``."""
        return seq_id(ts, HEARTBEAT_INDEX)

    def single(self, ts: int) -> int:
        """The ``seqId`` of an entry that is a transaction of its own, such as a DDL."""
        return self.allocate(ts, 1)

    def coordinates(self, ts: int, seq: int) -> Coordinates:
        """The full coordinates of the entry numbered ``seq`` of the event at ``ts``."""
        return Coordinates(BINLOG_FILE, seq, gtid(ts), SERVER_ID, seq, timestamp_s(ts))
