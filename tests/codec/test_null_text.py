"""The text ``null`` in a string column stays a string in every JSON protocol (ticdc #3958).

The new architecture's canal-json encoder once wrote a VARCHAR holding ``null`` as JSON
``null`` (the NULL marker was the string "null"); ticdc #3959 (df2adcca5) fixed it with the
table its integration tests add (``canal_json_basic/data/data.sql``): ``t_null(id bigint
unsigned primary key, col varchar(64) not null default '')`` with the rows below. Each JSON
protocol must write each value as that JSON string, both as the new and as the old value, and
tisink's decoder of the protocol must read it back as the string, while a real NULL in a
nullable column stays JSON ``null`` and decodes to None.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tisink.codec.config import EncoderConfig
from tisink.codec.registry import get_protocol
from tisink.core.clock import FixedClock
from tisink.model import ColumnInfo, IndexInfo, RowChangedEvent, make_table

# The rows of ticdc's t_null, plus a genuine NULL in a nullable column
TEXTS = ["test", "null", "test2", "Null", "NULL", "", "nüll"]
TABLE = make_table(
    "test",
    "t_null",
    104,
    1,
    [
        ColumnInfo("id", "bigint", unsigned=True, nullable=False),
        ColumnInfo("col", "varchar", "utf8mb4", "utf8mb4_bin", 64, nullable=False, default=""),
        ColumnInfo("opt", "varchar", "utf8mb4", "utf8mb4_bin", 64),
    ],
    [IndexInfo("primary", ("id",), True, True)],
)
COMMIT_TS = 429918007904436226


def _rows() -> list[RowChangedEvent]:
    rows = []
    for number, text in enumerate(TEXTS, 1):
        after = {"id": number, "col": text, "opt": None}
        rows.append(RowChangedEvent(COMMIT_TS - 1, COMMIT_TS, TABLE, after=after))
    # an UPDATE whose old and new values are both the text
    old = {"id": 2, "col": "null", "opt": "null"}
    new = {"id": 2, "col": "NULL", "opt": None}
    rows.append(RowChangedEvent(COMMIT_TS, COMMIT_TS + 1, TABLE, before=old, after=new))
    return rows


def _canal(value: Any) -> tuple[Any, Any]:
    return value["data"][0], (value["old"] or [None])[0]


def _open(value: Any) -> tuple[Any, Any]:
    def plain(columns: Any) -> Any:
        return None if columns is None else {k: v["v"] for k, v in columns.items()}

    return plain(value.get("u")), plain(value.get("p"))


def _simple(value: Any) -> tuple[Any, Any]:
    return value["data"], value.get("old")


def _debezium(value: Any) -> tuple[Any, Any]:
    payload = value["payload"]
    return payload["after"], payload.get("before")


# protocol -> how its JSON value holds the new and the old column values
LAYOUTS: dict[str, Callable[[Any], tuple[Any, Any]]] = {
    "canal-json": _canal,
    "open": _open,
    "simple": _simple,
    "debezium": _debezium,
}


def _split_open(value: bytes) -> list[bytes]:
    """An Open Protocol value stream: each event's value after its 8-byte length."""
    out, at = [], 0
    while at < len(value):
        length = int.from_bytes(value[at : at + 8], "big")
        out.append(value[at + 8 : at + 8 + length])
        at += 8 + length
    return out


def _encoded(protocol: str) -> tuple[EncoderConfig, list[tuple[bytes | None, bytes]]]:
    spec = get_protocol(protocol)
    config = EncoderConfig(protocol=protocol, encoding_format="json", time_zone="UTC")
    encoder = spec.new_encoder(config, FixedClock(1700000000000))
    records: list[tuple[bytes | None, bytes]] = []
    bootstrap = encoder.encode_bootstrap(TABLE)
    if bootstrap is not None:
        records.append((bootstrap.key, bootstrap.value))
    for row in _rows():
        records.extend(encoder.encode_rows([row]).records)
    return config, records


@pytest.mark.parametrize("protocol", sorted(LAYOUTS))
def test_text_null_is_written_as_a_json_string(protocol: str) -> None:
    _, records = _encoded(protocol)
    values: list[Any] = []
    for _, value in records:
        if protocol == "open":
            values += [json.loads(v) for v in _split_open(value)]
        else:
            values.append(json.loads(value))
    images = [LAYOUTS[protocol](v) for v in values if _is_dml(protocol, v)]
    assert [new["col"] for new, _ in images] == [*TEXTS, "NULL"]
    assert all(new["opt"] is None for new, _ in images)
    old = images[-1][1]
    assert old["col"] == "null" and old["opt"] == "null"


def _is_dml(protocol: str, value: Any) -> bool:
    if protocol == "canal-json":
        return value.get("type") in ("INSERT", "UPDATE", "DELETE")
    if protocol == "open":
        return "u" in value or "p" in value
    if protocol == "simple":
        return value.get("type") in ("INSERT", "UPDATE", "DELETE")
    return value["payload"].get("op") in ("c", "u", "d")


@pytest.mark.parametrize("protocol", sorted(LAYOUTS))
def test_text_null_is_decoded_as_a_string(protocol: str) -> None:
    config, records = _encoded(protocol)
    spec = get_protocol(protocol)
    assert spec.new_decoder is not None
    decoder = spec.new_decoder(config)
    decoded = [m for key, value in records for m in decoder.decode(key, value) if m.kind == "DML"]
    assert [m.data["col"] for m in decoded if m.data] == [*TEXTS, "NULL"]
    assert all(m.data["opt"] is None for m in decoded if m.data)
    old = decoded[-1].old
    assert old is not None and old["col"] == "null" and old["opt"] == "null"
