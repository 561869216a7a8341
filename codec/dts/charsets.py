"""MySQL charset names as Python codecs, for the string bytes both DTS formats carry (Tencent's
Protobuf ``bv``, the Avro ``Character.value``)."""

from __future__ import annotations

_PYTHON_CODECS = {
    "utf8mb4": "utf-8",
    "utf8": "utf-8",
    "utf8mb3": "utf-8",
    "ascii": "ascii",
    "latin1": "cp1252",
    "gbk": "gbk",
    "gb18030": "gb18030",
}
"""MySQL's latin1 is Windows-1252."""


def python_codec(charset: str) -> str:
    """The codec of a MySQL charset name; UTF-8, TiDB's own storage form, for names it does not
    know."""
    return _PYTHON_CODECS.get(charset.lower(), "utf-8")
