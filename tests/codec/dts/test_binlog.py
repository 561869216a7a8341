"""The synthetic binlog coordinates (``codec/dts/binlog.py``'s documented scheme)."""

from __future__ import annotations

import pytest

from tisink.codec.dts import binlog
from tisink.codec.errors import CodecError
from tisink.model.tso import compose_ts

BASE_TSO = compose_ts(binlog.BASE_MS)


def test_seq_id_counts_tso_steps_times_64() -> None:
    assert binlog.seq_id(BASE_TSO, 0) == 0
    assert binlog.seq_id(BASE_TSO + 1, 0) == 64
    assert binlog.seq_id(compose_ts(binlog.BASE_MS + 1), 5) == (1 << 18) * 64 + 5
    assert binlog.seq_id(BASE_TSO + 1, binlog.CHECKPOINT_INDEX) == 127


def test_seq_id_range() -> None:
    assert binlog.seq_id(5, 3) == 3  # before 2020: the start of the binlog
    last = BASE_TSO + (1 << 58) - 1
    assert binlog.seq_id(last, 63) == (1 << 64) - 1
    with pytest.raises(CodecError, match="past the end of the synthetic binlog"):
        binlog.seq_id(last + 1, 0)


def test_names() -> None:
    ts = compose_ts(1_715_930_562_345, 7)
    assert binlog.gtid(ts) == f"{binlog.SOURCE_UUID}:{ts}"
    assert binlog.synced_gtid(ts) == f"{binlog.SOURCE_UUID}:1-{ts}"
    assert binlog.transaction_id(ts - 3) == str(ts - 3)
    assert binlog.timestamp_s(ts) == 1_715_930_562


def test_allocator_counts_entries_per_commit_ts() -> None:
    synthetic = binlog.SyntheticBinlog()
    ts = BASE_TSO + 10
    assert synthetic.allocate(ts, 3) == binlog.seq_id(ts, 0)
    # another table's share of the transaction continues after the first one
    assert synthetic.allocate(ts, 2) == binlog.seq_id(ts, 3)
    # an earlier ts (another table sink flushing behind) is numbered from its own ts alone
    assert synthetic.allocate(ts - 5, 4) == binlog.seq_id(ts - 5, 0)
    assert synthetic.allocate(ts, 1) == binlog.seq_id(ts, 5)
    assert synthetic.single(ts + 1) == binlog.seq_id(ts + 1, 0)
    assert synthetic.checkpoint(ts) == binlog.seq_id(ts, binlog.CHECKPOINT_INDEX)


def test_allocator_forgets_old_commit_ts() -> None:
    synthetic = binlog.SyntheticBinlog()
    recent = binlog.SyntheticBinlog.RECENT_TS
    for step in range(2 * recent + 1):
        synthetic.allocate(BASE_TSO + step, 2)
    assert synthetic.allocate(BASE_TSO + recent + 1, 1) == binlog.seq_id(BASE_TSO + recent + 1, 2)
    assert synthetic.allocate(BASE_TSO + 2 * recent, 1) == binlog.seq_id(BASE_TSO + 2 * recent, 2)
    assert synthetic.allocate(BASE_TSO, 1) == binlog.seq_id(BASE_TSO, 0)  # forgotten


def test_coordinates() -> None:
    ts = compose_ts(1_715_930_562_000)
    place = binlog.SyntheticBinlog().coordinates(ts, 99)
    assert place == binlog.Coordinates(
        "tidb-binlog.000001", 99, binlog.gtid(ts), 1, 99, 1_715_930_562
    )
