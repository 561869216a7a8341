"""Seeded value generators per column, in the feed's value form (spec/feed-format.md "Values").

``compile_generator`` builds one closure per column and schema version; a closure draws from
the table's ``random.Random`` only, so the values depend on the seed and the table, never on
which process generates them. Text includes characters that JSON encoders must escape
(``<>&``, quotes, U+2028) and multi-byte UTF-8, so a consumer's decoder is exercised too.

The closures draw exactly what ``randrange``/``randint``/``choice``/``uniform``/``randbytes``
would (``draws``), only without their argument checks, so the feed of a seed stays byte for
byte what it was. Dates and times are in ``clock_values``.
"""

from __future__ import annotations

import binascii
import random
import string
from collections.abc import Callable
from typing import Any

from tisink.feed.workload.clock_values import date_generator, datetime_generator, time_generator
from tisink.feed.workload.draws import ValueGen, below_of
from tisink.feed.workload.errors import ScenarioError
from tisink.model.mysqltypes import INTEGER_RANGES, TypeFamily
from tisink.model.table import ColumnInfo

ALPHABET = string.ascii_letters + string.digits + " " * 10 + "<>&\"'\\/é中😀\u2028"
"""Characters of generated text; at most 4 UTF-8 bytes each."""
_POOL = "".join(random.Random(0x715_1A4).choices(ALPHABET, k=1 << 16))
"""Generated text is a slice of this fixed random text: one RNG draw per value, not per
character, and still a different string almost every time."""
DEFAULT_MAX_SIZE = 32
"""Longest generated text or binary value when the scenario gives no ``size``."""
_FLOAT_SPAN = 1e4
_DOUBLE_SPAN = 1e9
_JSON_WORDS = ("alpha", "beta", "gamma", "delta", "<tag>", "a&b", "中文", "")


def compile_generator(col: ColumnInfo, size: tuple[int, int] | None = None) -> ValueGen:
    """The generator of ``col``'s (non-NULL) values; ``size`` bounds text/binary lengths."""
    family = col.family
    builder = _BUILDERS[family]
    return builder(col, size)


def _integer(col: ColumnInfo, size: tuple[int, int] | None) -> ValueGen:
    low, high, unsigned_max = INTEGER_RANGES[col.mysql_type]
    if col.unsigned:
        low, high = 0, unsigned_max
    bits = (high - low).bit_length()  # every integer type spans a power of two
    return lambda rng: low + rng.getrandbits(bits)


def _year(col: ColumnInfo, size: tuple[int, int] | None) -> ValueGen:
    draw = below_of(255)
    return lambda rng: 1901 + draw(rng)


def _bit(col: ColumnInfo, size: tuple[int, int] | None) -> ValueGen:
    bits = col.length or 1
    return lambda rng: rng.getrandbits(bits)


def _floating(col: ColumnInfo, size: tuple[int, int] | None) -> ValueGen:
    span = _FLOAT_SPAN if col.mysql_type == "float" else _DOUBLE_SPAN
    low = 0.0 if col.unsigned else -span
    width = span - low  # rng.uniform(low, span)
    digits = 2 if col.mysql_type == "float" else 4
    return lambda rng: round(low + width * rng.random(), digits)


def _decimal(col: ColumnInfo, size: tuple[int, int] | None) -> ValueGen:
    scale = col.decimal
    wholes = 10 ** min(col.length - scale, 12)
    whole_bits = wholes.bit_length()
    fractions = 10**scale
    fraction_bits = fractions.bit_length()
    signed = not col.unsigned

    def gen(rng: random.Random) -> str:
        bits = rng.getrandbits
        whole = bits(whole_bits)  # rng.randrange(wholes), then rng.randrange(fractions)
        while whole >= wholes:
            whole = bits(whole_bits)
        if scale:
            fraction = bits(fraction_bits)
            while fraction >= fractions:
                fraction = bits(fraction_bits)
            text = f"{whole}.{str(fraction + fractions)[1:]}"
        else:
            text = str(whole)
        negative = signed and rng.random() < 0.25 and text.strip("0.") != ""
        return "-" + text if negative else text

    return gen


