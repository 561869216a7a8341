"""go_dumps against a direct port of Go's ``encodeState.string`` (HTML-safe escaping)."""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.codec.gojson import go_dumps, html_escape

_HEX = "0123456789abcdef"


def _go_quote(s: str) -> bytes:
    """Go 1.22+ ``json.Marshal`` of a string, written from the Go rules in spec section 0."""
    out = ['"']
    for ch in s:
        code = ord(ch)
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch in "\n\r\t\b\f":
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}[ch])
        elif code < 0x20 or ch in "<>&":
            out.append("\\u00" + _HEX[code >> 4] + _HEX[code & 0xF])
        elif ch in "\u2028\u2029":
            out.append("\\u202" + _HEX[code & 0xF])
        elif 0xD800 <= code <= 0xDFFF:
            out.append("\ufffd")  # a lone surrogate stands for U+FFFD, as Go's decoder reads it
        else:
            out.append(ch)
    out.append('"')
    return "".join(out).encode("utf-8")


_text = st.text(
    alphabet=st.characters(codec=None, exclude_categories=())
    | st.sampled_from('<>&\u2028\u2029\x00\x1f\x7f"\\\n\b\f')
)


@settings(deadline=None)
@given(_text, _text)
def test_go_dumps_escapes_strings_like_go(key: str, value: str) -> None:
    expected = b"{" + _go_quote(key) + b":" + _go_quote(value) + b"}"
    assert go_dumps({key: value}) == expected


def test_go_dumps_keeps_order_and_numbers() -> None:
    message = {"version": 1, "type": "WATERMARK", "commitTs": (1 << 64) - 1, "buildTs": 0}
    assert go_dumps(message) == (
        b'{"version":1,"type":"WATERMARK","commitTs":18446744073709551615,"buildTs":0}'
    )
    assert go_dumps({"a": None, "b": True, "c": [], "d": {}}) == (
        b'{"a":null,"b":true,"c":[],"d":{}}'
    )


def test_html_escape_is_idempotent_inside_fragments() -> None:
    inner = go_dumps({"sql": "a<b && c>d"})
    assert inner == b'{"sql":"a\\u003cb \\u0026\\u0026 c\\u003ed"}'
    assert html_escape(inner) == inner
    assert go_dumps({"x": orjson.Fragment(inner)}) == b'{"x":' + inner + b"}"
