"""The encoder against every golden in tests/data/formats/debezium/golden (66 files).

Each golden is a JSON literal from a TiCDC unit test, whose key order is arbitrary. Comparison
is **byte-equal** against the golden re-laid in TiCDC's write order (``support.write_order``,
from spec section 1), which checks content and order at once, except where a documented
fixture or version difference is first normalised (then still byte-equal on the rest):

* ``tiflow-HEAD`` DDL values: tiflow's fixture builds its TableInfo without a charset, so its
  ``defaultCharsetName`` is ""; ours is TiDB's default, as in the ticdc golden.
* ``tiflow-v8_0_0``: v8.0.0 did not sanitize schema names (``test-cluster.test.table1``); since
  v8.5.0 they are ``test_cluster...``. The payload keeps the raw cluster id either way.
* ``native-dbz-2.4``: the native connector's ``payload.source`` and ``payload.ts_ms`` are its
  own (TiCDC's ``TestDataTypes`` ignores them too); ours are put in before comparing.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.codec.debezium.support import (
    CLUSTER,
    FOO_ROW,
    NOW_MS,
    compact,
    encoder,
    foo_table,
    tiny_table,
    write_order,
)
from tisink.codec.debezium.watermark import encode_watermark
from tisink.model import ColumnInfo, DDLEvent, DDLType, IndexInfo, RowChangedEvent, make_table

Encoded = tuple[bytes, bytes]
DML_ORIGINS = {"ticdc-HEAD": False, "tiflow-HEAD": True, "tiflow-v8_5_0": True}
# (test, options per assertion pair) as in codec_test.go
DML_TESTS: dict[str, list[dict[str, Any]]] = {
    "TestEncodeInsert": [
        {"disable_schema": True, "output_old_value": False},
        {"output_old_value": False},
    ],
    "TestEncodeUpdate": [
        {"disable_schema": True},
        {},
        {"disable_schema": True, "output_old_value": False},
    ],
    "TestEncodeDelete": [{"disable_schema": True}, {}],
}


def _row(test: str, nullable: bool) -> RowChangedEvent:
    table = tiny_table(nullable)
    if test == "TestEncodeInsert":
        return RowChangedEvent(0, 1, table, after={"tiny": 1})
    if test == "TestEncodeUpdate":
        return RowChangedEvent(0, 1, table, before={"tiny": 2}, after={"tiny": 1})
    return RowChangedEvent(0, 1, table, before={"tiny": 2})


def _dml(
    test: str, nullable: bool, options: dict[str, Any], cluster: str = CLUSTER, newarch: bool = True
) -> Encoded:
    message = encoder(cluster_id=cluster, newarch=newarch, **options).encode_row(
        _row(test, nullable)
    )
    assert message.key is not None
    return message.key, message.value


def _dml_cases() -> list[tuple[str, Callable[[], Encoded], int]]:
    cases = []
    for origin, nullable in DML_ORIGINS.items():
        for test, variants in DML_TESTS.items():
            for i, options in enumerate(variants):

                def produce(
                    t: str = test, n: bool = nullable, o: Any = options, origin: str = origin
                ) -> Encoded:
                    # tiflow's goldens under the classic parameter, ticdc's under the new one
                    return _dml(t, n, o, newarch=origin.startswith("ticdc"))

                cases.append((f"{origin}__{test}__{2 * i + 1:02d}_key.json", produce, 0))
                cases.append((f"{origin}__{test}__{2 * i + 2:02d}_value.json", produce, 1))
    return cases


def _watermark() -> Encoded:
    # TiCDC's test calls the codec itself, with enable-tidb-extension off
    return encode_watermark(3, CLUSTER, NOW_MS, with_schema=True, tidb_extension=False)


def _int_table(table: str, length: int) -> Any:
    column = ColumnInfo("id", "int", length=length, nullable=False)
    return make_table("test", table, 1, 1, [column], [IndexInfo("primary", ("id",), True, True)])


def _ddl_events(origin: str) -> list[tuple[DDLEvent, dict[str, Any]]]:
    """The three DDLs of ``TestDDLEvent`` as each repository's fixture builds them."""
    if origin == "ticdc-HEAD":
        t1, t2 = _int_table("table1", 10), _int_table("table2", 10)
        rename = DDLEvent(1, DDLType.RENAME, "RENAME TABLE test.table1 to test.table2", t2, t1)
        create_sql = "CREATE TABLE test.table1(id int(10) primary key)"
    else:
        # tiflow builds TableInfos by hand: flen 0, and the rename's pre/post swapped
        t1, t2 = _int_table("table1", 0), _int_table("table2", 0)
        rename = DDLEvent(1, DDLType.RENAME, "RENAME TABLE test.table1 to test.table2", t1, t2)
        create_sql = "CREATE TABLE test.table1"
    return [
        (rename, {}),
        (DDLEvent(1, DDLType.CREATE, create_sql, t1), {"disable_schema": True}),
        (DDLEvent(1, DDLType.ERASE, "DROP TABLE test.table2", t2, t2), {"disable_schema": True}),
    ]


