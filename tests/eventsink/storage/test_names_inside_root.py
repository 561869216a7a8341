"""Issue 44 item 3: whatever the schema and table names, the storage layout writes only inside
its root; a name that is no plain directory name is refused naming the table."""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tisink.codec.config import EncoderConfig
from tisink.codec.csv.encoder import CSVEncoder
from tisink.codec.csv.options import CSVOptions
from tisink.core.clock import FixedClock
from tisink.ddlsink.storage import StorageDDLSink
from tisink.eventsink.base import CallbackableEvent, StateRef
from tisink.eventsink.errors import PathNameError
from tisink.eventsink.storage.config import StorageConfig
from tisink.eventsink.storage.files import FileWriter
from tisink.eventsink.storage.paths import DataDir, schema_file_path
from tisink.eventsink.storage.sink import StorageSink
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent, SingleTableTxn
from tisink.model.table import ColumnInfo, TableInfo

HOSTILE = ["..", ".", "", "../../esc1", "/abs", "a/b", "a\x00b", "x" * 256, "é" * 128]
names = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=12), st.text("./\x00a", max_size=8))
DEPTH = 16
"""The sandbox root's depth below the temporary folder: deeper than any ``..`` run the names
above can make, so even a sink that let them through writes only inside the sandbox."""


def _inside(path: str, root: str) -> bool:
    joined = os.path.normpath(os.path.join(root, path))
    return joined.startswith(root + os.sep)


@settings(deadline=None)
@given(schema=names, table=names, version=st.integers(1, 10**18), partition=st.integers(0, 99))
def test_every_layout_path_is_inside_the_root_or_refused(
    schema: str, table: str, version: int, partition: int
) -> None:
    root = "/sink/root"
    built = [
        lambda: DataDir(schema, table, version, partition, "2026-12-05").file_path(1, ".csv", 6),
        lambda: DataDir(schema, table, version).index_path(),
        lambda: schema_file_path(schema, table, version, 7),
        lambda: schema_file_path(schema, "", version, 7),
    ]
    for build in built:
        try:
            path = build()
        except PathNameError as err:
            assert repr(schema) in str(err)
            assert "\n" not in str(err)
            continue
        assert _inside(path, root), path


def _table(schema: str, table: str) -> TableInfo:
    return TableInfo(schema, table, 1, 5, (ColumnInfo("id", "int"),))


async def _write(root: Path, schema: str, table: str) -> None:
    """A CREATE TABLE's schema file, then one row through the storage sink."""
    info = _table(schema, table)
    writer = FileWriter(root, sync=False)
    config = StorageConfig(date_separator="none")
    ddl = DDLEvent(5, DDLType.CREATE, "CREATE TABLE t (id INT)", info)
    with contextlib.suppress(PathNameError):
        await StorageDDLSink(writer, config).write_ddl_event(ddl)
    clock = FixedClock(1_700_000_000_000)
    encoder = CSVEncoder(EncoderConfig(protocol="csv", options=CSVOptions()))
    sink = StorageSink(root, config, encoder, ".csv", clock, writer=writer)
    row = RowChangedEvent(6, 7, info, None, {"id": 1})
    txn = SingleTableTxn(6, 7, info, [row], info.table_id)
    with contextlib.suppress(PathNameError):
        sink.write_events([CallbackableEvent(txn, lambda: None, StateRef())])
    await sink.close()


@settings(deadline=None)
@given(schema=names.filter(lambda n: not n.startswith("/")), table=names)
def test_the_sinks_write_only_inside_the_root(schema: str, table: str) -> None:
    """(A schema starting with ``/`` is left to the test above: a sink that let it through
    would write outside the temporary folder. A NUL never reaches a sink: ``TableInfo``
    refuses it.)"""
    assume("\x00" not in schema + table)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp).joinpath(*(f"d{i}" for i in range(DEPTH)), "root")
        root.mkdir(parents=True)
        asyncio.run(_write(root, schema, table))
        for directory, _, files in os.walk(tmp):
            for name in files:
                assert _inside(os.path.relpath(Path(directory, name), root), str(root))


@pytest.mark.parametrize(
    ("schema", "table", "message"),
    [
        ("../../esc1", "t", "table '../../esc1'.'t': the schema name '../../esc1' cannot be"),
        ("s", "../../esc2", "table 's'.'../../esc2': the table name '../../esc2' cannot be"),
        ("s", "..", "(it is '..')"),
    ],
)
def test_a_refusal_names_the_table(tmp_path: Path, schema: str, table: str, message: str) -> None:
    async def run() -> None:
        clock = FixedClock(1_700_000_000_000)
        encoder = CSVEncoder(EncoderConfig(protocol="csv", options=CSVOptions()))
        sink = StorageSink(tmp_path, StorageConfig(), encoder, ".csv", clock)
        info = _table(schema, table)
        txn = SingleTableTxn(6, 7, info, [RowChangedEvent(6, 7, info, None, {"id": 1})], 1)
        with pytest.raises(PathNameError) as refused:
            sink.write_events([CallbackableEvent(txn, lambda: None, StateRef())])
        assert message in str(refused.value)
        assert sink.error is refused.value
        await sink.close()

    asyncio.run(run())
    assert not any(tmp_path.iterdir())
