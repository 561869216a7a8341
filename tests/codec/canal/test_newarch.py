"""Where ticdc (``newarch``, the default) and tiflow (``newarch=false``) write different
canal-json bytes (codec/canal/README.md "Classic and new architecture")."""

from __future__ import annotations

import pytest

from tests.codec.canal.support import encoder, message, row, table_of
from tisink.codec.canal.protocol import PROTOCOL

INT = {"mysqlType": "int", "length": 11}
DOUBLE = {"mysqlType": "double", "length": 22}
FLOAT = {"mysqlType": "float", "length": 12}


@pytest.mark.parametrize(
    ("newarch", "mysql"), [(True, b'"mysqlType":null'), (False, b'"mysqlType":{}')]
)
def test_empty_mysql_type(newarch: bool, mysql: bytes) -> None:
    """A message without columns (a DELETE of a keyless table under
    delete-only-output-handle-key-columns): ticdc writes ``null`` for an empty ``mysqlTypeMap``
    (``len(mysqlTypeMap) == 0``), tiflow ``{}`` (``mysqlTypeMap == nil`` on a made map)."""
    keyless = table_of([("x", INT)], primary=())
    codec = encoder({"delete-only-output-handle-key-columns": True, "newarch": newarch})
    (record,) = codec.encode_rows([row(keyless, None, {"x": 1})]).records
    value = record[1]
    assert b'"sqlType":null' + b"," + mysql + b',"old":null,"data":[{}]' in value


@pytest.mark.parametrize("kind", [DOUBLE, FLOAT])
@pytest.mark.parametrize(("newarch", "old"), [(True, [{"v": "-0"}]), (False, [{}])])
def test_only_updated_signed_zero(kind: dict, newarch: bool, old: list) -> None:
    """only-output-updated-columns: ticdc compares the texts ("-0" and "0" differ), tiflow
    the typed values (``IsColumnValueEqual``: -0.0 == 0.0)."""
    table = table_of([("id", INT), ("v", kind)])
    codec = encoder({"only-output-updated-columns": True, "newarch": newarch})
    body = message(codec, row(table, {"id": 1, "v": 0.0}, {"id": 1, "v": -0.0}))
    assert body["old"] == old
    assert body["data"] == [{"id": "1", "v": "0"}]
    changed = message(codec, row(table, {"id": 1, "v": 1.5}, {"id": 1, "v": 0.0}))
    assert changed["old"] == [{"v": "0"}]


def test_newarch_is_a_top_level_option() -> None:
    (option,) = [o for o in PROTOCOL.options if o.key == "newarch"]
    assert option.tables == ((),)
