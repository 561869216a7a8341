"""Whatever the file size and wherever the barriers fall, the files of each table, read in
directory and number order, hold its rows once each in the order they were handed over, every
index names its directory's newest file, and every callback fired once."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.codec.config import EncoderConfig
from tisink.codec.csv.decoder import parse_row, split_fields
from tisink.codec.csv.encoder import CSVEncoder
from tisink.codec.csv.options import CSVOptions
from tisink.core.clock import FixedClock
from tisink.eventsink.base import CallbackableEvent, StateRef
from tisink.eventsink.storage.config import StorageConfig
from tisink.eventsink.storage.paths import DATA_FILE
from tisink.eventsink.storage.sink import StorageSink
from tisink.model.events import RowChangedEvent, SingleTableTxn
from tisink.model.table import ColumnInfo, TableInfo

TABLES = [
    TableInfo("db", name, i + 1, 5, (ColumnInfo("id", "int"), ColumnInfo("v", "varchar")))
    for i, name in enumerate(("a", "b"))
]
OPTIONS = CSVOptions(include_commit_ts=True)

steps = st.lists(
    st.one_of(
        st.tuples(st.just("txn"), st.integers(0, 1), st.integers(1, 4), st.text(max_size=30)),
        st.tuples(st.just("barrier"), st.just(0), st.just(0), st.just("")),
        st.tuples(st.just("tick"), st.just(0), st.integers(1, 3000), st.just("")),
    ),
    max_size=40,
)


async def _run(root: Path, plan: list[tuple[str, int, int, str]], file_size: int) -> list[int]:
    clock = FixedClock(1_700_000_000_000)
    encoder = CSVEncoder(EncoderConfig(protocol="csv", options=OPTIONS))
    config = StorageConfig(file_size=file_size, flush_interval_ms=2000, date_separator="day")
    sink = StorageSink(root, config, encoder, ".csv", clock, record_end=b"\r\n")
    acked: list[int] = []
    ts = 0
    for kind, table, count, text in plan:
        if kind == "txn":
            ts += 1
            info = TABLES[table]
            rows = [
                RowChangedEvent(ts, ts, info, None, {"id": ts * 10 + i, "v": text})
                for i in range(count)
            ]
            txn = SingleTableTxn(ts, ts, info, rows, info.table_id)
            sink.write_events([CallbackableEvent(txn, lambda ts=ts: acked.append(ts), StateRef())])
        elif kind == "barrier":
            sink.flush_open()
        else:
            clock.advance(count * 60_000)  # minutes: files of one table span date directories
            await sink.run_timers()
    await sink.close()
    return acked


@settings(max_examples=40, deadline=None)
@given(plan=steps, file_size=st.sampled_from([1, 64, 200, 1 << 20]))
def test_files_hold_each_tables_rows_in_order(
    plan: list[tuple[str, int, int, str]], file_size: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        acked = asyncio.run(_run(root, plan, file_size))
        expected: dict[str, list[int]] = {"a": [], "b": []}
        ts = 0
        for kind, table, count, _ in plan:
            if kind == "txn":
                ts += 1
                expected[TABLES[table].table].extend(ts * 10 + i for i in range(count))
        assert sorted(acked) == list(range(1, ts + 1))
        for name in ("a", "b"):
            stored: list[int] = []
            for directory in sorted(p for p in (root / "db" / name / "5").glob("*") if p.is_dir()):
                files = sorted(directory.glob("CDC*.csv"))
                if not files:
                    continue
                index = (directory / "meta" / "CDC.index").read_text()
                assert index == files[-1].name + "\n"
                numbers = [int(DATA_FILE.fullmatch(f.name)[1]) for f in files]  # type: ignore[index]
                assert numbers == list(range(1, len(files) + 1))
                for path in files:
                    for fields in split_fields(path.read_bytes(), OPTIONS):
                        stored.append(int(parse_row(fields, OPTIONS).columns[0] or 0))
            assert stored == expected[name]
