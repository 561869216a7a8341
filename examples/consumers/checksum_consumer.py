"""The correct consumer, also verifying every row's checksum as TiCDC's consumers do (Simple
JSON from a changefeed with ``[integrity] integrity-check-level = "correctness"``).

    python examples/consumers/checksum_consumer.py file:///tmp/cdc/tidb-cdc checksum.db
    python examples/consumers/checksum_consumer.py kafka://127.0.0.1:9092/tidb-cdc checksum.db \\
        --on-mismatch skip

Each DML's ``checksum.current`` (its new image) and ``checksum.previous`` (its old image) are
computed again from the message alone, as TiDB computes its column-level checksum: CRC32 over
the columns in the order the table's schema lists them (TiDB's column-id order while no DDL
reordered them), each non-NULL value as TiDB encodes it for the checksum. A row whose checksum
does not match, or that TiCDC marked ``corrupted``, is a mismatch, and ``--on-mismatch`` says
what the consumer does with it:

* ``warn`` (the default, like TiCDC's ``corruption-handle-level``): one line on stderr naming
  the table, key and commitTs, and the row is applied: it is the data TiCDC delivered;
* ``skip``: the row is dropped, as a consumer that throws away what it cannot verify does;
  ``tisink check`` then names the table and key it lost;
* ``stop``: the consumer stops before the row, what it applied so far kept, exit 1 (TiCDC's
  avro-checksum-verification example panics there).
"""

from __future__ import annotations

import base64
import json
import math
import struct
import sys
import zlib
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any
from zoneinfo import ZoneInfo

from simple_consumer import BINARY, DML, INTEGER, TEXTUAL, Consumer, SQLiteTarget, Table
from sources import SourceError, partition_count, read

ACTIONS = ("warn", "skip", "stop")
UTC = ZoneInfo("UTC")
AS_INTEGER = INTEGER | {"bit", "enum", "set"}
AS_TEXT = {"date", "datetime", "timestamp", "time", "decimal", "json"}


def column_bytes(data_type: dict[str, Any], value: Any) -> bytes:
    """What one column adds to TiDB's column-level checksum (nothing for NULL)."""
    if value is None:
        return b""
    kind = data_type["mysqlType"]
    if kind in AS_INTEGER:  # ENUM as its index, SET as its bits, BIT as the number
        return struct.pack("<Q", int(value) & 0xFFFF_FFFF_FFFF_FFFF)
    if kind in ("float", "double"):
        number = float(value)
        if kind == "float":  # the FLOAT TiDB stores, widened
            number = struct.unpack("<f", struct.pack("<f", number))[0]
        if math.isnan(number) or math.isinf(number):
            number = 0.0
        return struct.pack("<d", number)
    if kind == "vector":
        items = [float(x) for x in value.strip("[]").split(",") if x.strip()]
        return struct.pack("<I", len(items)) + struct.pack(f"<{len(items)}f", *items)
    if kind == "timestamp":  # {"location", "value"}: TiDB keeps it in UTC
        text = value["value"]
        local = datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(value["location"]))
        whole = local.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
        value = whole + text[19:]
    elif kind == "decimal":
        scale = Decimal(1).scaleb(-int(data_type.get("decimal", 0)))
        number = Decimal(value).quantize(scale, rounding=ROUND_HALF_UP)
        value = f"{abs(number) if number == 0 else number:f}"
    if kind in BINARY or (kind in TEXTUAL and data_type.get("charset") == "binary"):
        raw = base64.b64decode(value)
    elif kind in AS_TEXT or kind in TEXTUAL:
        raw = str(value).encode("utf-8", "surrogatepass")
    else:
        raise ValueError(f"no checksum encoding for {kind}")
    return struct.pack("<I", len(raw)) + raw


def column_checksum(table: Table, image: dict[str, Any]) -> int:
    crc = 0
    for column in table.columns:
        crc = zlib.crc32(column_bytes(table.types[column], image.get(column)), crc)
    return crc


class ChecksumConsumer(Consumer):
    """The correct consumer, checking each row's checksum on arrival."""

    def __init__(self, target: SQLiteTarget, partitions: int, on_mismatch: str) -> None:
        super().__init__(target, partitions)
        self.on_mismatch = on_mismatch
        self.verified = 0
        self.mismatched = 0
        self.schemas: dict[tuple[str, int], Table] = {}
        """Every schema announced so far, by table and version: a row is checked on arrival,
        against the schema its ``schemaVersion`` names, before its DDL is applied."""

    def on_message(self, partition: int, value: bytes) -> None:
        message = json.loads(value)
        schema = message.get("tableSchema")
        if schema is not None:
            self.schemas[f"{schema['schema']}.{schema['table']}", schema["version"]] = Table(schema)
        super().on_message(partition, value)

    def buffer_change(self, message: dict[str, Any], value: bytes) -> None:
        if message["type"] in DML and "checksum" in message:
            problem = self.mismatch(message)
            if problem is None:
                self.verified += 1
            else:
                self.mismatched += 1
                print(f"checksum mismatch: {problem}", file=sys.stderr)
                if self.on_mismatch == "stop":
                    sys.exit(1)
                if self.on_mismatch == "skip":
                    return
        super().buffer_change(message, value)

    def mismatch(self, message: dict[str, Any]) -> str | None:
        """What is wrong with the message's checksum, or None when it holds."""
        name = f"{message['database']}.{message['table']}"
        table = self.schemas.get((name, message.get("schemaVersion", 0))) or self.tables[name]
        checksum = message["checksum"]
        found = ["marked corrupted"] if checksum["corrupted"] else []
        for name, image in (("current", message.get("data")), ("previous", message.get("old"))):
            carried = checksum[name]
            if image is None or carried == 0:  # 0: the image has none
                continue
            computed = column_checksum(table, image)
            if computed != carried:
                found.append(f"{name} {carried} != {computed} computed")
        if not found:
            return None
        image = message.get("data") or message.get("old") or {}
        key = ", ".join(f"{c}={image.get(c)}" for c in table.key)
        return (
            f"{message['type']} {table.name} key ({key}) commitTs={message['commitTs']}: "
            + "; ".join(found)
        )


def main(argv: list[str]) -> None:
    on_mismatch = "warn"
    if len(argv) == 4 and argv[2] == "--on-mismatch" and argv[3] in ACTIONS:
        on_mismatch = argv[3]
    elif len(argv) != 2:
        sys.exit(
            f"usage: {sys.argv[0]} file:///dir/topic|kafka://host:port/topic DATABASE.db "
            f"[--on-mismatch {'|'.join(ACTIONS)}]"
        )
    source, database = argv[:2]
    try:
        partitions = partition_count(source)
    except SourceError as err:
        sys.exit(f"checksum_consumer.py: {err}")
    consumer = ChecksumConsumer(SQLiteTarget(database), partitions, on_mismatch)
    consumer.run(read(source))
    print(
        f"{consumer.verified} row checksum(s) verified, {consumer.mismatched} mismatched",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main(sys.argv[1:])
