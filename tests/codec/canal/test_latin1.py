"""A binary value's JSON text as TiCDC's canal-json writes it: its bytes read as ISO-8859-1,
with Go's escapes (HTML-safe, ``\\u0008`` and ``\\u000c``). Expectations come from
``go_string`` (``test_control_texts``), an escaper written after Go's rules, and from orjson
reading the text back; each value goes in a ``blob`` and in a ``binary(N)`` of its length (the
generated writer's two inline ways)."""

from __future__ import annotations

import base64

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.codec.canal.support import encoder, row, table_of
from tests.codec.canal.test_control_texts import go_string


def texts(data: bytes) -> tuple[bytes, bytes]:
    """The texts of ``data`` in a ``blob`` and in a ``binary(len(data))`` of one INSERT."""
    table = table_of(
        [
            ("id", {"mysqlType": "int"}),
            ("blob", {"mysqlType": "blob"}),
            ("fixed", {"mysqlType": "binary", "length": len(data), "charset": "binary"}),
        ]
    )
    value = base64.b64encode(data).decode()
    image = {"id": 1, "blob": value, "fixed": value}
    (record,) = encoder().encode_rows([row(table, image)]).records
    message: bytes = record[1]
    blob = message.index(b'"blob":', message.index(b'"data":')) + len(b'"blob":')
    fixed = message.index(b',"fixed":', blob)
    assert message.endswith(b"}]}")
    return message[blob:fixed], message[fixed + len(b',"fixed":') : -3]


def test_every_byte() -> None:
    data = bytes(range(256))
    assert texts(data) == (go_string(data.decode("latin-1")).encode(),) * 2
    special = b'\x08\x0c<>&"\\\n\r\t\x7f\x80\xff'
    go = b'"\\u0008\\u000c\\u003c\\u003e\\u0026\\"\\\\\\n\\r\\t\x7f\xc2\x80\xc3\xbf"'
    assert texts(special) == (go, go)


def test_empty_and_large() -> None:
    assert texts(b"") == (b'""', b'""')
    big = bytes(range(256)) * 4096  # a megabyte
    blob, fixed = texts(big)
    assert blob == fixed == go_string(big.decode("latin-1")).encode()
    assert orjson.loads(blob) == big.decode("latin-1")


@settings(deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes(data: bytes) -> None:
    blob, fixed = texts(data)
    assert blob == fixed == go_string(data.decode("latin-1")).encode()
    assert orjson.loads(blob) == data.decode("latin-1")
