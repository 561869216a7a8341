"""Backspaces and form feeds in binary and string texts, next to the characters the codec uses
to stand in for them (``jsontext``'s ASCII marks and U+E008/U+E00C placeholders, ISO-8859-1's
U+00FE/U+00FF), in every map of INSERT, UPDATE and DELETE messages, with JSON and datetime
columns around them. Every expectation is written by ``go_map`` below, an escaper written after
Go's ``encoding/json`` rules (what easyjson's writer does for TiCDC), not the codec's."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.codec.canal.support import encoder, row, table_of
from tisink.codec.values import json_text

TEXT = {"mysqlType": "varchar", "length": 40, "charset": "utf8mb4"}
TABLE = table_of(
    [
        ("id", {"mysqlType": "int"}),
        ("s", TEXT),
        ("b", {"mysqlType": "blob"}),
        ("j", {"mysqlType": "json"}),
        ("at", {"mysqlType": "datetime"}),
        ("c", {"mysqlType": "varbinary", "length": 40, "charset": "binary"}),
    ]
)
_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def go_string(text: str) -> str:
    """``text`` as Go's ``encoding/json`` writes it (HTML-safe, as easyjson's writer): ``"``
    ``\\`` and ``\\n \\r \\t`` short, every other control character, ``<>&`` and U+2028/U+2029
    as ``\\u00xx``/``\\u20xx`` in lowercase hex, everything else as it is."""
    out = []
    for ch in text:
        if ch in _SHORT:
            out.append(_SHORT[ch])
        elif ord(ch) < 0x20 or ch in "<>&\u2028\u2029":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def go_map(image: dict[str, Any]) -> bytes:
    """The ``data``/``old`` map of an image of ``TABLE`` as TiCDC writes it."""
    texts = {
        "id": str(image["id"]),
        "s": image["s"],
        "b": None if image["b"] is None else base64.b64decode(image["b"]).decode("latin-1"),
        "j": None if image["j"] is None else json_text(image["j"]),
        "at": image["at"],
        "c": None if image["c"] is None else base64.b64decode(image["c"]).decode("latin-1"),
    }
    pairs = (f"{go_string(k)}:{'null' if v is None else go_string(v)}" for k, v in texts.items())
    return ("{" + ",".join(pairs) + "}").encode()


def image(
    key: int, s: str | None, b: bytes | None, j: Any = None, c: bytes | None = None
) -> dict[str, Any]:
    def b64(raw: bytes | None) -> str | None:
        return None if raw is None else base64.b64encode(raw).decode()

    return {"id": key, "s": s, "b": b64(b), "j": j, "at": "2024-05-01 10:00:00", "c": b64(c)}


def maps(after: dict[str, Any] | None, before: dict[str, Any] | None = None) -> bytes:
    """The ``old`` to ``data`` part of the row message of one change."""
    (record,) = encoder().encode_rows([row(TABLE, after, before)]).records
    value: bytes = record[1]
    assert value.endswith(b"]}")  # no _tidb: the message ends with the data map
    return value[value.index(b'"old":') : -1]


def expected(after: dict[str, Any] | None, before: dict[str, Any] | None = None) -> bytes:
    if before is None or after is None:
        return b'"old":null,"data":[' + go_map(after or before or {}) + b"]"
    return b'"old":[' + go_map(before) + b'],"data":[' + go_map(after) + b"]"


CASES = {
    # binary texts with controls, ASCII marks and HTML-safe characters
    "controls in binary": image(1, "plain <&> \u2028", b"\x08a\x0cb\x08<\xff\xfe", {"k": "v"}),
    "both binary columns": image(2, "\x08 in text", b"\x0c\x0c", None, b"\\b\x08\\f\x0c"),
    "backspace only": image(3, None, b"\x08\x08\\", "x", b"\x00\x1f"),
    # texts and JSON values holding the placeholders themselves
    "placeholder in text": image(4, "a\ue008b\ue00c", b"\x08\x0c\xee\x80\x88", None),
    "placeholder in JSON": image(5, "s", b"\x0c", {"k": "\ue008"}, b"\x08"),
    "placeholders everywhere": image(6, "\ue00c\x08", b"\x08\x0c", ["\ue008", "\ue00c"], b"\x08"),
    "placeholder, no control": image(7, "\ue008", b"plain", "\ue00c"),
    # U+00FE/U+00FF: a binary value's bytes 0xFE/0xFF, and the same characters in a text
    "latin-1 thorn and y-umlaut": image(
        8, "\xfe\xff\x08", b"\xff\xfe\x08\x0c", "\xfe", b"\xfe\x0c"
    ),
    "first mark next to its control": image(10, "~\x08,", b"~\x08~", ",\x0c", b",\x0c,"),
    "every mark": image(9, "~,", bytes(range(256)), {"~": ","}, bytes(range(255, -1, -1))),
}


@pytest.mark.parametrize("name", CASES)
def test_insert_and_delete(name: str) -> None:
    assert maps(CASES[name]) == expected(CASES[name])
    assert maps(None, CASES[name]) == expected(None, CASES[name])


@pytest.mark.parametrize("before", CASES)
@pytest.mark.parametrize("after", CASES)
def test_update(before: str, after: str) -> None:
    """Both maps of every pair of images: the ``data`` map reuses the texts of unchanged
    binary and string values."""
    old, new = CASES[before], {**CASES[after], "id": 9}
    assert maps(new, old) == expected(new, old)


def test_update_reusing_an_escaped_binary_text() -> None:
    """The after image keeps the blob (its escaped text is reused) and its text gains a
    placeholder."""
    old = image(1, "x", b"\x08\x0c<", "y")
    new = {**old, "s": "x\ue008"}
    assert maps(new, old) == expected(new, old)


def test_column_name_holding_a_placeholder() -> None:
    table = table_of([("id", {"mysqlType": "int"}), ("b\ue008", {"mysqlType": "blob"})])
    value = encoder().encode_rows([row(table, {"id": 1, "b\ue008": "CAw="})]).records[0][1]
    assert '"data":[{"id":"1","b\ue008":"\\u0008\\u000c"}]'.encode() in value


_CHARS = '\x08\x0c~,^-\ue008\ue00c\\bf"u0<&\n\u2028\xe9\xff\x00'
"""Controls, the first two marks of each (``jsontext.FIRST_MARKS`` and the next), the
placeholders, characters of escapes and HTML-safe ones."""
texts = st.none() | st.text(alphabet=st.sampled_from(_CHARS), max_size=12) | st.text(max_size=8)
binaries = (
    st.none()
    | st.binary(max_size=40)
    | st.lists(st.sampled_from(b"\x08\x0c~,^-\\bf\xee\x80\x88")).map(bytes)
)
jsons = (
    st.none()
    | texts.filter(lambda t: t is not None)
    | st.dictionaries(
        st.sampled_from("kx\ue008"), texts.filter(lambda t: t is not None), max_size=2
    )
)
images = st.builds(image, st.integers(0, 99), texts, binaries, jsons, binaries)


@settings(deadline=None)
@given(st.none() | images, st.none() | images)
def test_any_change_equals_gos_rendering(after: Any, before: Any) -> None:
    """Whatever the texts hold (controls, placeholders, escapes next to them), every map equals
    Go's rendering of its texts."""
    if after is None and before is None:
        return
    assert maps(after, before) == expected(after, before)
