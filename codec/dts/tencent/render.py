"""Row images compiled per table version into straight-line Python.

A loop over the columns pays, per column, for unpacking its slot, a default-argument lookup
and a call to its value converter; at one row per transaction that loop is a third of the
encoder's time. The compiled function reads each column with one subscript, writes the
commonest conversions (integers, UTF-8 text, DECIMAL, DOUBLE) inline, looks the ``Data`` prefix
up by length and joins once. It only handles the common case, a plain dict with every column:
a missing column (``NA``), a dict subclass (whose ``__missing__`` a subscript would call) or a
value that does not convert raises, and the caller falls back to the column loop, which writes
``NA`` or names the failing column exactly as before.

The generated source names nothing but its own numbered locals; column names, prefixes and
converters reach it through the namespace, so no table text is ever parsed as code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tisink.codec.dts.tencent.enums import DMLType
from tisink.codec.dts.tencent.values import (
    ToBytes,
    decimal_bytes,
    float64_bytes,
    integer_bytes,
    utf8_bytes,
)
from tisink.codec.values import float64_text
from tisink.core.codegen import run_generated
from tisink.model.events import RowChangedEvent

RowRenderer = Callable[[RowChangedEvent], bytes]


class Prefixes(dict[int, bytes]):
    """A column's ``Data`` prefix by value length, made on first use by ``make``."""

    __slots__ = ("_make",)

    def __init__(self, make: Callable[[int], bytes]) -> None:
        super().__init__()
        self._make = make

    def __missing__(self, size: int) -> bytes:
        return self._make(size)


Columns = Sequence[tuple[str, ToBytes, Prefixes, bytes]]
"""(name, converter, prefixes, NIL field) of each column, in column order."""


_INLINE: dict[ToBytes, str] = {
    integer_bytes: "b'%d' % v",
    utf8_bytes: "v.encode()",
    decimal_bytes: "str(v).encode()",
    float64_bytes: "float64_text(v).encode()",
}
"""The converters written out in the generated code: each the body of its function."""


def _conversion(local: str, to_bytes: ToBytes) -> str:
    """The expression converting ``v``: the converter's body, or a call of it."""
    return _INLINE.get(to_bytes) or f"f{local}(v)"


def _image(side: str, image: str, columns: Columns, namespace: dict[str, Any]) -> list[str]:
    """Lines rendering ``row.<image>`` into locals ``h<side><i>``, ``r<side><i>``."""
    lines = [
        f"    image = row.{image}",
        "    if type(image) is not dict:",
        "        raise TypeError",
    ]
    for index, (name, to_bytes, prefixes, nil) in enumerate(columns):
        local = f"{side}{index}"
        namespace.update({f"n{local}": name, f"f{local}": to_bytes})
        namespace.update({f"p{local}": prefixes, f"z{local}": nil})
        lines += [
            f"    v = image[n{local}]",
            "    if v is None:",
            f"        h{local} = z{local}; r{local} = b''",
            "    else:",
            f"        r{local} = {_conversion(local, to_bytes)}",
            f"        h{local} = p{local}[len(r{local})]",
        ]
    return lines


def _outputs(side: str, columns: Columns) -> list[str]:
    return [f"{kind}{side}{index}" for index in range(len(columns)) for kind in "hr"]


def compile_change(kind: DMLType, old: Columns, new: Columns) -> RowRenderer:
    """The ``RowChange`` fields of an INSERT (after image as ``newColumns``), an UPDATE
    (before image as ``oldColumns``, then after) or a DELETE (before image)."""
    namespace: dict[str, Any] = {"float64_text": float64_text}
    lines, outputs = [], []
    if kind is not DMLType.INSERT:
        lines += _image("o", "before", old, namespace)
        outputs += _outputs("o", old)
    if kind is not DMLType.DELETE:
        lines += _image("a", "after", new, namespace)
        outputs += _outputs("a", new)
    joined = f"b''.join(({', '.join(outputs)},))" if outputs else "b''"
    source = "\n".join(["def change(row):", *lines, f"    return {joined}"])
    return run_generated(source, f"tencent-dts {kind.name.lower()} writer", namespace)["change"]
