"""Partitions of many rows at once, for a dispatcher that hashes one integer column.

A Spark task that builds only its own rows must know, for every key a table ever has, which
partition it goes to: hundreds of thousands of keys, where the per-row partitioner costs half a
microsecond each. For the usual case (``index-value`` or ``columns`` over one integer key) the
hashed bytes are the value in decimal, so the CRC-32 of all of them is worked out digit by digit
over arrays: the same numbers ``_hash_columns`` gives, byte for byte (tests hold it to that).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

import numpy as np

from tisink.eventsink.router.hash import crc32_of
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import TableInfo

BulkPartitioner = Callable[[np.ndarray, int], np.ndarray]
"""Partition numbers (int64) of rows whose hashed column holds the given non-negative values."""


def _crc_table() -> np.ndarray:
    table = np.zeros(256, dtype=np.uint32)
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0xEDB88320 if crc & 1 else crc >> 1
        table[byte] = crc
    return table


_TABLE = _crc_table()
_MASK = np.uint32(0xFFFFFFFF)


def crc32_of_decimals(values: np.ndarray, start: int) -> np.ndarray:
    """``zlib.crc32(str(v).encode(), start)`` of each non-negative value (int64)."""
    values = values.astype(np.int64)
    out = np.zeros(len(values), dtype=np.uint32)
    lengths = np.ones(len(values), dtype=np.int64)
    bound = 10
    while bound <= (int(values.max()) if len(values) else 0):
        lengths += values >= bound
        bound *= 10
    for width in np.unique(lengths).tolist():
        mask = lengths == width
        group = values[mask]
        crc = np.full(len(group), np.uint32(start) ^ _MASK, dtype=np.uint32)
        for place in range(width - 1, -1, -1):
            digit = (group // 10**place) % 10 + 48
            crc = _TABLE[(crc ^ digit.astype(np.uint32)) & np.uint32(0xFF)] ^ (crc >> np.uint32(8))
        out[mask] = crc ^ _MASK
    return out


def integer_partitioner(table: TableInfo, column: str) -> BulkPartitioner | None:
    """The bulk form of ``_hash_columns`` over the one column ``column`` of ``table``; None
    when that column is not an integer one (its hashed bytes are not its decimal text)."""
    col = table.column_by_name.get(column)
    if col is None or col.family not in (TypeFamily.INT, TypeFamily.BIGINT):
        return None
    base = crc32_of(table.schema.encode(), table.table.encode())
    name_crc = zlib.crc32(col.name.encode())

    def partitions(values: np.ndarray, partition_num: int) -> np.ndarray:
        crc = crc32_of_decimals(values, name_crc).astype(np.int64)
        return (np.int64(base) ^ crc) % partition_num

    return partitions
