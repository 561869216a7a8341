"""Simple Protocol encode throughput: JSON and Avro, 10-column and 55-column rows.

Baselines in the same run: ``orjson.dumps`` of the finished message dict (the floor for any
JSON encoder built on orjson) and fastavro's generic ``schemaless_writer`` on the finished native
message (what the specialised Avro writer replaces). Run: ``python bench/bench_simple_encode.py``.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tisink.codec.clock import FixedClock
from tisink.codec.config import EncoderConfig
from tisink.codec.simple.encoder import SimpleEncoder
from tisink.model import ColumnInfo, IndexInfo, RowChangedEvent, TableInfo, make_table

ROOT = Path(__file__).resolve().parents[1]
TEXT = {"charset": "utf8mb4", "collate": "utf8mb4_bin"}


def ten_column_rows(count: int) -> list[RowChangedEvent]:
    """A typical OLTP row: ids, names, amounts, a timestamp, a status enum."""
    table = make_table(
        "shop",
        "orders",
        101,
        7,
        [
            ColumnInfo("id", "bigint", length=20, nullable=False),
            ColumnInfo("customer_id", "int", length=11),
            ColumnInfo("name", "varchar", length=64, **TEXT),
            ColumnInfo("email", "varchar", length=128, **TEXT),
            ColumnInfo("amount", "decimal", length=12, decimal=2),
            ColumnInfo("quantity", "smallint", length=6),
            ColumnInfo("price", "double"),
            ColumnInfo("status", "enum", elements=("new", "paid", "shipped"), **TEXT),
            ColumnInfo("created_at", "timestamp"),
            ColumnInfo("note", "text", **TEXT),
        ],
        [IndexInfo("primary", ("id",), unique=True, primary=True)],
    )
    rng = random.Random(7)
    rows = []
    for i in range(count):
        image = {
            "id": 10_000_000 + i,
            "customer_id": rng.randrange(1, 1 << 30),
            "name": f"customer {rng.randrange(10**6)}",
            "email": f"user{rng.randrange(10**6)}@example.com",
            "amount": f"{rng.randrange(10**6)}.{rng.randrange(100):02d}",
            "quantity": rng.randrange(1, 100),
            "price": rng.randrange(1, 10**6) / 100,
            "status": rng.choice(("new", "paid", "shipped")),
            "created_at": f"2024-05-{rng.randrange(1, 29):02d} 12:{rng.randrange(60):02d}:07",
            "note": "deliver to the back door" if i % 3 else None,
        }
        rows.append(RowChangedEvent(i, i + 1, table, after=image))
    return rows


def large_event_rows(count: int) -> list[RowChangedEvent]:
    """The golden 55-column large-event row (tests/codec/data + shared mock values)."""
    table = TableInfo.from_dict(
        json.loads((ROOT / "tests/codec/data/large_event_table.json").read_text("utf-8"))
    )
    mock_path = ROOT.parent / "shared/formats/ticdc-simple/golden/large-event/mock_row_values.json"
    mock = json.loads(mock_path.read_text("utf-8"))
    image: dict[str, Any] = {}
    for column in table.columns:
        text = mock["text_values"].get(column.name)
        family = column.family.value
        if column.name == "bitT":
            image[column.name] = 0x41
        elif text is None:
            image[column.name] = None
        elif family in ("int", "bigint", "year"):
            image[column.name] = int(text)
        elif family in ("float", "double"):
            image[column.name] = float(text)
        elif family == "binary":
            image[column.name] = base64.b64encode(text.encode()).decode()
        elif family == "set":
            image[column.name] = text.split(",")
        elif family in ("json", "vector"):
            image[column.name] = json.loads(text)
        else:
            image[column.name] = text
    return [RowChangedEvent(i, i + 1, table, after=image) for i in range(count)]


def rate(label: str, rows: list[Any], fn: Callable[[Any], object], repeat: int) -> float:
    """Best rows per CPU second over ``repeat`` passes: process time, so other processes on a
    shared machine do not count against us."""
    best = 0.0
    for _ in range(repeat):
        start = time.process_time()
        for row in rows:
            fn(row)
        best = max(best, len(rows) / max(time.process_time() - start, 1e-9))
    print(f"  {label:<44} {best:>12,.0f} rows/s  {1e6 / best:7.2f} us/row")
    return best


def calibrate() -> None:
    """Print the cost of an empty loop turn, to compare figures across machines."""
    turns = 2_000_000
    start = time.process_time()
    for _ in range(turns):
        pass
    print(f"machine: empty loop turn {1e9 * (time.process_time() - start) / turns:.1f} ns")


def run(name: str, rows: list[RowChangedEvent], repeat: int) -> None:
    print(f"{name} ({len(rows)} rows, best of {repeat})")
    json_encoder = SimpleEncoder(EncoderConfig(time_zone="UTC"), FixedClock(1))
    ours = rate("SimpleEncoder json encode_row", rows, json_encoder.encode_row, repeat)
    dicts = [orjson.loads(json_encoder.encode_row(row).value) for row in rows]
    floor = rate("baseline: orjson.dumps(finished dict)", dicts, orjson.dumps, repeat)
    print(f"  json: {ours / floor:.2f}x of the orjson.dumps floor")
    try:
        from tisink.codec.simple.avro.generic import GenericAvroMarshaller, write_native
    except ImportError:
        print("  avro: codec.simple.avro not available, skipped")
        return
    avro_encoder = SimpleEncoder(
        EncoderConfig(time_zone="UTC", encoding_format="avro"), FixedClock(1)
    )
    avro = rate("SimpleEncoder avro encode_row", rows, avro_encoder.encode_row, repeat)
    generic = GenericAvroMarshaller("UTC")
    natives = [generic.native_row(row, 1) for row in rows]
    fastavro_rate = rate("baseline: fastavro schemaless_writer(native)", natives, write_native, 3)
    print(f"  avro: {avro / fastavro_rate:.2f}x fastavro's generic writer")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    calibrate()
    run("10-column row", ten_column_rows(args.rows), args.repeat)
    run("55-column large-event row", large_event_rows(max(args.rows // 5, 1)), args.repeat)


if __name__ == "__main__":
    main()
