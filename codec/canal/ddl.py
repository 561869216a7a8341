"""DDL and WATERMARK messages: TiCDC marshals its ``JSONMessage`` struct for them (goccy/go-json),
so every field is present in struct order, ``data`` before ``old``, the empty ones ``null``, and
``_tidb`` (``canalJSONMessageWithTiDBExtension``) last with its zero fields omitted."""

from __future__ import annotations

import re
from typing import Any

from tisink.codec.canal.jsontext import dumps
from tisink.model.events import DDLEvent

WATERMARK_TYPE = "TIDB_WATERMARK"

_DATABASE_STATEMENT = re.compile(
    r"\s*(?:CREATE|DROP|ALTER)\s+(?:DATABASE|SCHEMA)\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?"
    r"(`(?:[^`]|``)+`|[^\s;`]+)",
    re.IGNORECASE,
)


def ddl_names(ddl: DDLEvent) -> tuple[str, str]:
    """``database`` and ``table`` of a DDL message: the table after the DDL (before it for a
    DROP); a database statement names its database, with ``table`` empty."""
    subject = ddl.table or ddl.pre_table
    if subject is not None:
        return subject.schema, subject.table
    match = _DATABASE_STATEMENT.match(ddl.query)
    if match is None:
        return "", ""
    name = match.group(1)
    return (name[1:-1].replace("``", "`") if name.startswith("`") else name), ""


def _message(
    database: str, table: str, is_ddl: bool, kind: str, es: int, ts: int, sql: str
) -> dict[str, Any]:
    return {
        "id": 0,
        "database": database,
        "table": table,
        "pkNames": None,
        "isDdl": is_ddl,
        "type": kind,
        "es": es,
        "ts": ts,
        "sql": sql,
        "sqlType": None,
        "mysqlType": None,
        "data": None,
        "old": None,
    }


def encode_ddl(ddl: DDLEvent, now_ms: int, tidb_extension: bool) -> bytes:
    """A DDL message; ``type`` is Canal's event type of the DDL (TiCDC ``convertDdlEventType``,
    the names tisink's DDL types already carry)."""
    database, table = ddl_names(ddl)
    body = _message(
        database, table, True, ddl.ddl_type.value, ddl.commit_ts >> 18, now_ms, ddl.query
    )
    if tidb_extension:
        body["_tidb"] = {"commitTs": ddl.commit_ts} if ddl.commit_ts else {}
    return dumps(body)


def encode_watermark(ts: int, now_ms: int) -> bytes:
    """A ``TIDB_WATERMARK`` message (only sent with the TiDB extension)."""
    body = _message("", "", False, WATERMARK_TYPE, ts >> 18, now_ms, "")
    body["_tidb"] = {"watermarkTs": ts} if ts else {}
    return dumps(body)
