"""A naive consumer that is right while each table's commit ts only grows, and loses rows
when it goes back (pingcap/ticdc#3040, #4130, #5508, #4051).

    python examples/consumers/high_water_consumer.py file:///tmp/cdc/tidb-cdc high_water.db

It is the correct consumer but for one rule TiCDC's own kafka-consumer once had: a row whose
commitTs is below the newest one received for its table is taken for an old copy (a "fallback
row") and dropped. Under a split table (two capture nodes write one table's rows to the same
partition) or a restart after a failed send, a row arrives for the first time after a newer row
of its table: it is dropped though it was never applied, and ``tisink check`` names the table
and the key. The correct consumer drops only what it already applied (its resolved ts).
"""

from __future__ import annotations

import sys
from typing import Any

from simple_consumer import DML, Consumer, SQLiteTarget


class HighWaterConsumer(Consumer):
    """Drops a row below its table's high-water mark (the newest commitTs received for it)."""

    def __init__(self, target: SQLiteTarget, partitions: int) -> None:
        super().__init__(target, partitions)
        self.high_water: dict[str, int] = {}

    def buffer_change(self, message: dict[str, Any], value: bytes) -> None:
        if message["type"] in DML:
            table = f"{message['database']}.{message['table']}"
            if message["commitTs"] < self.high_water.get(table, 0):
                return  # "fallback row, since less than the table's high watermark"
            self.high_water[table] = message["commitTs"]
        super().buffer_change(message, value)


if __name__ == "__main__":
    from simple_consumer import main

    main(sys.argv[1:], HighWaterConsumer)
