"""DDL messages (tiflow master and ticdc ``EncodeDDLEvent``; classic v8.x sends none).

Key ``{"payload":{"databaseName":...}}`` (``SchemaChangeKey``), value payload ``source``,
``ts_ms``, ``databaseName``, ``schemaName`` (null), ``ddl`` and ``tableChanges``. The change type
comes from TiDB's action, which the model names with the Simple DDL types; DDLs Debezium has no
type for (foreign keys, and QUERY statements other than databases and views) are dropped with a
warning, as TiCDC drops ``ErrDDLUnsupportType``.
"""

from __future__ import annotations

import logging
import re
from functools import cache
from typing import Any

from tisink.codec.debezium.ddl_columns import table_change
from tisink.codec.debezium.ddl_schema import ddl_value_schema
from tisink.codec.debezium.jsonwriter import dumps
from tisink.model.events import DDLEvent, DDLType

log = logging.getLogger(__name__)

_DDL_KEY_SCHEMA = (
    b',"schema":{"type":"struct","name":"io.debezium.connector.mysql.SchemaChangeKey",'
    b'"optional":false,"version":1,"fields":[{"field":"databaseName","optional":false,'
    b'"type":"string"}]}'
)
_STATEMENT = re.compile(
    r"\s*(?:/\*.*?\*/\s*)*(CREATE|DROP|ALTER)\s+(?:OR\s+REPLACE\s+)?(?:ALGORITHM\s*=\s*\w+\s+)?"
    r"(?:DEFINER\s*=\s*\S+\s+)?(?:SQL\s+SECURITY\s+\w+\s+)?(DATABASE|SCHEMA|VIEW)\b"
    r"(?:\s+IF\s+(?:NOT\s+)?EXISTS)?\s*(`(?:[^`]|``)*`|[\w$]+)?",
    re.IGNORECASE | re.DOTALL,
)
_FOREIGN_KEY = re.compile(r"\bFOREIGN\s+KEY\b", re.IGNORECASE)
_KIND_CHANGE = {
    DDLType.CREATE: "CREATE",
    DDLType.ALTER: "ALTER",
    DDLType.RENAME: "ALTER",
    DDLType.CINDEX: "ALTER",
    DDLType.DINDEX: "DROP",
    DDLType.ERASE: "DROP",
    DDLType.TRUNCATE: "DROP",
}


def change_type(ddl: DDLEvent) -> str | None:
    """CREATE, ALTER or DROP as TiCDC maps the DDL's action; None when it has no mapping."""
    kind = ddl.ddl_type
    if kind in (DDLType.CINDEX, DDLType.DINDEX) and _FOREIGN_KEY.search(ddl.query):
        return None
    if kind is DDLType.DINDEX and _drops_primary_key(ddl):
        return "ALTER"  # ActionDropPrimaryKey
    if kind is DDLType.QUERY:
        match = _STATEMENT.match(ddl.query)
        return match.group(1).upper() if match else None
    return _KIND_CHANGE.get(kind)


def _drops_primary_key(ddl: DDLEvent) -> bool:
    had = ddl.pre_table is not None and any(i.primary for i in ddl.pre_table.indexes)
    has = ddl.table is not None and any(i.primary for i in ddl.table.indexes)
    return had and not has


def ddl_names(ddl: DDLEvent) -> tuple[str, str]:
    """(database, table) after the DDL; a database or view statement without a table schema
    names its database from the query."""
    subject = ddl.table or ddl.pre_table
    if subject is not None:
        return subject.schema, subject.table
    match = _STATEMENT.match(ddl.query)
    if match and match.group(2).upper() != "VIEW" and match.group(3):
        name = match.group(3)
        return (name[1:-1].replace("``", "`") if name.startswith("`") else name), ""
    return "", ""


def _table_changes(ddl: DDLEvent, change: str, db: str, table: str) -> list[dict[str, Any]]:
    if not table or ddl.ddl_type is DDLType.TRUNCATE:
        return []
    entry: dict[str, Any] = {"type": change}
    pre = ddl.pre_table
    if ddl.ddl_type is DDLType.RENAME and pre is not None:
        entry["id"] = f'"{pre.schema}"."{pre.table}","{db}"."{table}"'
    else:
        entry["id"] = f'"{db}"."{table}"'
    subject = ddl.table or pre
    if ddl.ddl_type is DDLType.ERASE or subject is None:
        entry["table"] = None
    else:
        entry["table"] = table_change(subject)
    return [entry]


@cache
def _schema_bytes(tidb_extension: bool) -> bytes:
    return b',"schema":' + dumps(ddl_value_schema(tidb_extension))


def encode_ddl(
    ddl: DDLEvent,
    source: dict[str, Any],
    now_ms: int,
    *,
    with_schema: bool,
    tidb_extension: bool,
    newarch: bool = True,
) -> tuple[bytes, bytes] | None:
    """``(key, value)`` of a DDL; None (logged) when Debezium has no change type for it.
    ``source`` is the filled-in ``source`` block (without ``start_ts``); ``tidb_extension``
    declares ``commit_ts``/``cluster_id`` in its schema. tiflow (``newarch`` false) names a
    DROP TABLE's database after the table before the DDL."""
    change = change_type(ddl)
    if change is None:
        log.warning("DDL %s has no Debezium change type and is not sent", ddl.describe())
        return None
    db, table = ddl_names(ddl)
    database = db
    if not newarch and ddl.ddl_type is DDLType.ERASE and ddl.pre_table is not None:
        database = ddl.pre_table.schema
    key = (
        b'{"payload":'
        + dumps({"databaseName": database})
        + (_DDL_KEY_SCHEMA if with_schema else b"")
    )
    payload = {
        "source": source,
        "ts_ms": now_ms,
        "databaseName": database,
        "schemaName": None,
        "ddl": ddl.query,
        "tableChanges": _table_changes(ddl, change, db, table),
    }
    value = (
        b'{"payload":' + dumps(payload) + (_schema_bytes(tidb_extension) if with_schema else b"")
    )
    return key + b"}", value + b"}"
