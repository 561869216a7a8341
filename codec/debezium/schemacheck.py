"""A strict check that a message's ``schema`` describes its ``payload`` (Kafka Connect types).

Stricter than Connect's own ``JsonConverter``, which drops undeclared fields and coerces some
kinds: here every payload field must be declared (TiCDC's ``commit_ts``, ``cluster_id`` and
``start_ts`` in ``source`` excepted: it writes them whether or not the schema declares them),
every required field must be there and not null, and each value must have its type's JSON kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_INT_RANGES = {
    "int8": (-(1 << 7), (1 << 7) - 1),
    "int16": (-(1 << 15), (1 << 15) - 1),
    "int32": (-(1 << 31), (1 << 31) - 1),
    "int64": (-(1 << 63), (1 << 63) - 1),
}
_UNDECLARED_SOURCE = frozenset(("commit_ts", "cluster_id", "start_ts"))
_SOURCE_NAME = "io.debezium.connector.mysql.Source"


def check_key(message: Mapping[str, Any]) -> None:
    check_value(message["schema"], message["payload"], "key")


def check_envelope(message: Mapping[str, Any]) -> None:
    check_value(message["schema"], message["payload"], "value")


def check_value(schema: Mapping[str, Any], value: Any, path: str) -> None:
    """Raise ValueError naming ``path`` where ``value`` does not fit ``schema``."""
    kind = schema["type"]
    if value is None:
        if not schema.get("optional", False):
            raise ValueError(f"{path}: null for a required {kind}")
        return
    if kind == "struct":
        _check_struct(schema, value, path)
    elif kind == "array":
        if type(value) is not list:
            raise ValueError(f"{path}: {type(value).__name__} for an array")
        for position, item in enumerate(value):
            check_value(schema["items"], item, f"{path}[{position}]")
    elif kind in _INT_RANGES:
        low, high = _INT_RANGES[kind]
        if type(value) is not int or not low <= value <= high:
            raise ValueError(f"{path}: {value!r} is not an {kind}")
    elif kind in ("float", "double", "float32", "float64"):
        if type(value) not in (int, float):
            raise ValueError(f"{path}: {value!r} is not a number ({kind})")
    elif kind == "boolean":
        if type(value) is not bool:
            raise ValueError(f"{path}: {value!r} is not a boolean")
    elif kind in ("string", "bytes"):
        if type(value) is not str:
            raise ValueError(f"{path}: {value!r} is not a string ({kind})")
    else:
        raise ValueError(f"{path}: unknown Connect type {kind!r}")


def _check_struct(schema: Mapping[str, Any], value: Any, path: str) -> None:
    if not isinstance(value, dict):
        raise ValueError(f"{path}: {type(value).__name__} for a struct")
    declared: dict[str, Mapping[str, Any]] = {}
    for entry in schema["fields"]:
        name = entry["field"]
        if name in declared:
            raise ValueError(f"{path}: field {name!r} declared twice")
        declared[name] = entry
    for name, entry in declared.items():
        if name not in value:
            if not entry.get("optional", False) and "default" not in entry:
                raise ValueError(f"{path}.{name}: required field missing")
            continue
        check_value(entry, value[name], f"{path}.{name}")
    extra = set(value) - set(declared)
    if schema.get("name") == _SOURCE_NAME:
        extra -= _UNDECLARED_SOURCE
    if extra:
        raise ValueError(f"{path}: payload fields {sorted(extra)} are not in the schema")
