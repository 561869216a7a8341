"""TiDB's memcomparable key encoding (``pkg/util/codec``: ``EncodeKey``) and the collation sort
keys it encodes strings by (``pkg/util/collate``): what a clustered common handle is made of,
so the raw-bytes checksum (V2) of a row of such a table can append it as TiDB does.

``EncodeKey`` writes each value as a flag byte and a body whose bytewise order is the values'
order: ints big-endian with the sign bit flipped (flag 3), uints big-endian (4), floats as
``EncodeFloat`` (5), decimals as precision, frac and ``MyDecimal.ToBin`` (6), durations as ints
(7), bytes in groups of 8 padded with zeros, each followed by 0xFF minus the padding (1).
Strings are encoded by their collation's sort key (new collations, TiDB's default since v4.0).
"""

from __future__ import annotations

import struct

from tisink.codec.errors import CodecError

NIL_FLAG = 0
BYTES_FLAG = 1
COMPACT_BYTES_FLAG = 2
INT_FLAG = 3
UINT_FLAG = 4
FLOAT_FLAG = 5
DECIMAL_FLAG = 6
DURATION_FLAG = 7

_U64 = (1 << 64) - 1
_SIGN = 1 << 63
_BE_U64 = struct.Struct(">Q")
_LE_U64 = struct.Struct("<Q")
_LE_F64 = struct.Struct("<d")
_GROUP = 8
_MARKER = 0xFF


def encode_int(v: int) -> bytes:
    """``codec.EncodeInt``: the int64's bits with the sign bit flipped, big-endian."""
    if not -_SIGN <= v < _SIGN:
        raise CodecError(f"{v} is out of int64 range")
    return _BE_U64.pack((v & _U64) ^ _SIGN)


def encode_uint(v: int) -> bytes:
    """``codec.EncodeUint``: the uint64 big-endian."""
    if not 0 <= v <= _U64:
        raise CodecError(f"{v} is out of uint64 range")
    return _BE_U64.pack(v)


def encode_float(v: float) -> bytes:
    """``codec.EncodeFloat``: a non-negative float with the sign bit set, a negative one with
    every bit flipped, big-endian; so -0.0 sorts just below 0.0."""
    bits = _LE_U64.unpack(_LE_F64.pack(v))[0]
    bits = bits | _SIGN if v >= 0 else ~bits & _U64
    return _BE_U64.pack(bits)


def encode_bytes(data: bytes) -> bytes:
    """``codec.EncodeBytes``: 8-byte groups, the last padded with zeros, each followed by the
    marker 0xFF minus its padding; a multiple of 8 gets one more, all-padding group."""
    out = bytearray()
    for start in range(0, len(data) + 1, _GROUP):
        group = data[start : start + _GROUP]
        pad = _GROUP - len(group)
        out += group + bytes(pad)
        out.append(_MARKER - pad)
    return bytes(out)


# --- collations ------------------------------------------------------------------------------

PAD_SPACE_BIN = frozenset(("utf8mb4_bin", "utf8_bin", "ascii_bin", "latin1_bin"))
"""Collations TiDB maps to ``binPaddingCollator``: the bytes, trailing spaces trimmed."""
NO_PAD_BIN = frozenset(("binary", "utf8mb4_0900_bin"))
"""Collations whose key is the bytes as they are (``binCollator``, ``derivedBinCollator``)."""
BIN_COLLATIONS = frozenset(
    ("utf8mb4_bin", "utf8_bin", "ascii_bin", "latin1_bin", "gbk_bin", "gb18030_bin")
)
"""TiDB's ``IsBinCollation``: a CHAR (not a VARCHAR) in one needs no restored data."""


def collation_key(collation: str, data: bytes) -> bytes:
    """The collator's ``Key`` of a string's bytes, for the collations implemented here; any
    other (the ``_ci`` ones, gbk, gb18030, unicode) is refused: their keys need TiDB's weight
    tables, and a guess would give a wrong checksum, not a refusal."""
    name = collation.lower()
    if name in NO_PAD_BIN:
        return data
    if name in PAD_SPACE_BIN:
        return data.rstrip(b" ")
    raise CodecError(
        f"collation {collation!r}: its sort key (TiDB pkg/util/collate) is not implemented; "
        f"implemented are {sorted(NO_PAD_BIN | PAD_SPACE_BIN)}"
    )


def needs_restored_data(mysql_type: str, collation: str) -> bool:
    """TiDB ``types.NeedRestoredData`` (new collations on): a string column whose key loses
    what its value was (a ``_ci`` collation, or trailing spaces of a VARCHAR in a ``_bin``
    one). Such a primary-key column of a clustered table stays in the row value."""
    name = collation.lower()
    if name == "binary" or name == "utf8mb4_0900_bin":
        return False
    if mysql_type not in _STRING_TYPES:
        return False  # the binary twins take the binary collation
    return name not in BIN_COLLATIONS or mysql_type == "varchar"


_STRING_TYPES = frozenset(("char", "varchar", "tinytext", "text", "mediumtext", "longtext"))
