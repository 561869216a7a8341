"""Seeded value draws per column, as source text (spec/feed-format.md "Values").

``column_code`` gives the statements that draw one (non-NULL) value of a column from the
table's ``random.Random``; ``inserts`` runs those of every column of a table version in one
generated function, so a row costs no call per column and every bound is a literal. Values
depend on the seed and the table only, never on which process generates them. Text includes
characters that JSON encoders must escape (``<>&``, quotes, U+2028) and multi-byte UTF-8, so
a consumer's decoder is exercised too.

The statements draw from the row's own stream (``draws``): each draw is an expression on the
local ``s``, a fixed number of words per value (no retry loop), so a value costs a few integer
operations and no call. Text and binary values are slices of fixed random pools (one draw for
the start, one for the length). Dates and times are in ``clock_values``.
"""

from __future__ import annotations

import binascii
import hashlib
import random
import string
from collections.abc import Callable, Sequence
from typing import Any

from tisink.feed.workload.clock_values import date_code, datetime_code, time_code
from tisink.feed.workload.draws import ColumnCode, below_code, bits, draw
from tisink.feed.workload.errors import ScenarioError
from tisink.model.mysqltypes import INTEGER_RANGES, TypeFamily
from tisink.model.table import ColumnInfo

ALPHABET = string.ascii_letters + string.digits + " " * 10 + "<>&\"'\\/é中😀\u2028"
"""Characters of generated text; at most 4 UTF-8 bytes each."""
_POOL = "".join(random.Random(0x715_1A4).choices(ALPHABET, k=1 << 16))
"""Generated text is a slice of this fixed random text: one draw per value, not per
character, and still a different string almost every time."""
_BYTES = random.Random(0xB17E5).randbytes(1 << 16)
"""Generated binary values are slices of these fixed random bytes, as text of the pool."""
DEFAULT_MAX_SIZE = 32
"""Longest generated text or binary value when the scenario gives no ``size``."""
_FLOAT_SPAN = 1e4
_DOUBLE_SPAN = 1e9
_JSON_WORDS = ("alpha", "beta", "gamma", "delta", "<tag>", "a&b", "中文", "")
UNROLLED_VECTOR = 16
"""Vectors up to this many dimensions draw as a list display, longer ones in a loop."""

SHARED: dict[str, Any] = {
    "ALPHABET": ALPHABET,
    "POOL": _POOL,
    "BYTES": _BYTES,
    "JSON_WORDS": _JSON_WORDS,
    "encode": binascii.b2a_base64,
}
"""Names the statements of every column may use besides ``s``."""


Builder = Callable[[ColumnInfo, tuple[int, int] | None, str], ColumnCode]


def column_code(
    col: ColumnInfo, size: tuple[int, int] | None, v: str, later: Sequence[ColumnInfo] = ()
) -> ColumnCode:
    """The draw of a (non-NULL) ``col`` value into ``v``; ``size`` bounds text/binary
    lengths. ``later``: the types a MODIFY COLUMN gives the column further on; the value
    fits them too, since TiDB (in strict mode) refuses a change its kept values cannot
    follow, so a feed never carries one."""
    if later:
        fitted = _fitted(col, size, v, later)
        if fitted is not None:
            return fitted
    return _BUILDERS[col.family](col, size, v)


_NUMBERS = (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.DECIMAL)
_LENGTHS = {"char": TypeFamily.STRING, "varchar": TypeFamily.STRING,
            "binary": TypeFamily.BINARY, "varbinary": TypeFamily.BINARY}  # fmt: skip


def _digits(col: ColumnInfo) -> tuple[int, int, bool]:
    """(digits before the point, digits after it, unsigned) of a DECIMAL or integer type."""
    if col.family is TypeFamily.DECIMAL:
        return (col.length or 10) - col.decimal, col.decimal, col.unsigned
    _, high, unsigned_high = INTEGER_RANGES[col.mysql_type]
    return len(str(unsigned_high if col.unsigned else high)) - 1, 0, col.unsigned


def _fitted(
    col: ColumnInfo, size: tuple[int, int] | None, v: str, later: Sequence[ColumnInfo]
) -> ColumnCode | None:
    """The draw of ``col`` kept within every type of ``later`` of its kind (numbers, or
    texts and bytes of a bounded length); None when none of them narrows it."""
    numeric = [c for c in later if c.family in _NUMBERS]
    if numeric and col.family in (*_NUMBERS, TypeFamily.FLOAT, TypeFamily.DOUBLE):
        whole, scale, unsigned = _digits(col) if col.family in _NUMBERS else (15, 4, col.unsigned)
        for other in numeric:
            other_whole, other_scale, other_unsigned = _digits(other)
            whole, scale = min(whole, other_whole), min(scale, other_scale)
            unsigned = unsigned or other_unsigned
        narrow = ColumnInfo(v, "decimal", length=whole + scale, decimal=scale, unsigned=unsigned)
        code = _decimal(narrow, None, v)
        if col.family in (TypeFamily.FLOAT, TypeFamily.DOUBLE):
            return ColumnCode([*code.lines, f"{v} = float({v})"], code.tables)
        if col.family is not TypeFamily.DECIMAL:
            return ColumnCode([*code.lines, f"{v} = int({v})"], code.tables)
        return code
    lengths = [c.length for c in later if _LENGTHS.get(c.mysql_type) is col.family and c.length]
    if lengths and col.family in (TypeFamily.STRING, TypeFamily.BINARY):
        low, high = size if size is not None else (0, DEFAULT_MAX_SIZE)
        high = min(high, *lengths)
        return _BUILDERS[col.family](col, (min(low, high), high), v)
    return None


