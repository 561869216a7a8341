"""Where Avro schemas live: the ``SchemaRegistry`` interface and TiCDC's per-subject cache.

TiCDC keeps one entry per subject holding the table version it was made for (tiflow
``GetCachedOrRegister``): the same version reuses the schema id, a new version (a DDL) makes
the schema again and registers it, which gives a new version under the same subject in the
registry. Lookups by id (the decoder) are cached by id: an id names one schema for good.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any, Protocol

import fastavro

from tisink.codec.errors import CodecError

log = logging.getLogger(__name__)


class SchemaRegistry(Protocol):
    """A Confluent-compatible schema registry, as far as TiCDC's Avro uses one."""

    def register(self, subject: str, schema_text: str) -> int:
        """Register ``schema_text`` under ``subject`` (or find it there); its global id."""
        ...

    def schema_by_id(self, schema_id: int) -> str:
        """The schema text registered with ``schema_id``."""
        ...


class SchemaRegistryError(CodecError):
    """The registry refused a request or could not be reached; one line naming the registry
    URL (without credentials) and the subject or id."""


@dataclass(frozen=True, slots=True)
class CachedSchema:
    """A registered schema: its id, the 5-byte header naming it and fastavro's parsed form."""

    schema_id: int
    header: bytes
    parsed: Any
    table_version: int


def parse(schema_text: str) -> Any:
    """fastavro's parsed schema of ``schema_text``; CodecError when it is no Avro schema."""
    try:
        return fastavro.parse_schema(json.loads(schema_text))
    except Exception as err:  # fastavro raises several types for a bad schema
        raise CodecError(f"not an Avro schema: {err}") from err