def _bounds(col: ColumnInfo, size: tuple[int, int] | None, unit_bytes: int) -> tuple[int, int]:
    """Length bounds of a text/binary value: the scenario's ``size`` capped by the column."""
    low, high = size if size is not None else (0, DEFAULT_MAX_SIZE)
    if col.length:
        cap = col.length if col.mysql_type in ("char", "varchar") else col.length // unit_bytes
        high = min(high, cap)
        low = min(low, high)
    return low, high


def _text(col: ColumnInfo, size: tuple[int, int] | None) -> ValueGen:
    low, high = _bounds(col, size, 4)

    limit = len(_POOL) - high
    if limit <= 0:
        return lambda rng: "".join(rng.choices(ALPHABET, k=rng.randint(low, high)))

    def gen(rng: random.Random) -> str:
        start = int(rng.random() * limit)
        return _POOL[start : start + low + int(rng.random() * (high - low + 1))]

    return gen


def _b64(data: bytes) -> str:
    return binascii.b2a_base64(data)[:-1].decode()  # [:-1]: cheaper than newline=False


def _binary(col: ColumnInfo, size: tuple[int, int] | None) -> ValueGen:
    encode = binascii.b2a_base64
    if col.mysql_type == "binary":
        width = col.length or 1  # BINARY(n) is padded to n bytes
        bits = width * 8
        return lambda rng: encode(rng.getrandbits(bits).to_bytes(width, "little"))[:-1].decode()
    low, high = _bounds(col, size, 1)
    lengths = high - low + 1
    length_bits = lengths.bit_length()

    def gen(rng: random.Random) -> str:
        bits = rng.getrandbits
        n = bits(length_bits)  # rng.randint(low, high), then rng.randbytes(n)
        while n >= lengths:
            n = bits(length_bits)
        n += low
        return encode(bits(n * 8).to_bytes(n, "little"))[:-1].decode()

    return gen


def _enum(col: ColumnInfo, size: tuple[int, int] | None) -> ValueGen:
    members = col.elements
    pick = below_of(len(members))  # rng.choice(members)
    return lambda rng: members[pick(rng)]


def _set(col: ColumnInfo, size: tuple[int, int] | None) -> ValueGen:
    members = col.elements
    return lambda rng: [m for m in members if rng.random() < 0.5]


_JSON_ID = below_of(1 << 40)
_JSON_WORD = below_of(len(_JSON_WORDS))
_JSON_TAGS = below_of(4)
_JSON_N = below_of(199)


def _json(col: ColumnInfo, size: tuple[int, int] | None) -> ValueGen:
    def gen(rng: random.Random) -> Any:
        doc: dict[str, Any] = {"id": _JSON_ID(rng), "name": _JSON_WORDS[_JSON_WORD(rng)]}
        if rng.random() < 0.5:
            doc["tags"] = rng.sample(_JSON_WORDS, _JSON_TAGS(rng))
        if rng.random() < 0.3:
            ok = rng.random() < 0.5
            doc["nested"] = {"ok": ok, "none": None, "n": _JSON_N(rng) - 99}
        return doc if rng.random() < 0.9 else [doc["id"], doc["name"]]

    return gen


def _vector(col: ColumnInfo, size: tuple[int, int] | None) -> ValueGen:
    dims = range(col.length or 3)
    # rng.uniform(-1.0, 1.0) is -1.0 + 2.0 * rng.random()
    return lambda rng: [round(-1.0 + 2.0 * rng.random(), 3) for _ in dims]


_BUILDERS: dict[TypeFamily, Callable[[ColumnInfo, tuple[int, int] | None], ValueGen]] = {
    TypeFamily.INT: _integer,
    TypeFamily.BIGINT: _integer,
    TypeFamily.YEAR: _year,
    TypeFamily.BIT: _bit,
    TypeFamily.FLOAT: _floating,
    TypeFamily.DOUBLE: _floating,
    TypeFamily.DECIMAL: _decimal,
    TypeFamily.STRING: _text,
    TypeFamily.BINARY: _binary,
    TypeFamily.DATE: date_generator,
    TypeFamily.DATETIME: datetime_generator,
    TypeFamily.TIMESTAMP: datetime_generator,
    TypeFamily.TIME: time_generator,
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


def oversized_value(col: ColumnInfo, nbytes: int, rng: random.Random) -> str:
    """A value of about ``nbytes`` bytes for a long text or blob column (large-message tests)."""
    if col.family is TypeFamily.BINARY:
        return _b64(rng.randbytes(nbytes))
    return rng.choice(string.ascii_letters) * nbytes
