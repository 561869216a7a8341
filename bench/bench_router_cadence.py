"""Per-row cost of routing (topic + partition) and of the bootstrap cadence check.

Rows are insert-only images of a 10-column table (bigint key, varchar, double, decimal,
datetime columns), spread over a few tables; they are built before timing. Each dispatcher is
timed over the same rows, next to a bare loop over them as the baseline.

    python bench/bench_router_cadence.py --rows 500000
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tisink.codec.bootstrap import BootstrapCadence
from tisink.codec.config import EncoderConfig
from tisink.core.clock import FixedClock
from tisink.eventsink.router import DispatchRule, EventRouter
from tisink.model.events import RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo, make_table

PARTITIONS = 12


def make_tables(count: int) -> list[TableInfo]:
    columns = [
        ColumnInfo("id", "bigint", nullable=False),
        ColumnInfo("name", "varchar", charset="utf8mb4", length=64),
        ColumnInfo("score", "double"),
        ColumnInfo("amount", "decimal", length=12, decimal=2),
        ColumnInfo("created", "datetime", decimal=3),
    ] + [ColumnInfo(f"c{i}", "int") for i in range(5)]
    pk = IndexInfo("PRIMARY", ("id",), unique=True, primary=True)
    return [make_table("bench", f"t{n}", 100 + n, 1, columns, [pk]) for n in range(count)]


def make_rows(tables: list[TableInfo], count: int) -> list[RowChangedEvent]:
    rows = []
    for i in range(count):
        image = {
            "id": i,
            "name": f"name-{i % 977}",
            "score": i / 7,
            "amount": f"{i % 10000}.25",
            "created": "2024-05-06 07:08:09.123",
            **{f"c{k}": i + k for k in range(5)},
        }
        rows.append(RowChangedEvent(i, i + 1, tables[i % len(tables)], after=image))
    return rows


def routing(router: EventRouter) -> Callable[[RowChangedEvent], object]:
    """One row's topic and partition, as the MQ sink asks them."""
    return lambda row: (router.topic_for_row(row), router.partition_for_row(row, PARTITIONS))


def timed(label: str, rows: list[RowChangedEvent], work: Callable[[RowChangedEvent], object]):
    start = time.perf_counter()
    for row in rows:
        work(row)
    elapsed = time.perf_counter() - start
    print(
        f"{label:<28} {elapsed * 1e9 / len(rows):8.0f} ns/row  {len(rows) / elapsed:12,.0f} rows/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=500_000)
    parser.add_argument("--tables", type=int, default=8)
    args = parser.parse_args()
    rows = make_rows(make_tables(args.tables), args.rows)

    timed("baseline (bare loop)", rows, lambda row: None)
    for partition, columns in [
        ("table", ()),
        ("ts", ()),
        ("index-value", ()),
        ("columns", ("name", "amount", "created")),
    ]:
        rule = DispatchRule(("bench.*",), topic="cdc_{table}", partition=partition, columns=columns)
        timed(f"route {partition}", rows, routing(EventRouter("cdc", [rule])))

    clock = FixedClock(1_700_000_000_000)
    cadence = BootstrapCadence(EncoderConfig().bootstrap, clock)

    def cadence_step(row: RowChangedEvent) -> None:
        clock.ms += 1
        cadence.add_event(row.table, "cdc", PARTITIONS)
        cadence.tick()

    timed("cadence add_event+tick", rows, cadence_step)


if __name__ == "__main__":
    main()
