"""LogDDLSink: one structured line per DDL and per advancing checkpoint."""

from __future__ import annotations

import logging

from tisink.codec.debug import DebugEncoder
from tisink.logsink import LogDDLSink
from tisink.model.events import DDLEvent, DDLType
from tisink.model.table import ColumnInfo, make_table

TABLE = make_table("s", "t", 1, 1, [ColumnInfo("id", "int")])


async def test_lines_and_counts(caplog):
    caplog.set_level(logging.INFO, logger="tisink.ddlsink.log")
    sink = LogDDLSink(DebugEncoder())
    ddl = DDLEvent(7, DDLType.CREATE, "CREATE TABLE t (id int)", TABLE)
    await sink.write_ddl_event(ddl)
    await sink.write_checkpoint_ts(9, [TABLE])
    await sink.write_checkpoint_ts(9, [TABLE])
    await sink.write_checkpoint_ts(8, [TABLE])
    lines = [r for r in caplog.records if r.name == "tisink.ddlsink.log"]
    assert [(r.table, r.ddl_type, r.commit_ts) for r in lines[:1]] == [("s.t", "CREATE", 7)]
    assert lines[0].bytes == DebugEncoder().encode_ddl(ddl).length()
    assert [r.checkpoint_ts for r in lines[1:]] == [9]
    assert (sink.ddl_count, sink.checkpoint_count, sink.checkpoint_ts) == (1, 1, 9)


async def test_without_encoder_no_size_field(caplog):
    caplog.set_level(logging.INFO, logger="tisink.ddlsink.log")
    await LogDDLSink().write_ddl_event(DDLEvent(7, DDLType.QUERY, "CREATE DATABASE d"))
    (record,) = [r for r in caplog.records if r.name == "tisink.ddlsink.log"]
    assert record.table == "" and not hasattr(record, "bytes")
