"""Property tests: the compiled byte writers equal fastavro, and decode to the right values.

For both formats and hypothesis-drawn transactions over tables of every MySQL type, every record
(BEGIN, each row, COMMIT) of the specialised encoder must be byte-equal to fastavro's
``schemaless_writer`` with the shipped schema on the generic datums, as must DDL and CHECKPOINT
records; and fastavro reading the bytes back must find, per column, the record
``expected.expected_item`` works out on its own.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.codec.dts.avro.expected import expected_item, same_item
from tests.codec.dts.avro.strategies import COMMIT_MS, TEXT, row_in, tables, transactions
from tests.codec.dts.avro.support import FORMATS, decode, encoder
from tisink.codec.dts import binlog
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import TableInfo
from tisink.model.tso import compose_ts

SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
IMAGES = {"alibaba": ("beforeImages", "afterImages"), "tencent": ("oldColumns", "newColumns")}


def _check_images(fmt: str, row: RowChangedEvent, record: dict) -> None:
    before_key, after_key = IMAGES[fmt]
    columns = row.table.stored_columns
    for image, decoded in ((row.before, record[before_key]), (row.after, record[after_key])):
        if image is None:
            assert decoded is None
            continue
        assert len(decoded) == len(columns)
        for column, item in zip(columns, decoded, strict=True):
            expected = expected_item(column, image[column.name])
            assert same_item(column, item, expected), (column, image[column.name], item)


@SETTINGS
@given(st.sampled_from(FORMATS), transactions(), st.integers(0, 1 << 40))
def test_transaction_records_equal_fastavro(fmt: str, rows: list, now_ms: int) -> None:
    fast = encoder(fmt, now_ms).encode_rows(rows)
    slow = encoder(fmt, now_ms, generic=True).encode_rows(rows)
    assert fast.records == slow.records
    assert fast.size == sum(len(value) for _key, value in fast.records)
    assert len(fast.records) == len(rows) + 2
    for row, (key, value) in zip(rows, fast.records[1:-1], strict=True):
        assert key is None
        _check_images(fmt, row, decode(fmt, value))


@SETTINGS
@given(
    st.sampled_from(FORMATS),
    st.one_of(st.none(), tables()),
    TEXT,
    COMMIT_MS,
    st.integers(0, 1 << 30),
    st.integers(0, 1 << 45),
)
def test_control_records_equal_fastavro(
    fmt: str, table: TableInfo | None, query: str, commit_ms: int, start_lag: int, now_ms: int
) -> None:
    """DDL, CHECKPOINT and HEARTBEAT records."""
    ts = compose_ts(commit_ms, 3)
    ddl = DDLEvent(ts, DDLType.ALTER, query, table, table, start_ts=max(ts - start_lag, 0))
    fast = encoder(fmt, now_ms, interval_s=0)
    slow = encoder(fmt, now_ms, interval_s=0, generic=True)
    fast_ddl, slow_ddl = fast.encode_ddl(ddl), slow.encode_ddl(ddl)
    assert fast_ddl is not None and slow_ddl is not None
    assert fast_ddl.value == slow_ddl.value
    fast_checkpoint, slow_checkpoint = fast.encode_checkpoint(ts), slow.encode_checkpoint(ts)
    assert fast_checkpoint is not None and slow_checkpoint is not None
    assert fast_checkpoint.value == slow_checkpoint.value
    assert fast.encode_heartbeat(ts).value == slow.encode_heartbeat(ts).value
    record = decode(fmt, fast_ddl.value)
    assert (record["afterImages"] if fmt == "alibaba" else record["sql"]) == query


def _ts_where_seq_reaches(seq: int) -> int:
    """A commit ts whose first seqIds run up to and past ``seq`` as shares add entries."""
    return binlog._BASE_TSO + max(seq - 40, 0) // (1 << binlog.INDEX_BITS)


BOUNDARY_TS = [_ts_where_seq_reaches(1 << (7 * k - 1)) for k in range(2, 10)] + [
    _ts_where_seq_reaches(10**k) for k in (3, 12, 18)
]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FORMATS), st.sampled_from(BOUNDARY_TS), st.data())
def test_many_shares_at_one_ts_equal_fastavro(fmt: str, ts: int, data: st.DataObject) -> None:
    """Shares of one transaction keep taking ids at its ts: the record ids cross their first
    byte's carry and a varint length, the positions a digit count, within and between shares."""
    table = data.draw(tables())
    fast, slow = encoder(fmt, 5), encoder(fmt, 5, generic=True)
    for _ in range(24):  # 72 to 144 ids: past index 63 mid-share, almost always
        rows = data.draw(st.lists(row_in(table, ts - 9, ts), min_size=1, max_size=4))
        assert fast.encode_rows(rows).records == slow.encode_rows(rows).records
