"""The ``source`` block of every Debezium value (TiCDC ``EncodeValue`` and friends).

``version`` is the Debezium release TiCDC mimics, ``connector`` "TiCDC", ``name`` the raw
cluster id, ``ts_ms`` the commit's physical milliseconds; the binlog fields are constants, and
``commit_ts`` and ``cluster_id`` (TiDB extensions) are always in the payload, whether or not the
schema declares them. ``start_ts`` only in row values with ``debezium-include-start-ts`` (ticdc).
"""

from __future__ import annotations

from typing import Any

from tisink.codec.debezium.jsonwriter import quote
from tisink.model.tso import physical_ms

VERSION = "2.4.0.Final"
CONNECTOR = "TiCDC"


def source_block(cluster_id: str, db: str, table: str, commit_ts: int) -> dict[str, Any]:
    """The block of DDL and watermark values, as an ordered dict."""
    return {
        "version": VERSION,
        "connector": CONNECTOR,
        "name": cluster_id,
        "ts_ms": physical_ms(commit_ts),
        "snapshot": "false",
        "db": db,
        "table": table,
        "server_id": 0,
        "gtid": None,
        "file": "",
        "pos": 0,
        "row": 0,
        "thread": 0,
        "query": None,
        "commit_ts": commit_ts,
        "cluster_id": cluster_id,
    }


def source_template(cluster_id: str, db: str, table: str, start_ts: bool) -> bytes:
    """The row values' block as a %-format taking ``ts_ms``, ``commit_ts`` [and ``start_ts``];
    the names in it are %-escaped."""
    cluster = quote(cluster_id).replace(b"%", b"%%")
    return (
        b'{"version":"2.4.0.Final","connector":"TiCDC","name":'
        + cluster
        + b',"ts_ms":%d,"snapshot":"false","db":'
        + quote(db).replace(b"%", b"%%")
        + b',"table":'
        + quote(table).replace(b"%", b"%%")
        + b',"server_id":0,"gtid":null,"file":"","pos":0,"row":0,"thread":0,"query":null'
        + b',"commit_ts":%d'
        + (b',"start_ts":%d' if start_ts else b"")
        + b',"cluster_id":'
        + cluster
        + b"}"
    )