def _integer(col: ColumnInfo, size: tuple[int, int] | None, v: str) -> ColumnCode:
    low, high, unsigned_max = INTEGER_RANGES[col.mysql_type]
    if col.unsigned:
        low, high = 0, unsigned_max
    width = (high - low).bit_length()  # every integer type spans a power of two
    return ColumnCode([f"{v} = {low} + {bits(width)}" if low else f"{v} = {bits(width)}"], {})


def _year(col: ColumnInfo, size: tuple[int, int] | None, v: str) -> ColumnCode:
    return ColumnCode([*below_code(v, 255), f"{v} += 1901"], {})


def _bit(col: ColumnInfo, size: tuple[int, int] | None, v: str) -> ColumnCode:
    return ColumnCode([f"{v} = {bits(col.length or 1)}"], {})


def _floating(col: ColumnInfo, size: tuple[int, int] | None, v: str) -> ColumnCode:
    span = _FLOAT_SPAN if col.mysql_type == "float" else _DOUBLE_SPAN
    low = 0.0 if col.unsigned else -span
    width = span - low  # uniform in [low, span)
    digits = 2 if col.mysql_type == "float" else 4
    shifted = f"{low!r} + {width!r} * {draw()}" if low else f"{width!r} * {draw()}"  # >= +0.0
    return ColumnCode([f"{v} = round({shifted}, {digits})"], {})


def _decimal(col: ColumnInfo, size: tuple[int, int] | None, v: str) -> ColumnCode:
    scale = col.decimal
    whole, fraction = f"{v}_w", f"{v}_f"
    lines = below_code(whole, 10 ** min(col.length - scale, 12))
    if scale:
        fractions = 10**scale
        lines += below_code(fraction, fractions)
        lines.append(f'{v} = f"{{{whole}}}.{{str({fraction} + {fractions})[1:]}}"')
        nonzero = f"({whole} or {fraction})"
    else:
        lines.append(f"{v} = str({whole})")
        nonzero = whole
    if not col.unsigned:  # negative a quarter of the time, but never "-0.00"
        lines += [f"if {draw()} < 0.25 and {nonzero}:", f'    {v} = "-" + {v}']
    return ColumnCode(lines, {})


def _bounds(col: ColumnInfo, size: tuple[int, int] | None, unit_bytes: int) -> tuple[int, int]:
    """Length bounds of a text/binary value: the scenario's ``size`` capped by the column."""
    low, high = size if size is not None else (0, DEFAULT_MAX_SIZE)
    if col.length:
        cap = col.length if col.mysql_type in ("char", "varchar") else col.length // unit_bytes
        high = min(high, cap)
        low = min(low, high)
    return low, high


def _text(col: ColumnInfo, size: tuple[int, int] | None, v: str) -> ColumnCode:
    low, high = _bounds(col, size, 4)
    return _slice(v, "POOL", len(_POOL), low, high, _POOL)


