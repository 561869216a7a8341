"""Row image validation for one table version, compiled once per schema (DDL).

Two layers: ``valid`` is the generated yes/no check every row pays for (``image_check``);
``problem`` walks the per-column checks of ``values`` to name the column and the reason, and
runs only when ``valid`` says no.
"""

from __future__ import annotations

from typing import Any

from tisink.feed.format.image_check import ImageCheck, compile_image_check
from tisink.feed.format.values import Check, compile_check
from tisink.model.table import TableInfo


class ImageValidator:
    """Checks that a row image has exactly the table's stored columns, each value fitting.

    Built once per DDL: ``valid`` is one generated function per table version; ``problem``
    loops over precompiled (name, nullable, check) triples to explain a refusal.
    """

    __slots__ = ("_checks", "_names", "_virtual", "table", "valid")

    def __init__(self, table: TableInfo) -> None:
        self.table = table
        self._checks: tuple[tuple[str, bool, Check], ...] = tuple(
            (col.name, col.nullable, compile_check(col)) for col in table.stored_columns
        )
        self._names = frozenset(name for name, _, _ in self._checks)
        self._virtual = frozenset(col.name for col in table.columns if col.virtual)
        self.valid: ImageCheck = compile_image_check(table)
        """True for an image ``problem`` has nothing against (it may also say False then)."""

    def problem(self, image: Any) -> tuple[str, str] | None:
        """None when ``image`` is valid, else ``(column, reason)`` for the first bad column
        (column "" when the image itself is not an object)."""
        if type(image) is not dict:
            return "", "a row image must be a JSON object"
        for name, nullable, check in self._checks:
            try:
                value = image[name]
            except KeyError:
                return name, "missing from the row image"
            if value is None:
                if not nullable:
                    return name, "NULL in a NOT NULL column"
                continue
            reason = check(value)
            if reason is not None:
                return name, reason
        if len(image) != len(self._checks):
            for name in image:
                if name in self._virtual:
                    return name, "a virtual generated column must be absent from row images"
                if name not in self._names:
                    return name, "unknown column"
        return None
