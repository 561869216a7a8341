"""Go's escaping in row messages: HTML-safe ``<>&``, U+2028/U+2029 and ``\\u0008``/``\\u000c``
(easyjson writes no ``\\b``/``\\f``), in every map the generated code writes."""

from __future__ import annotations

import base64

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.codec.canal.support import encoder, row, table_of
from tisink.codec.canal.jsontext import dumps, fix, fix_controls, text_fragment

TEXT = {"mysqlType": "varchar", "length": 40, "charset": "utf8mb4"}
BLOB = {"mysqlType": "blob"}


@pytest.mark.parametrize("only_updated", [False, True])
def test_special_characters_in_texts_binary_and_names(only_updated: bool) -> None:
    table = table_of([("id", {"mysqlType": "int"}), ("s", TEXT), ("b", BLOB)])
    before = {"id": 1, "s": "x\x0c\\b", "b": "CA=="}  # b: the byte 0x08
    after = {"id": 1, "s": "a\x08<&>\u2028\u2029", "b": "CAw8"}  # 0x08 0x0c '<'
    value = encoder({"only-output-updated-columns": only_updated}).encode_rows(
        [row(table, after, before)]
    )
    text = value.records[0][1].decode()
    old = '"s":"x\\u000c\\\\b","b":"\\u0008"'
    new = '"s":"a\\u0008\\u003c\\u0026\\u003e\\u2028\\u2029","b":"\\u0008\\u000c\\u003c"'
    key = "" if only_updated else '"id":"1",'
    assert f'"old":[{{{key}{old}}}]' in text
    assert f'"data":[{{"id":"1",{new}}}]' in text


def test_odd_column_names_are_escaped_too() -> None:
    table = table_of([("id", {"mysqlType": "int"}), ("a<\u2028\x08", TEXT)])
    value = encoder().encode_rows([row(table, {"id": 1, "a<\u2028\x08": "v"})]).records[0][1]
    assert b'"a\\u003c\\u2028\\u0008":"v"' in value
    assert orjson.loads(value)["data"] == [{"id": "1", "a<\u2028\x08": "v"}]


def test_an_escaped_backslash_before_b_stays() -> None:
    assert fix(orjson.dumps("\\b\x08\\\x0c")) == b'"\\\\b\\u0008\\\\\\u000c"'
    assert dumps({"k": "\ud800<"}) == '{"k":"\ufffd\\u003c"}'.encode()


@pytest.mark.parametrize(
    "text",
    ["\ue008\x08\\b", "\ue00c\x0c\\f", "a\x08b\x0cc", "\\\x08\\", '"\n\x0b\x0c', "\x1f\x08\t"],
)
def test_texts_with_controls_and_placeholder_characters(text: str) -> None:
    table = table_of([("id", {"mysqlType": "int"}), ("s", TEXT)])
    value = encoder().encode_rows([row(table, {"id": 1, "s": text})]).records[0][1]
    expected = orjson.dumps(text).replace(b"\\b", b"\\u0008").replace(b"\\f", b"\\u000c")
    if "\\" in text:  # the escaped backslash before a b or f stays
        expected = fix(orjson.dumps(text))
    assert b'"s":' + expected + b"}" in value
    assert orjson.loads(value)["data"][0]["s"] == text


@pytest.mark.parametrize("mysql_type", ["binary", "varbinary"])
@pytest.mark.parametrize("raw", [b"\x08\x0c\xff\x00", b"\\b\x08\x0c", b'"\x0c\x85\n'])
def test_binary_bytes_with_controls(mysql_type: str, raw: bytes) -> None:
    column = {"mysqlType": mysql_type, "length": len(raw), "charset": "binary"}
    table = table_of([("id", {"mysqlType": "int"}), ("b", column)])
    value = (
        encoder()
        .encode_rows([row(table, {"id": 1, "b": base64.b64encode(raw).decode()})])
        .records[0][1]
    )
    assert b'"b":' + fix(orjson.dumps(raw.decode("latin-1"))) + b"}" in value
    assert orjson.loads(value)["data"][0]["b"] == raw.decode("latin-1")


_MARKED = "\x08\x0c\\bf\"u0<&\n\ue008\ue00c\xe9\xff~^|`{}_@!#$%'()*+,-./:;=?[]GZgz"


@given(
    st.text(alphabet=st.sampled_from(_MARKED), max_size=60)
    | st.binary(max_size=300).map(lambda raw: raw.decode("latin-1"))
)
def test_text_fragment_writes_gos_escapes_for_any_text(text: str) -> None:
    """The marks standing in for the controls never show elsewhere in the dumped text, however
    many of them (or of the placeholders) the text holds."""
    assert orjson.dumps(text_fragment(text, orjson.dumps)) == fix_controls(orjson.dumps(text))


def test_text_fragment_with_every_mark_in_the_text() -> None:
    text = "".join(map(chr, range(256)))
    assert orjson.dumps(text_fragment(text, orjson.dumps)) == fix_controls(orjson.dumps(text))


@pytest.mark.parametrize("same_objects", [True, False])
def test_update_of_unchanged_binary_and_text_values(same_objects: bool) -> None:
    """An UPDATE's after image takes the before image's text for a value it did not change
    (the same object, or an equal one): the bytes are those of a fresh rendering."""
    table = table_of([("id", {"mysqlType": "int"}), ("s", TEXT), ("b", BLOB)])
    blob = base64.b64encode(b"\x08<\x0c\\b\xff").decode()
    before = {"id": 1, "s": "x\x08y", "b": blob}
    after = {"id": 2, "s": before["s"], "b": before["b"]}
    if not same_objects:
        after["s"], after["b"] = "".join(["x\x08", "y"]), "".join([blob[:4], blob[4:]])
        assert after["b"] is not before["b"]
    value = encoder().encode_rows([row(table, after, before)]).records[0][1]
    texts = '"s":"x\\u0008y","b":"\\u0008\\u003c\\u000c\\\\b\u00ff"'
    assert f'"old":[{{"id":"1",{texts}}}],"data":[{{"id":"2",{texts}}}]' in value.decode()