def _slice(v: str, pool: str, length: int, low: int, high: int, text: str | bytes) -> ColumnCode:
    """Statements that set ``v`` to a slice of ``pool`` (``length`` long) of ``low`` to
    ``high`` items: a start, then a length. A value longer than the pool is cut from the
    pool repeated (a table of its own, named after ``v``)."""
    start = f"{v}_s"
    tables: dict[str, Any] = {}
    if high >= length:
        pool = f"{v}_pool"
        tables[pool] = text * (high // length + 2)
    limit = length if high >= length else length - high
    lines = [
        *below_code(start, limit),
        *below_code(f"{v}_n", high - low + 1),
        f"{v} = {pool}[{start} : {start}{_plus(low)} + {v}_n]",
    ]
    return ColumnCode(lines, tables)


def _plus(term: int) -> str:
    return f" + {term}" if term else ""


def _b64(data: bytes) -> str:
    return binascii.b2a_base64(data)[:-1].decode()  # [:-1]: cheaper than newline=False


def _binary(col: ColumnInfo, size: tuple[int, int] | None, v: str) -> ColumnCode:
    if col.mysql_type == "binary":
        width = col.length or 1  # BINARY(n) is padded to n bytes
        low = high = width
    else:
        low, high = _bounds(col, size, 1)
    code = _slice(f"{v}_b", "BYTES", len(_BYTES), low, high, _BYTES)
    return ColumnCode([*code.lines, f"{v} = encode({v}_b)[:-1].decode()"], code.tables)


def _enum(col: ColumnInfo, size: tuple[int, int] | None, v: str) -> ColumnCode:
    index = f"{v}_i"
    lines = [*below_code(index, len(col.elements)), f"{v} = {v}_members[{index}]"]
    return ColumnCode(lines, {f"{v}_members": tuple(col.elements)})


def _set(col: ColumnInfo, size: tuple[int, int] | None, v: str) -> ColumnCode:
    lines = [f"{v} = []"]
    for i in range(len(col.elements)):  # each member with probability 1/2, in order
        lines += [f"if {draw()} < 0.5:", f"    {v}.append({v}_members[{i}])"]
    return ColumnCode(lines, {f"{v}_members": tuple(col.elements)})


_MOST_TAGS = 3


def _json(col: ColumnInfo, size: tuple[int, int] | None, v: str) -> ColumnCode:
    doc, n, tags, ok = f"{v}_doc", f"{v}_n", f"{v}_t", f"{v}_ok"
    lines = [
        *below_code(f"{v}_id", 1 << 40),
        *below_code(n, len(_JSON_WORDS)),
        f'{doc} = {{"id": {v}_id, "name": JSON_WORDS[{n}]}}',
        *below_code(n, _MOST_TAGS + 1),
        *below_code(tags, len(_JSON_WORDS) - _MOST_TAGS + 1),
        f"if {draw()} < 0.5:",
        f'    {doc}["tags"] = list(JSON_WORDS[{tags} : {tags} + {n}])',
        *below_code(n, 199),
        f"{ok} = {draw()} < 0.5",
        f"if {draw()} < 0.3:",
        f'    {doc}["nested"] = {{"ok": {ok}, "none": None, "n": {n} - 99}}',
        f'{v} = {doc} if {draw()} < 0.9 else [{doc}["id"], {doc}["name"]]',
    ]
    return ColumnCode(lines, {})


def _vector(col: ColumnInfo, size: tuple[int, int] | None, v: str) -> ColumnCode:
    dims = col.length or 3
    value = f"round(-1.0 + 2.0 * {draw()}, 3)"  # uniform in [-1, 1)
    if dims <= UNROLLED_VECTOR:
        return ColumnCode([f"{v} = [{', '.join([value] * dims)}]"], {})
    return ColumnCode([f"{v} = []", f"for _ in range({dims}):", f"    {v}.append({value})"], {})


_BUILDERS: dict[TypeFamily, Builder] = {
    TypeFamily.INT: _integer,
    TypeFamily.BIGINT: _integer,
    TypeFamily.YEAR: _year,
    TypeFamily.BIT: _bit,
    TypeFamily.FLOAT: _floating,
    TypeFamily.DOUBLE: _floating,
    TypeFamily.DECIMAL: _decimal,
    TypeFamily.STRING: _text,
    TypeFamily.BINARY: _binary,
    TypeFamily.DATE: date_code,
    TypeFamily.DATETIME: datetime_code,
    TypeFamily.TIMESTAMP: datetime_code,
    TypeFamily.TIME: time_code,
    TypeFamily.ENUM: _enum,
    TypeFamily.SET: _set,
    TypeFamily.JSON: _json,
    TypeFamily.VECTOR: _vector,
}


KEY_FAMILIES = (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.STRING, TypeFamily.BINARY)
"""Types a primary or unique key column may have: the generator derives them from the row's
sequence number, which keeps them unique."""


def key_generator(col: ColumnInfo, table: str) -> Callable[[int], Any]:
    """The unique value of key column ``col`` for row sequence number ``seq`` (1, 2, ...)."""
    family = col.family
    if family in (TypeFamily.INT, TypeFamily.BIGINT):
        high = INTEGER_RANGES[col.mysql_type][2 if col.unsigned else 1]

        def int_key(seq: int) -> int:
            if seq > high:
                raise ScenarioError(
                    f"key overflows {col.mysql_type} at row {seq}", table=table, column=col.name
                )
            return seq

        return int_key
    if family is TypeFamily.STRING:
        width = min(col.length or 20, 20)
        return lambda seq: _fit(f"k{seq:0{width - 1}d}", width, col, table)
    if family is TypeFamily.BINARY:
        width = col.length if col.mysql_type == "binary" else 8
        return lambda seq: _b64(seq.to_bytes(width, "big"))
    raise ScenarioError(
        f"{col.mysql_type} cannot be a key column (use an integer, string or binary type)",
        table=table,
        column=col.name,
    )


def _fit(text: str, width: int, col: ColumnInfo, table: str) -> str:
    if len(text) > width:
        raise ScenarioError(
            f"key overflows {col.mysql_type}({width})", table=table, column=col.name
        )
    return text


def oversized_value(col: ColumnInfo, nbytes: int, state: int) -> str:
    """A value of about ``nbytes`` bytes for a long text or blob column (large-message tests),
    from the stream state ``state``: random bytes, or one letter repeated."""
    if col.family is TypeFamily.BINARY:
        return _b64(hashlib.shake_128(state.to_bytes(8, "little")).digest(nbytes))
    letters = string.ascii_letters
    return letters[(state >> 11) % len(letters)] * nbytes
