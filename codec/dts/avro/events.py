"""DTS Avro records read back into one neutral shape, whichever vendor wrote them.

A consumer of either format sees the same things: the record kind, the transaction it belongs
to (by GTID), the commit TSO (the GTID's transaction number on the synthetic binlog of
``codec.dts.binlog``), the table, its key columns and the row images as column -> value record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from tisink.codec.dts import binlog
from tisink.codec.dts.alibaba import fields as alibaba_fields
from tisink.codec.dts.avro.layout import PRIMARY
from tisink.codec.dts.tencent.avro import fields as tencent_fields

DML_KINDS = frozenset({"INSERT", "UPDATE", "DELETE"})


@dataclass(frozen=True, slots=True)
class ReadRecord:
    """One record as verify needs it; ``gtid`` "" on records outside transactions."""

    kind: str
    gtid: str
    commit_ts: int
    database: str = ""
    table: str = ""
    handle_key: tuple[str, ...] = ()
    data: dict[str, Any] | None = None
    old: dict[str, Any] | None = None


def gtid_ts(gtid: str) -> int:
    """The commit TSO in ``<uuid>:<commitTs>``; ValueError for a GTID of another source."""
    uuid, _colon, number = gtid.rpartition(":")
    if uuid != binlog.SOURCE_UUID or not number.isdigit():
        raise ValueError(f"GTID {gtid!r} is not on tisink's synthetic binlog")
    return int(number)


def synced_ts(gtid_set: str) -> int:
    """The checkpoint TSO in ``<uuid>:1-<ts>``."""
    uuid, _colon, interval = gtid_set.rpartition(":")
    first, _dash, last = interval.partition("-")
    if uuid != binlog.SOURCE_UUID or first != "1" or not last.isdigit():
        raise ValueError(f"GTID set {gtid_set!r} is not on tisink's synthetic binlog")
    return int(last)


def _image(names: list[str], values: Any) -> dict[str, Any] | None:
    if values is None:
        return None
    if not isinstance(values, list) or len(values) != len(names):
        raise ValueError(f"row image {values!r} does not match the {len(names)} columns")
    return dict(zip(names, values, strict=True))


_IMAGES = {"INSERT": (True, False), "UPDATE": (True, True), "DELETE": (False, True)}
"""Which images (after, before) each row kind carries."""


def _row(
    kind: str,
    gtid: str,
    names: list[str],
    location: tuple[str, str, tuple[str, ...]],
    after: Any,
    before: Any,
) -> ReadRecord:
    """A DML record; ValueError when its images do not fit its kind or its columns."""
    data, old = _image(names, after), _image(names, before)
    if (data is not None, old is not None) != _IMAGES[kind]:
        raise ValueError(f"{kind} with after image {data is not None}, before {old is not None}")
    database, table, keys = location
    return ReadRecord(kind, gtid, gtid_ts(gtid), database, table, keys, data, old)


def read_alibaba(record: dict[str, Any]) -> ReadRecord:
    """An Alibaba ``Record``: the GTID and PK/UK come from ``tags``."""
    kind = record["operation"]
    tags = record["tags"]
    if kind == "CHECKPOINT":
        return ReadRecord(kind, "", synced_ts(tags[alibaba_fields.GTID_SET]))
    if kind == "HEARTBEAT":
        return ReadRecord(kind, "", 0)
    gtid = tags[alibaba_fields.GTID]
    if kind not in DML_KINDS:
        database, table = alibaba_fields.split_object_name(record["objectName"] or "")
        return ReadRecord(kind, gtid, gtid_ts(gtid), database, table)
    database, table = alibaba_fields.split_object_name(record["objectName"])
    keys = _keys(tags.get(alibaba_fields.PK_UK_INFO, "{}"))
    names = [field["name"] for field in record["fields"]]
    location = (database, table, keys)
    return _row(kind, gtid, names, location, record["afterImages"], record["beforeImages"])


def _keys(pk_uk_info: str) -> tuple[str, ...]:
    """The row identity: the primary key, else the first unique key listed."""
    keys = orjson.loads(pk_uk_info)
    if PRIMARY in keys:
        return tuple(keys[PRIMARY])
    return tuple(next(iter(keys.values()), ()))


def read_tencent(record: dict[str, Any]) -> ReadRecord:
    """A Tencent ``Record``: ``gtid`` and ``pkNames`` are fields of their own."""
    kind = record["messageType"]
    if kind == "CHECKPOINT":
        return ReadRecord(kind, "", synced_ts(record["syncedGtid"]))
    if kind == "HEARTBEAT":
        return ReadRecord(kind, "", 0)
    gtid = record["gtid"]
    database, table = record["schemaName"] or "", record["tableName"] or ""
    if kind not in DML_KINDS:
        return ReadRecord(kind, gtid, gtid_ts(gtid), database, table)
    names = [column["name"] for column in record["columns"]]
    if tencent_fields.object_name(database, table) != record["objectName"]:
        raise ValueError(f"objectName {record['objectName']!r} is not {database}.{table}")
    location = (database, table, tuple(record["pkNames"] or ()))
    return _row(kind, gtid, names, location, record["newColumns"], record["oldColumns"])
