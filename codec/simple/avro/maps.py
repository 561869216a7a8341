"""The ``data``/``old`` map of an Avro DML as one generated function per table version.

The map is one block: the entry count, each column's entry (its key and union branch fixed
per column, then the value), the end marker. The generated function writes it in one
``b"".join`` of per-column expressions: integers, floats and text inline (the value's own
encoding, no per-value call through the column's writer), the rarer types through their
``ColumnWriter``. The bytes are the writers' bytes; a value a writer would refuse raises here
too, and the record encoder asks the writers which column it was.
"""

from __future__ import annotations

import binascii
from collections.abc import Callable, Sequence
from struct import Struct
from typing import Any

from tisink.codec.simple.avro.columns import ColumnWriter, unsigned_bigint
from tisink.codec.simple.avro.wire import END_OF_BLOCKS, SECOND_BRANCH, long_bytes
from tisink.core.codegen import run_generated
from tisink.model.events import Image
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo

MapWriter = Callable[[Image], bytes]

_SIZES = tuple(long_bytes(n) for n in range(8192))
"""The Avro length prefix of strings and bytes shorter than 8 KiB."""
_TEXT_FAMILIES = (
    TypeFamily.STRING,
    TypeFamily.DECIMAL,
    TypeFamily.DATE,
    TypeFamily.DATETIME,
    TypeFamily.TIME,
)


def _value_source(i: int, column: ColumnInfo) -> str:
    """Source of the encoded non-NULL value ``v{i}`` (after the entry's prefix)."""
    v, family = f"v{i}", column.family
    if family is TypeFamily.BIGINT and column.unsigned:
        return f"_unsigned({v})"
    if family in (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.YEAR):
        return f"_long({v})"
    if family is TypeFamily.FLOAT:
        return f"_float({v})"
    if family is TypeFamily.DOUBLE:
        return f"_double({v})"
    if family in _TEXT_FAMILIES:
        return _sized(i, f"{v}.encode()")
    if family is TypeFamily.BINARY and column.mysql_type != "binary":  # binary(N) pads
        return _sized(i, f"_a2b({v}, strict_mode=True)")
    return f"w{i}({v})"


def _sized(i: int, raw: str) -> str:
    """Source of the bytes ``raw`` evaluates to, after their length."""
    size = f"(_sizes[n{i}] if (n{i} := _len(r{i} := {raw})) < 8192 else _long(n{i}))"
    return f"{size} + r{i}"


def compile_map(columns: Sequence[tuple[ColumnInfo, ColumnWriter]]) -> MapWriter:
    """``map_bytes(image)``: ``SECOND_BRANCH`` (the map's union branch) and the map of the
    image's ``columns`` (in this order); KeyError for a missing column."""
    namespace: dict[str, Any] = {
        "_long": long_bytes,
        "_unsigned": unsigned_bigint,
        "_float": Struct("<f").pack,
        "_double": Struct("<d").pack,
        "_len": len,
        "_a2b": binascii.a2b_base64,
        "_sizes": _SIZES,
        "_join": b"".join,
        "head": SECOND_BRANCH + (long_bytes(len(columns)) if columns else b""),  # 0 is the end
        "end": END_OF_BLOCKS,
    }
    reads, parts = [], ["head"]
    for i, (column, (name, null_entry, prefix, write)) in enumerate(columns):
        namespace[f"k{i}"], namespace[f"null{i}"], namespace[f"p{i}"] = name, null_entry, prefix
        namespace[f"w{i}"] = write
        reads.append(f"    v{i} = image[k{i}]")
        parts.append(f"null{i} if v{i} is None else p{i} + {_value_source(i, column)}")
    parts.append("end")
    defaults = ", ".join(f"{name}={name}" for name in namespace)
    body = [*reads, "    return _join((", *(f"        {part}," for part in parts), "    ))"]
    source = "\n".join([f"def map_bytes(image, *, {defaults}):", *body])
    writer: MapWriter = run_generated(source, "simple-avro map writer", namespace)["map_bytes"]
    return writer
