"""Row images compiled per table version into straight-line Python (both DTS Avro formats).

``columns.image_bytes`` loops over the columns, unpacking a writer tuple and calling a writer
per value; at one row per transaction that loop is a third of the encoder's time. The compiled
function reads each column with one subscript, writes the commonest values inline (integers and
UTF-8 text as a cached length prefix and their bytes, DECIMAL text and DOUBLE with their
constants, memoised temporal and ENUM values looked up), calls the column's own writer for
everything else, then joins once. Whatever raises (a missing column, a value that does not fit)
goes back through ``columns.encode_image``, which writes the same bytes or names the column.

The generated source names nothing but its own numbered locals; column names, prefixes and
writers reach it through the namespace, so no table text is ever parsed as code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tisink.codec.dts.avro.columns import (
    END_OF_BLOCKS,
    NULL,
    ColumnWriter,
    Memoised,
    encode_image,
)
from tisink.codec.dts.avro.convert import integer_text, text_value
from tisink.codec.dts.avro.mapping import ValueMapping, ValueType
from tisink.codec.dts.avro.wire import double_bytes, long_bytes
from tisink.core.codegen import run_generated
from tisink.model.events import RowChangedEvent

ImageWriter = Callable[[RowChangedEvent, dict[str, Any]], bytes]
"""(row, one of its images) -> the image as Avro bytes."""
_CACHED_SIZES = 4096
"""Length prefixes kept per column; longer values are rare and vary."""


class LengthPrefixes(dict[int, bytes]):
    """A column's union branch and constant fields followed by a value length, by length."""

    __slots__ = ("_prefix",)

    def __init__(self, prefix: bytes) -> None:
        super().__init__()
        self._prefix = prefix

    def __missing__(self, size: int) -> bytes:
        made = self._prefix + long_bytes(size)
        if size < _CACHED_SIZES:
            self[size] = made
        return made


def _value_lines(index: int, mapping: ValueMapping, write: Any, space: dict[str, Any]) -> list[str]:
    """Lines writing a non-null ``v`` as ``a<index>`` + ``b<index>``, the same bytes as
    ``write``: the values that make up most rows without calling it (integers and text as
    their length and bytes, DECIMAL text and DOUBLE with their precision and scale), memoised
    ones looked up first, anything else by calling it."""
    a, b, prefix = f"a{index}", f"b{index}", space[f"c{index}"]
    kind, convert = mapping.value_type, mapping.convert
    if isinstance(write, Memoised):
        space[f"m{index}"] = write.memo
        return [
            "    else:",
            f"        {a} = c{index}; {b} = m{index}.get(v)",
            f"        if {b} is None: {b} = w{index}(v)",
        ]
    lines = []
    if kind in (ValueType.DECIMAL, ValueType.FLOAT):
        space[f"s{index}"] = long_bytes(mapping.constants[0]) + long_bytes(mapping.constants[1])
    if kind is ValueType.INTEGER and convert is integer_text:
        space[f"p{index}"] = LengthPrefixes(prefix)
        lines = ["    elif type(v) is int:", f"        {b} = b'%d' % v; {a} = p{index}[len({b})]"]
    elif kind is ValueType.CHARACTER and convert is str.encode:
        space[f"p{index}"] = LengthPrefixes(prefix)
        lines = ["    elif type(v) is str:", f"        {b} = v.encode(); {a} = p{index}[len({b})]"]
    elif kind is ValueType.DECIMAL and convert is text_value:
        space[f"p{index}"] = LengthPrefixes(prefix)
        lines = [
            "    elif type(v) is str:",
            f"        {b} = v.encode(); {a} = p{index}[len({b})]; {b} += s{index}",
        ]
    elif kind is ValueType.FLOAT and convert is float:
        lines = ["    elif type(v) is float:", f"        {a} = c{index}; {b} = D(v) + s{index}"]
    return [*lines, "    else:", f"        {a} = c{index}; {b} = w{index}(v)"]


def compile_image(
    head: bytes, writers: Sequence[ColumnWriter], mappings: Sequence[ValueMapping]
) -> ImageWriter:
    """A function from a row and one of its images to ``head`` and the image's array: the
    count, one union item per column, the end of blocks (``head + encode_image(...)``)."""
    namespace: dict[str, Any] = {"NULL": NULL, "D": double_bytes}
    lines = ["def write(row, image):", "  try:"]
    outputs = []
    for index, ((name, prefix, write), mapping) in enumerate(zip(writers, mappings, strict=True)):
        namespace.update({f"n{index}": name, f"c{index}": prefix, f"w{index}": write})
        lines += [
            f"    v = image[n{index}]",
            "    if v is None:",
            f"        a{index} = NULL; b{index} = b''",
        ]
        lines += _value_lines(index, mapping, write, namespace)
        outputs += [f"a{index}", f"b{index}"]
    namespace.update({"HEAD": head, "END": END_OF_BLOCKS, "writers": list(writers)})
    namespace.update({"encode_image": encode_image, "COUNT": head + long_bytes(len(writers))})
    lines.append(
        f"    return b''.join((COUNT, {', '.join(outputs)}, END))"
        if writers
        else "    return HEAD + END"
    )
    lines += ["  except Exception:", "    return HEAD + encode_image(row, image, writers)"]
    return run_generated("\n".join(lines), "dts-avro image writer", namespace)["write"]
