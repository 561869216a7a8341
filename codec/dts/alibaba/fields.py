"""The values of Alibaba ``Record`` fields that are not row data: enums, names, tags.

Shared by the byte writer, the generic datums and the decoder, so they cannot disagree.
"""

from __future__ import annotations

from tisink.codec.dts import binlog
from tisink.model.events import DDLEvent

VERSION = 2
"""``Record.version``: 2 per the Alibaba-compatible format's documentation (seeds/003); the
SDKs we read ignore it."""

NAMESPACE = "com.alibaba.dts.formats.avro"

OPERATIONS: tuple[str, ...] = (
    "INSERT",
    "UPDATE",
    "DELETE",
    "DDL",
    "BEGIN",
    "COMMIT",
    "ROLLBACK",
    "ABORT",
    "HEARTBEAT",
    "CHECKPOINT",
    "COMMAND",
    "FILL",
    "FINISH",
    "CONTROL",
    "RDB",
    "NOOP",
    "INIT",
)
"""The ``Operation`` enum's symbols in order (their index is what goes on the wire)."""

SOURCE_TYPE_MYSQL = 0
"""``SourceType.MySQL``: TiDB speaks MySQL's protocol and types."""

PK_UK_INFO = "pk_uk_info"
GTID = "GTID"
GTID_SET = "GTID_SET"
_DOT_ESCAPE = "\\u002E"


def escape_name(name: str) -> str:
    """A name part of ``objectName``: a literal dot becomes the six characters ``\\u002E``, as
    the Alibaba SDK splits ``db.table`` on unescaped dots."""
    return name.replace(".", _DOT_ESCAPE)


def unescape_name(part: str) -> str:
    return part.replace(_DOT_ESCAPE, ".")


def object_name(schema: str, table: str) -> str:
    return f"{escape_name(schema)}.{escape_name(table)}"


def split_object_name(name: str) -> tuple[str, str]:
    """(database, table) of an ``objectName``; table "" for a database-level name."""
    schema, _dot, table = name.partition(".")
    return unescape_name(schema), unescape_name(table)


def ddl_object_name(ddl: DDLEvent) -> str | None:
    """The table a DDL is about (after it, else before it); None without one."""
    subject = ddl.table or ddl.pre_table
    return None if subject is None else object_name(subject.schema, subject.table)


def tag_values(pk_uk_info: str | None) -> dict[str, str]:
    """The constant ``tags`` of a record, in the order they are written; a transaction's
    records add ``GTID``, a CHECKPOINT ``GTID_SET`` (the documented keys, seeds/003)."""
    tags = {} if pk_uk_info is None else {PK_UK_INFO: pk_uk_info}
    tags["thread_id"] = str(binlog.THREAD_ID)
    tags["server_id"] = str(binlog.SERVER_ID)
    return tags
