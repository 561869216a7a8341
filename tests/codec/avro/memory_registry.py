"""An in-memory schema registry: the test double of ``codec.avro.registry.SchemaRegistry``.

Ids are 1, 2, ... in registration order, global across subjects, and registering a schema a
subject already holds returns its id, as a Confluent registry does. Each subject keeps its
versions in order.
"""

from __future__ import annotations

from tisink.codec.avro.registry import SchemaRegistryError


class MemoryRegistry:
    """Implements ``SchemaRegistry``; ``requests`` counts register calls (to see caching)."""

    def __init__(self) -> None:
        self.schemas: list[str] = []
        self.subjects: dict[str, list[int]] = {}
        self.requests = 0

    def register(self, subject: str, schema_text: str) -> int:
        self.requests += 1
        if schema_text in self.schemas:
            schema_id = self.schemas.index(schema_text) + 1
        else:
            self.schemas.append(schema_text)
            schema_id = len(self.schemas)
        versions = self.subjects.setdefault(subject, [])
        if schema_id not in versions:
            versions.append(schema_id)
        return schema_id

    def schema_by_id(self, schema_id: int) -> str:
        if not 1 <= schema_id <= len(self.schemas):
            raise SchemaRegistryError(f"schema registry memory: schema id {schema_id} not found")
        return self.schemas[schema_id - 1]


MEMORY_SCHEME = "memory"
MEMORY_URL = f"{MEMORY_SCHEME}://tests"
"""A ``schema-registry`` for in-process tests that build every protocol of the registry: one
``MemoryRegistry`` per URL host, shared by the encoders and decoders of the process."""
_BY_HOST: dict[str, MemoryRegistry] = {}


def _memory_registry(url: str) -> MemoryRegistry:
    from urllib.parse import urlsplit

    return _BY_HOST.setdefault(urlsplit(url).netloc, MemoryRegistry())


def install_memory_scheme() -> None:
    """Let ``schema-registry=memory://NAME`` reach an in-process registry (this process only:
    a ``tisink`` subprocess needs a real one, ``tests/schema_registry_fixture.py``)."""
    from tisink.codec.avro.confluent import SCHEMES

    SCHEMES.setdefault(MEMORY_SCHEME, _memory_registry)