def _ddl_cases() -> list[tuple[str, Callable[[], Encoded], int]]:
    cases = []
    for origin in ("ticdc-HEAD", "tiflow-HEAD"):
        for i, (ddl, options) in enumerate(_ddl_events(origin)):

            def produce(d: DDLEvent = ddl, o: Any = options, origin: str = origin) -> Encoded:
                message = encoder(newarch=origin.startswith("ticdc"), **o).encode_ddl(d)
                assert message is not None and message.key is not None
                return message.key, message.value

            cases.append((f"{origin}__TestDDLEvent__{2 * i + 1:02d}_key.json", produce, 0))
            cases.append((f"{origin}__TestDDLEvent__{2 * i + 2:02d}_value.json", produce, 1))
        cases.append((f"{origin}__TestCheckPointEvent__01_key.json", _watermark, 0))
        cases.append((f"{origin}__TestCheckPointEvent__02_value.json", _watermark, 1))
    return cases


def _v8_0_cases() -> list[tuple[str, Callable[[], Encoded], int]]:
    cases = []
    variants = {"TestEncodeInsert": {"output_old_value": False}, "TestEncodeUpdate": {}}
    for test in ("TestEncodeInsert", "TestEncodeUpdate", "TestEncodeDelete"):
        for i, schema in enumerate((False, True)):
            options = {**variants.get(test, {}), "disable_schema": not schema}

            def produce(t: str = test, o: Any = options) -> Encoded:
                return _dml(t, True, o, cluster="test-cluster", newarch=False)

            cases.append((f"tiflow-v8_0_0__{test}__{i + 1:02d}_value.json", produce, 1))
    return cases


CASES = _dml_cases() + _ddl_cases() + _v8_0_cases()


def _normalised(name: str, golden: Any) -> Any:
    """Apply the documented fixture/version difference of ``name`` (module docstring)."""
    if name.startswith("tiflow-HEAD__TestDDLEvent") and name.endswith("_value.json"):
        for change in golden["payload"]["tableChanges"]:
            if change.get("table"):
                assert change["table"]["defaultCharsetName"] == ""
                change["table"]["defaultCharsetName"] = "utf8mb4"
    if name.startswith("tiflow-v8_0_0") and "schema" in golden:
        text = json.dumps(golden).replace(
            '"test-cluster.test.table1.', '"test_cluster.test.table1.'
        )
        golden = json.loads(text)
    return golden


@pytest.mark.parametrize(("name", "produce", "part"), CASES, ids=[c[0] for c in CASES])
def test_golden_byte_equal_in_write_order(
    debezium_golden: Path, name: str, produce: Callable[[], Encoded], part: int
) -> None:
    golden = _normalised(name, json.loads((debezium_golden / name).read_text()))
    ours = produce()[part]
    assert json.loads(ours) == golden
    assert ours == compact(write_order(golden))


@pytest.mark.parametrize("disable_schema", [False, True])
def test_native_data_types(debezium_golden: Path, disable_schema: bool) -> None:
    """Every supported type of TiCDC's ``TestDataTypes`` row equals native Debezium 2.4's
    value, schema included (cluster id ``dbserver1`` = the native topic prefix)."""
    native_key = json.loads(
        (debezium_golden / "native-dbz-2.4__TestDataTypes__key.json").read_text()
    )
    native = json.loads((debezium_golden / "native-dbz-2.4__TestDataTypes__value.json").read_text())
    enc = encoder(cluster_id="dbserver1", disable_schema=disable_schema)
    message = enc.encode_row(RowChangedEvent(1, 1, foo_table(), after=dict(FOO_ROW)))
    ours = json.loads(message.value)
    native["payload"]["source"] = ours["payload"]["source"]
    native["payload"]["ts_ms"] = ours["payload"]["ts_ms"]
    if disable_schema:
        del native["schema"], native_key["schema"]
    assert ours == native
    assert message.value == compact(write_order(native))
    assert message.key == compact(write_order(native_key))


def test_every_golden_file_is_used(debezium_golden: Path) -> None:
    files = {p.name for p in debezium_golden.glob("*.json")}
    used = {name for name, _, _ in CASES} | {
        "native-dbz-2.4__TestDataTypes__key.json",
        "native-dbz-2.4__TestDataTypes__value.json",
    }
    assert len(files) == 66
    assert used == files
