"""The values of Tencent ``Record`` fields that are not row data: enums, constants, columns.

Shared by the byte writer, the generic datums and the decoder, so they cannot disagree. The
schema itself is rebuilt (``avsc/tencent/Record.avsc``; choices in its ``SCHEMA_NOTES.md``).
"""

from __future__ import annotations

from tisink.codec.dts.avro.layout import TableLayout
from tisink.codec.dts.mysql_codes import original_type
from tisink.model.events import DDLEvent
from tisink.model.table import TableInfo

VERSION = 1
"""``Record.version``: "currently 1" (seeds/003)."""

NAMESPACE = "com.tencent.subscribe.avro"

MESSAGE_TYPES: tuple[str, ...] = (
    "INSERT",
    "UPDATE",
    "DELETE",
    "DDL",
    "BEGIN",
    "COMMIT",
    "HEARTBEAT",
    "CHECKPOINT",
    "ROLLBACK",
)
"""The ``MessageType`` enum as the documentation's excerpt of ``Record.avsc`` lists it."""

SOURCE_TYPE = "MySQL"
TOTAL = 1
INDEX = 0
"""``total``/``index``: reserved for slicing, which version 1 never does: one slice, the 0th."""
DDL_EXECUTION_TIME_S = 0
"""TiDB's changefeed does not carry how long a DDL ran."""


def object_name(schema: str, table: str) -> str:
    """``db.table`` as documented, no escaping (Tencent's docs mention none)."""
    return f"{schema}.{table}"


def ddl_subject(ddl: DDLEvent) -> TableInfo | None:
    """The table a DDL is about (after it, else before it)."""
    return ddl.table or ddl.pre_table


def column_fields(layout: TableLayout) -> list[tuple[str, int, bool, str]]:
    """``Field``s of the stored columns: name, dataTypeNumber, isKey (in the primary key),
    originalType (the declared type text)."""
    columns = layout.table.column_by_name
    primary = set(layout.primary_key)
    return [
        (name, mapping.type_code, name in primary, original_type(columns[name]))
        for name, mapping in zip(layout.names, layout.mappings, strict=True)
    ]
