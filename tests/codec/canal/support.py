"""Helpers of the canal-json tests: tables from feed column specs, encoders, vectors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson

from tisink.codec.canal.encoder import CanalJSONEncoder
from tisink.codec.canal.options import CanalOptions
from tisink.codec.config import EncoderConfig
from tisink.core.clock import FixedClock
from tisink.model.events import RowChangedEvent
from tisink.model.table import TableInfo

DATA = Path(__file__).parent / "data"
NOW_MS = 1700000000000
COMMIT_TS = 429918007904436226

_OPTION_FIELDS = {
    "enable-tidb-extension": "enable_tidb_extension",
    "content-compatible": "content_compatible",
    "only-output-updated-columns": "only_output_updated_columns",
    "delete-only-output-handle-key-columns": "delete_only_output_handle_key_columns",
    "newarch": "newarch",
}


def vectors(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def encoder(
    options: dict[str, bool] | None = None, now_ms: int = NOW_MS, **config: Any
) -> CanalJSONEncoder:
    """An encoder with canal-json ``options`` (TiCDC key -> value) and EncoderConfig fields."""
    fields = {_OPTION_FIELDS[key]: value for key, value in (options or {}).items()}
    settings = {"time_zone": "UTC", **config}
    cfg = EncoderConfig(protocol="canal-json", options=CanalOptions(**fields), **settings)
    return CanalJSONEncoder(cfg, FixedClock(now_ms), uuid_factory=lambda: "claim-0")


def table_of(
    columns: list[tuple[str, dict[str, Any]]],
    primary: tuple[str, ...] = ("id",),
    schema: str = "test",
    name: str = "t",
    unique: tuple[str, ...] = (),
) -> TableInfo:
    """A table of ``(name, dataType)`` columns; the primary key's columns are NOT NULL."""
    indexes = []
    if primary:
        indexes.append({"name": "PRIMARY", "columns": list(primary), "primary": True})
    if unique:
        indexes.append({"name": "uk", "columns": list(unique), "unique": True})
    return TableInfo.from_dict(
        {
            "schema": schema,
            "table": name,
            "tableID": 104,
            "version": 1,
            "columns": [
                {"name": n, "dataType": t, "nullable": n not in primary + unique}
                for n, t in columns
            ],
            "indexes": indexes,
        }
    )


def with_id(name: str, data_type: dict[str, Any]) -> TableInfo:
    """``test.t(id int primary key, <name> <type>)``."""
    return table_of([("id", {"mysqlType": "int", "length": 11}), (name, data_type)])


def row(
    table: TableInfo,
    after: dict[str, Any] | None = None,
    before: dict[str, Any] | None = None,
    commit_ts: int = COMMIT_TS,
) -> RowChangedEvent:
    return RowChangedEvent(commit_ts - 10, commit_ts, table, before, after)


def message(encoder_: CanalJSONEncoder, event: RowChangedEvent) -> dict[str, Any]:
    """The parsed message of one row."""
    (record,) = encoder_.encode_rows([event]).records
    parsed: dict[str, Any] = orjson.loads(record[1])
    return parsed
