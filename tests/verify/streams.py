"""Hand-built Simple Protocol JSON messages (field order as TiCDC writes them) for checker tests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import orjson

from tisink.codec.simple.decoder import SimpleDecoder
from tisink.verify import StreamChecker, VerifyReport

VERSION = 447984074911121426
BUILD_TS = 1708923662983


def _column(name: str, mysql_type: str, nullable: bool) -> dict[str, Any]:
    data_type = {"mysqlType": mysql_type, "charset": "binary", "collate": "binary", "length": 11}
    return {"name": name, "dataType": data_type, "nullable": nullable, "default": None}


def table_schema(
    schema: str = "simple",
    table: str = "user",
    version: int = VERSION,
    *,
    indexes: Sequence[dict[str, Any]] | None = None,
    columns: Sequence[tuple[str, bool]] = (("id", False), ("name", True)),
) -> dict[str, Any]:
    """A small tableSchema; by default ``id`` is the primary key."""
    if indexes is None:
        indexes = [index("primary", ["id"], primary=True)]
    return {
        "schema": schema,
        "table": table,
        "tableID": 148,
        "version": version,
        "columns": [_column(name, "int", nullable) for name, nullable in columns],
        "indexes": list(indexes),
    }


def index(
    name: str,
    columns: list[str],
    *,
    primary: bool = False,
    unique: bool = True,
    nullable: bool = False,
) -> dict[str, Any]:
    return {
        "name": name,
        "unique": unique,
        "primary": primary,
        "nullable": nullable,
        "columns": columns,
    }


def bootstrap(schema: dict[str, Any]) -> bytes:
    return orjson.dumps(
        {
            "version": 1,
            "type": "BOOTSTRAP",
            "commitTs": 0,
            "buildTs": BUILD_TS,
            "tableSchema": schema,
        }
    )


def ddl(
    ddl_type: str, commit_ts: int, schema: dict[str, Any] | None, pre: dict[str, Any] | None = None
) -> bytes:
    message: dict[str, Any] = {
        "version": 1,
        "type": ddl_type,
        "sql": f"{ddl_type} ...",
        "commitTs": commit_ts,
        "buildTs": BUILD_TS,
    }
    if schema is not None:
        message["tableSchema"] = schema
    if pre is not None:
        message["preTableSchema"] = pre
    return orjson.dumps(message)


def watermark(ts: int, build_ts: int = BUILD_TS) -> bytes:
    return orjson.dumps({"version": 1, "type": "WATERMARK", "commitTs": ts, "buildTs": build_ts})


def dml(
    op: str,
    commit_ts: int,
    *,
    data: dict[str, Any] | None = None,
    old: dict[str, Any] | None = None,
    version: int = VERSION,
    schema: str = "simple",
    table: str = "user",
) -> bytes:
    message: dict[str, Any] = {
        "version": 1,
        "database": schema,
        "table": table,
        "tableID": 148,
        "type": op,
        "commitTs": commit_ts,
        "buildTs": BUILD_TS,
        "schemaVersion": version,
    }
    if data is not None:
        message["data"] = data
    if old is not None:
        message["old"] = old
    return orjson.dumps(message)


def insert(commit_ts: int, row_id: int, **kwargs: Any) -> bytes:
    return dml("INSERT", commit_ts, data={"id": str(row_id), "name": "n"}, **kwargs)


def check(
    payloads: Iterable[bytes | None],
    *,
    topic: str = "t",
    partition: int = 0,
    encoding_format: str = "json",
    compression: str = "none",
    max_violations: int = 20,
) -> VerifyReport:
    """Run the checker over one partition's payloads, offsets counted from 0."""
    report = VerifyReport(source="test", max_violations=max_violations)
    checker = StreamChecker(report, lambda: SimpleDecoder(encoding_format, compression))
    for offset, payload in enumerate(payloads):
        checker.check_record(topic, partition, offset, payload)
    return report


def only_violation(report: VerifyReport) -> tuple[str, str, int, int]:
    """(rule, topic, partition, offset) of the single violation in ``report``."""
    assert len(report.violations) == 1, [str(v) for v in report.violations]
    v = report.violations[0]
    return v.rule, v.topic, v.partition, v.offset
