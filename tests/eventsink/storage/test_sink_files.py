"""StorageSink on its own: a file closes on ``flush-interval`` by the sink's clock (a fixed
clock through ``run_timers``, the wall clock through its own ticker), on ``flush_open``, never
before its rows' callbacks could be honest; partitions get directories of their own; a header
opens each CSV file with ``output-field-header``; a write that fails names the file."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tisink.codec.config import EncoderConfig
from tisink.codec.csv.encoder import CSVEncoder
from tisink.codec.csv.options import CSVOptions
from tisink.core.clock import FixedClock, WallClock
from tisink.eventsink.base import CallbackableEvent, StateRef
from tisink.eventsink.errors import SinkDeadError
from tisink.eventsink.storage.config import StorageConfig
from tisink.eventsink.storage.files import StorageSinkError
from tisink.eventsink.storage.sink import StorageSink
from tisink.model.events import RowChangedEvent, SingleTableTxn
from tisink.model.table import ColumnInfo, TableInfo

TABLE = TableInfo("db", "t", 10, 7, (ColumnInfo("id", "int"),))
DAY_MS = 1_700_000_000_000  # 2023-11-14 UTC


def _txn(ts: int, physical: int = 0) -> SingleTableTxn:
    row = RowChangedEvent(ts, ts, TABLE, None, {"id": ts}, physical_table_id=physical or None)
    return SingleTableTxn(ts, ts, TABLE, [row], physical_table_id=physical or TABLE.table_id)


def _sink(root: Path, clock: object, **config: object) -> tuple[StorageSink, CSVEncoder]:
    options = CSVOptions(**{k: v for k, v in config.items() if k == "output_field_header"})  # type: ignore[arg-type]
    encoder = CSVEncoder(EncoderConfig(protocol="csv", options=options))
    storage = StorageConfig(**{k: v for k, v in config.items() if k != "output_field_header"})  # type: ignore[arg-type]
    sink = StorageSink(
        root,
        storage,
        encoder,
        ".csv",
        clock,  # type: ignore[arg-type]
        header=encoder.header,
        record_end=b"\r\n",
    )
    return sink, encoder


async def _settle(sink: StorageSink) -> None:
    while sink.inflight_bytes:
        await asyncio.sleep(0.01)


async def test_flush_interval_by_a_fixed_clock(tmp_path: Path) -> None:
    clock = FixedClock(DAY_MS)
    sink, _ = _sink(tmp_path, clock, flush_interval_ms=5000, date_separator="none")
    acked: list[int] = []
    sink.write_events([CallbackableEvent(_txn(1), lambda: acked.append(1), StateRef())])
    clock.advance(4999)
    await sink.run_timers()
    await asyncio.sleep(0.05)
    assert acked == [] and not list(tmp_path.rglob("CDC*"))
    clock.advance(1)
    await sink.run_timers()
    await _settle(sink)
    assert acked == [1]
    (path,) = tmp_path.rglob("CDC*.csv")
    assert path.relative_to(tmp_path).as_posix() == "db/t/7/CDC00000000000000000001.csv"
    assert path.read_bytes() == b'"I","t","db",1\r\n'
    await sink.close()


async def test_flush_interval_by_the_wall_clock(tmp_path: Path) -> None:
    sink, _ = _sink(tmp_path, WallClock(), flush_interval_ms=200, date_separator="none")
    acked: list[int] = []
    sink.write_events([CallbackableEvent(_txn(1), lambda: acked.append(1), StateRef())])
    for _ in range(100):
        if acked:
            break
        await asyncio.sleep(0.02)
    assert acked == [1]
    await sink.close()


async def test_partitions_dates_and_headers(tmp_path: Path) -> None:
    clock = FixedClock(DAY_MS)
    sink, _ = _sink(tmp_path, clock, output_field_header=True, date_separator="day")
    sink.write_events([CallbackableEvent(_txn(1, physical=11), lambda: None, StateRef())])
    sink.write_events([CallbackableEvent(_txn(2, physical=12), lambda: None, StateRef())])
    sink.flush_open()
    await _settle(sink)
    paths = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("CDC*.csv"))
    assert paths == [
        "db/t/7/11/2023-11-14/CDC00000000000000000001.csv",
        "db/t/7/12/2023-11-14/CDC00000000000000000001.csv",
    ]
    data = (tmp_path / paths[0]).read_bytes()
    assert (
        data == b'ticdc-meta$operation,ticdc-meta$table,ticdc-meta$schema,id\r\n"I","t","db",1\r\n'
    )
    assert (tmp_path / "db/t/meta").is_dir()
    await sink.close()


async def test_a_failed_write_names_the_file_and_acknowledges_nothing(tmp_path: Path) -> None:
    blocker = tmp_path / "db"
    blocker.write_text("not a directory")
    sink, _ = _sink(tmp_path, FixedClock(DAY_MS), date_separator="none")
    acked: list[int] = []
    sink.write_events([CallbackableEvent(_txn(1), lambda: acked.append(1), StateRef())])
    with pytest.raises(StorageSinkError, match=r"db/t/7/meta/CDC\.index"):
        sink.flush_open()
    assert sink.error is not None and acked == []
    with pytest.raises(SinkDeadError, match="storage sink is dead"):
        sink.write_events([CallbackableEvent(_txn(2), lambda: None, StateRef())])
    await sink.close()


async def test_a_failed_data_write_names_the_file(tmp_path: Path) -> None:
    sink, _ = _sink(tmp_path, FixedClock(DAY_MS), date_separator="none")
    acked: list[int] = []
    (tmp_path / "db" / "t" / "7").mkdir(parents=True)
    (tmp_path / "db" / "t" / "7" / ".CDC00000000000000000001.csv.tmp").mkdir()
    sink.write_events([CallbackableEvent(_txn(1), lambda: acked.append(1), StateRef())])
    sink.flush_open()
    for _ in range(100):
        if sink.error is not None:
            break
        await asyncio.sleep(0.02)
    assert "CDC00000000000000000001.csv" in str(sink.error) and acked == []
    await sink.close()
