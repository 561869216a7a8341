"""Simple Protocol Avro DML encode rate: the direct marshaller versus fastavro's generic writer.

Run: ``python bench/bench_simple_avro.py [--rows N] [--repeat R]``. Prints rows/s for a
10-column row and the 55-column large-event row, for ``AvroMarshaller`` and for
``GenericAvroMarshaller`` (fastavro ``schemaless_writer`` on the official schema), and their ratio.
One process, one core; the best of ``--repeat`` runs is reported. The large-event row is read
from the shared golden data beside the repository.
"""

from __future__ import annotations

import argparse
import base64
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tisink.bench.rows import TEXT
from tisink.codec.simple.avro import AvroMarshaller
from tisink.codec.simple.avro.generic import GenericAvroMarshaller
from tisink.model.events import RowChangedEvent
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table

REPO = Path(__file__).resolve().parents[1]
LARGE_EVENT_TABLE = REPO / "tests" / "codec" / "data" / "large_event_table.json"
LARGE_EVENT_VALUES = (
    REPO / "tests" / "data" / "formats" / "ticdc-simple" / "golden" / "large-event"
) / "mock_row_values.json"
BUILD_TS = 1_708_923_662_983


def ten_column_rows(count: int) -> list[RowChangedEvent]:
    table = make_table(
        "bench",
        "orders",
        101,
        447984074911121426,
        [
            ColumnInfo("id", "bigint", length=20, nullable=False),
            ColumnInfo("customer", "varchar", length=64, **TEXT),
            ColumnInfo("quantity", "int", length=11),
            ColumnInfo("price", "decimal", length=12, decimal=2),
            ColumnInfo("weight", "float", length=12),
            ColumnInfo("ratio", "double", length=22),
            ColumnInfo("status", "tinyint", length=4),
            ColumnInfo("created", "timestamp", length=19),
            ColumnInfo("note", "text", length=65535, **TEXT),
            ColumnInfo("payload", "varbinary", length=64),
        ],
        [IndexInfo("PRIMARY", ("id",), unique=True, primary=True)],
    )
    rows = []
    for i in range(count):
        image = {
            "id": 1_000_000 + i,
            "customer": f"customer-{i % 997}",
            "quantity": i % 50,
            "price": f"{i % 10000}.{i % 100:02d}",
            "weight": 0.5 + i % 40,
            "ratio": i / 7.0,
            "status": i % 3,
            "created": f"2024-03-11 08:{i % 60:02d}:{(i // 60) % 60:02d}",
            "note": "a short note about the order" if i % 4 else None,
            "payload": "AAECAwQFBgcICQ==",
        }
        rows.append(RowChangedEvent(i, 447984084414103554 + i, table, after=image))
    return rows


def large_event_rows(count: int) -> list[RowChangedEvent]:
    """The 55-column large-event table with the golden mock row in feed form."""
    table = TableInfo.from_dict(json.loads(LARGE_EVENT_TABLE.read_text("utf-8")))
    mock = json.loads(LARGE_EVENT_VALUES.read_text("utf-8"))
    image: dict[str, Any] = {}
    for column in table.columns:
        text = mock["text_values"].get(column.name)
        family = column.family
        if column.name in mock["binary_values_hex"]:
            image[column.name] = int(mock["binary_values_hex"][column.name], 16)
        elif text is None:
            image[column.name] = None
        elif family in (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.YEAR):
            image[column.name] = int(text)
        elif family in (TypeFamily.FLOAT, TypeFamily.DOUBLE):
            image[column.name] = float(text)
        elif family is TypeFamily.BINARY:
            image[column.name] = base64.b64encode(text.encode()).decode()
        elif family is TypeFamily.SET:
            image[column.name] = text.split(",")
        elif family in (TypeFamily.VECTOR, TypeFamily.JSON):
            image[column.name] = json.loads(text)
        else:
            image[column.name] = text
    return [RowChangedEvent(i, 447984084414103554 + i, table, after=image) for i in range(count)]


def rate(
    encode: Callable[[RowChangedEvent, int], Any], rows: list[RowChangedEvent], repeat: int
) -> float:
    """Best rows/s over ``repeat`` passes."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for row in rows:
            encode(row, BUILD_TS)
        best = min(best, time.perf_counter() - start)
    return len(rows) / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    direct = AvroMarshaller("UTC")
    generic = GenericAvroMarshaller("UTC")
    for label, rows in (
        ("10 columns", ten_column_rows(args.rows)),
        ("55 columns (large event)", large_event_rows(args.rows // 4)),
    ):
        assert direct.marshal_row(rows[0], BUILD_TS) == generic.marshal_row(rows[0], BUILD_TS)
        fast = rate(direct.marshal_row, rows, args.repeat)
        slow = rate(generic.marshal_row, rows, args.repeat)
        size = len(direct.marshal_row(rows[0], BUILD_TS))
        print(
            f"{label:26s} direct {fast:>10,.0f} rows/s ({1e6 / fast:6.2f} us/row)   "
            f"fastavro {slow:>9,.0f} rows/s ({1e6 / slow:6.2f} us/row)   "
            f"x{fast / slow:5.1f}   {size} bytes/message"
        )


if __name__ == "__main__":
    main()
