"""Shared pieces of the Open Protocol tests: encoders, tables, rows and batch splitting."""

from __future__ import annotations

import struct
from typing import Any

from tisink.codec.config import EncoderConfig
from tisink.codec.open.encoder import OpenEncoder
from tisink.codec.open.options import OpenOptions
from tisink.core.clock import FixedClock
from tisink.model import ColumnInfo, IndexInfo, RowChangedEvent, TableInfo, make_table

TS = 449_999_999_999_999_999
"""An 18-digit commitTs, as the TSOs of tiflow's schema test helper."""


def encoder(config: dict[str, Any] | None = None, **options: Any) -> OpenEncoder:
    """An Open Protocol encoder (UTC) with ``options`` and EncoderConfig fields ``config``."""
    settings: dict[str, Any] = {"time_zone": "UTC", **(config or {})}
    encoder_config = EncoderConfig(protocol="open", options=OpenOptions(**options), **settings)
    return OpenEncoder(encoder_config, FixedClock(0), uuid_factory=lambda: "fixed-uuid")


def varchar(name: str, nullable: bool = True) -> ColumnInfo:
    return ColumnInfo(name, "varchar", "utf8mb4", "utf8mb4_bin", 10, nullable=nullable)


def string_keyed() -> TableInfo:
    """tiflow's ``test.t(a varchar(10) primary key, b varchar(10))``."""
    return make_table(
        "test",
        "t",
        100,
        1,
        [varchar("a", nullable=False), varchar("b")],
        [IndexInfo("primary", ("a",), True, True)],
    )


def insert(table: TableInfo, after: dict[str, Any], ts: int = TS) -> RowChangedEvent:
    return RowChangedEvent(ts - 5, ts, table, None, after)


def update(table: TableInfo, before: dict[str, Any], after: dict[str, Any], ts: int = TS):
    return RowChangedEvent(ts - 5, ts, table, before, after)


def delete(table: TableInfo, before: dict[str, Any], ts: int = TS) -> RowChangedEvent:
    return RowChangedEvent(ts - 5, ts, table, before, None)


def events(key: bytes | None, value: bytes) -> list[tuple[bytes, bytes]]:
    """A batched record's (key JSON, value) pairs, read without the package's decoder."""
    assert key is not None
    assert struct.unpack(">Q", key[:8]) == (1,)
    out, k, v = [], 8, 0
    while k < len(key):
        (klen,) = struct.unpack(">Q", key[k : k + 8])
        (vlen,) = struct.unpack(">Q", value[v : v + 8])
        out.append((key[k + 8 : k + 8 + klen], value[v + 8 : v + 8 + vlen]))
        k, v = k + 8 + klen, v + 8 + vlen
    assert (k, v) == (len(key), len(value))
    return out
