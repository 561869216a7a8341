"""The native helper (``codec/canal/_latin1.c``): a binary value's JSON string as TiCDC's
canal-json writes it. Expectations come from ``go_string`` (``test_control_texts``), an escaper
written after Go's rules, and from orjson reading the text back."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.codec.canal.test_control_texts import go_string
from tisink.codec.canal.codegen import NATIVE_JSON_TEXT

if NATIVE_JSON_TEXT is None:
    pytest.skip(
        "the native helper is not built (no C compiler at install time)", allow_module_level=True
    )
json_text = NATIVE_JSON_TEXT


def test_every_byte() -> None:
    data = bytes(range(256))
    assert json_text(data) == go_string(data.decode("latin-1")).encode()
    assert json_text(b'\x08\x0c<>&"\\\n\r\t\x7f\x80\xff') == (
        b'"\\u0008\\u000c\\u003c\\u003e\\u0026\\"\\\\\\n\\r\\t\x7f\xc2\x80\xc3\xbf"'
    )


def test_empty_and_large() -> None:
    assert json_text(b"") == b'""'
    big = bytes(range(256)) * 4096  # a megabyte: six bytes a byte at most, no overrun
    assert orjson.loads(json_text(big)) == big.decode("latin-1")


@settings(deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes(data: bytes) -> None:
    out = json_text(data)
    assert out == go_string(data.decode("latin-1")).encode()
    assert orjson.loads(out) == data.decode("latin-1")


def test_bytes_only() -> None:
    with pytest.raises(TypeError, match="takes bytes, not str"):
        json_text("abc")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        json_text(bytearray(b"abc"))  # type: ignore[arg-type]
