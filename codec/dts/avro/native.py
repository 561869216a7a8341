"""Row images as generic Avro datums, for fastavro's ``schemaless_writer``.

The slow path the specialised writers are measured and proven against: the same mapping, the
value records built as dicts and the union branch named in fastavro's ``(name, datum)`` tuple
notation (BinaryObject and BinaryGeometry have the same fields, so only the name tells them
apart).
"""

from __future__ import annotations

from typing import Any

from tisink.codec.dts.avro.mapping import ValueMapping, ValueType

DATETIME_FIELDS = ("year", "month", "day", "hour", "minute", "second", "millis")


def native_value(namespace: str, mapping: ValueMapping, value: Any) -> tuple[str, dict[str, Any]]:
    """The union item of one non-null value: ``(full record name, record)``."""
    kind = mapping.value_type
    converted = mapping.convert(value)
    constants = mapping.constants
    if kind is ValueType.INTEGER:
        record: dict[str, Any] = {"precision": constants[0], "value": converted}
    elif kind is ValueType.CHARACTER:
        record = {"charset": constants[0], "value": converted}
    elif kind in (ValueType.DECIMAL, ValueType.FLOAT):
        record = {"value": converted, "precision": constants[0], "scale": constants[1]}
    elif kind is ValueType.TIMESTAMP:
        record = {"timestamp": converted[0], "millis": converted[1]}
    elif kind is ValueType.DATETIME:
        record = dict(zip(DATETIME_FIELDS, converted, strict=True))
    else:
        record = {"type": constants[0], "value": converted}
    return f"{namespace}.{kind.value}", record


def native_image(
    namespace: str,
    names: tuple[str, ...],
    mappings: tuple[ValueMapping, ...],
    image: dict[str, Any],
) -> list[tuple[str, dict[str, Any]] | None]:
    """One image array in column order; SQL NULL is the union's null."""
    return [
        None if image[name] is None else native_value(namespace, mapping, image[name])
        for name, mapping in zip(names, mappings, strict=True)
    ]
