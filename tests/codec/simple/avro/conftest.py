"""Fixtures for the Avro marshaller tests: an independent branch-tagging Avro reader and the
official schema (the large-event table and row come from ``tests/codec/simple/conftest.py``).

The reader walks the schema by hand (it shares no code with fastavro or the marshaller) and
returns every union value as ``(branch name, value)``, so tests can assert which branch a value
took, which fastavro's decoded values cannot show (float versus double, long versus string).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest

_PRIMITIVES = ("null", "boolean", "int", "long", "float", "double", "string", "bytes")


class TaggedReader:
    """Decodes one bare Avro datum of a (union) schema; unions come back as (name, value)."""

    def __init__(self, schema: list[dict[str, Any]]) -> None:
        self.root = schema
        self.named: dict[str, Any] = {}
        for item in schema:
            self._collect(item, item.get("namespace", ""))

    def _collect(self, schema: Any, namespace: str) -> None:
        if isinstance(schema, list):
            for branch in schema:
                self._collect(branch, namespace)
        elif isinstance(schema, dict):
            kind = schema["type"]
            if kind in ("record", "enum"):
                space = schema.get("namespace", namespace)
                self.named[f"{space}.{schema['name']}"] = schema
                for field in schema.get("fields", ()):
                    self._collect(field["type"], space)
            elif kind == "array":
                self._collect(schema["items"], namespace)
            elif kind == "map":
                self._collect(schema["values"], namespace)

    def read(self, data: bytes) -> Any:
        value, pos = self._read(self.root, data, 0)
        assert pos == len(data), f"{len(data) - pos} trailing bytes"
        return value

    def _long(self, data: bytes, pos: int) -> tuple[int, int]:
        shift = z = 0
        while True:
            byte = data[pos]
            pos += 1
            z |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return (z >> 1) ^ -(z & 1), pos

    def _name(self, schema: Any) -> str:
        if isinstance(schema, str):
            return schema
        return (
            f"{schema.get('namespace', '')}.{schema['name']}"
            if "name" in schema
            else schema["type"]
        )

    def _read(self, schema: Any, data: bytes, pos: int) -> tuple[Any, int]:
        if isinstance(schema, list):
            index, pos = self._long(data, pos)
            branch = schema[index]
            value, pos = self._read(branch, data, pos)
            return (self._name(branch), value), pos
        if isinstance(schema, str):
            if schema not in _PRIMITIVES:
                return self._read(self.named[schema], data, pos)
            return self._primitive(schema, data, pos)
        kind = schema["type"]
        if kind == "record":
            record = {}
            for field in schema["fields"]:
                record[field["name"]], pos = self._read(field["type"], data, pos)
            return record, pos
        if kind == "enum":
            index, pos = self._long(data, pos)
            return schema["symbols"][index], pos
        if kind in ("array", "map"):
            items: list[Any] = []
            entries: dict[str, Any] = {}
            while True:
                count, pos = self._long(data, pos)
                if count == 0:
                    break
                assert count > 0, "negative block counts are not written by TiCDC"
                for _ in range(count):
                    if kind == "map":
                        key, pos = self._primitive("string", data, pos)
                        entries[key], pos = self._read(schema["values"], data, pos)
                    else:
                        item, pos = self._read(schema["items"], data, pos)
                        items.append(item)
            return (entries if kind == "map" else items), pos
        return self._read(kind, data, pos)

    def _primitive(self, kind: str, data: bytes, pos: int) -> tuple[Any, int]:
        if kind == "null":
            return None, pos
        if kind == "boolean":
            return data[pos] == 1, pos + 1
        if kind in ("int", "long"):
            return self._long(data, pos)
        if kind == "float":
            return struct.unpack_from("<f", data, pos)[0], pos + 4
        if kind == "double":
            return struct.unpack_from("<d", data, pos)[0], pos + 8
        size, pos = self._long(data, pos)
        raw = data[pos : pos + size]
        assert len(raw) == size, "truncated string or bytes"
        if kind == "string":
            return raw.decode("utf-8", "surrogateescape"), pos + size
        return raw, pos + size


@pytest.fixture(scope="session")
def official_schema(reference_data: Path) -> list[dict[str, Any]]:
    path = reference_data / "formats" / "ticdc-simple" / "ticdc" / "message.json"
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def tagged(official_schema: list[dict[str, Any]]) -> TaggedReader:
    return TaggedReader(official_schema)
