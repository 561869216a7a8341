"""Go ``encoding/json`` bytes from orjson (spec 0, "Go facts").

orjson already writes what ``json.Marshal`` writes for our values: no whitespace, insertion-order
keys (callers insert in Go's field order, maps pre-sorted), raw UTF-8, ``\\n \\r \\t \\b \\f``
short escapes and ``\\u00xx`` (lowercase) for other control characters. Two differences remain and
are fixed here:

* Go's default HTML-safe escaping writes ``<``, ``>``, ``&`` as ``\\u003c``, ``\\u003e``,
  ``\\u0026`` and always escapes U+2028/U+2029. These bytes can only occur inside JSON strings,
  so a byte-level replace after a fast ``in`` check is exact.
* A Python string can hold lone surrogates (e.g. from a ``"\\ud800"`` escape in a feed line),
  which orjson refuses and TiDB cannot store. Go's JSON decoder reads such an escape as U+FFFD,
  so on that rare error they become U+FFFD and the value is dumped again.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

_LINE_SEPARATOR = "\u2028".encode()
_PARAGRAPH_SEPARATOR = "\u2029".encode()
_LT, _GT, _AMP, _E2 = ord("<"), ord(">"), ord("&"), 0xE2
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
"""What no Go string can hold; every codec writes U+FFFD in its place."""


def html_escape(out: bytes) -> bytes:
    """Apply Go's HTML-safe escaping to orjson output (idempotent: escaped output has no <>&)."""
    # Integer membership is a memchr, so each replace runs only when its byte is there;
    # 0xE2 leads the UTF-8 of U+2028 and U+2029 (and of other characters).
    if _LT in out:
        out = out.replace(b"<", b"\\u003c")
    if _GT in out:
        out = out.replace(b">", b"\\u003e")
    if _AMP in out:
        out = out.replace(b"&", b"\\u0026")
    if _E2 in out:
        out = out.replace(_LINE_SEPARATOR, b"\\u2028").replace(_PARAGRAPH_SEPARATOR, b"\\u2029")
    return out


def go_dumps(value: Any) -> bytes:
    """``json.Marshal(value)`` for dicts, lists, strings, ints, bools, None and orjson Fragments."""
    return html_escape(repaired_dumps(value))


def repaired_dumps(value: Any) -> bytes:
    """``orjson.dumps(value)``, with every lone surrogate in its strings (and keys) U+FFFD
    instead of an error; the repair runs only on that rare error."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        return orjson.dumps(_repair(value))


def _repair(value: Any) -> Any:
    if isinstance(value, str):
        return LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_repair(k): _repair(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_repair(v) for v in value]
    return value
