"""A naive consumer that is right on exactly-once traffic and wrong under replays.

    python examples/consumers/naive_consumer.py file:///tmp/cdc/tidb-cdc naive.db

It buffers changes until every partition resolved them, as the correct one does, but keeps
every copy it receives, and applies an UPDATE of an integer column as the difference between
the new and the old value (``qty = qty + new - old``), as consumers that maintain counters
often do. Applied once, that is the new value; applied again (a restarted
TiCDC sends the changes after its last checkpoint once more), the row drifts, and
``tisink check`` names the table, the key and the column.
"""

from __future__ import annotations

import sys
from typing import Any

from simple_consumer import Consumer, Table, quote

COUNTERS = {"tinyint", "smallint", "mediumint", "int"}
"""Column types it treats as counters (a BIGINT's delta could overflow SQLite's integers)."""


class NaiveConsumer(Consumer):
    """Buffers every copy (no deduplication); UPDATEs as deltas."""

    def buffer_change(self, message: dict[str, Any], value: bytes) -> None:
        self.arrivals += 1
        self.buffer[b"%d" % self.arrivals] = (message["commitTs"], self.arrivals, message)

    def update(self, table: Table, new: dict[str, Any], old: dict[str, Any]) -> None:
        counters = [
            c
            for c in table.columns
            if table.types[c]["mysqlType"] in COUNTERS
            and c not in table.key
            and new.get(c) is not None
            and old.get(c) is not None
            and new[c] != old[c]
        ]
        if any(new.get(c) != old.get(c) for c in table.key) or not counters:
            super().update(table, new, old)
            return
        sets = ", ".join(f"{quote(c)} = {quote(c)} + ?" for c in counters)
        where = " AND ".join(f"{quote(c)} = ?" for c in table.key)
        deltas = [int(new[c]) - int(old[c]) for c in counters]
        keys = [table.value(c, new[c]) for c in table.key]
        self.target.conn.execute(
            f"UPDATE {quote(table.name)} SET {sets} WHERE {where}", deltas + keys
        )
        rest = {c: v for c, v in new.items() if c not in counters}
        columns = [c for c in rest if c not in table.key]
        if columns:
            assignments = ", ".join(f"{quote(c)} = ?" for c in columns)
            values = [table.value(c, rest[c]) for c in columns]
            self.target.conn.execute(
                f"UPDATE {quote(table.name)} SET {assignments} WHERE {where}", values + keys
            )


if __name__ == "__main__":
    from simple_consumer import main

    main(sys.argv[1:], NaiveConsumer)
