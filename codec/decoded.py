"""Messages read back as a consumer reads them, in one shape for every protocol.

A protocol's decoder (its registry entry's ``new_decoder``) turns records into
``DecodedMessage``s, so ``tisink verify`` has one code path. Only what the checks need is kept:
kind, type, commitTs, the table names and schema version of a DML with its images, and the
schema a message announces (names, version, handle key): a BOOTSTRAP's or DDL's, or, for
protocols whose rows carry their schema, the DML's own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

WATERMARK = "WATERMARK"
BOOTSTRAP = "BOOTSTRAP"
DDL = "DDL"
DML = "DML"
HEARTBEAT = "HEARTBEAT"
FRAME_TYPES = frozenset({"BEGIN", "COMMIT"})
"""Transaction frames (DTS): messages of a transaction's DML stream that carry no row."""
DML_TYPES = frozenset({"INSERT", "UPDATE", "DELETE"})
DDL_TYPES = frozenset(
    {"CREATE", "RENAME", "CINDEX", "DINDEX", "ERASE", "TRUNCATE", "ALTER", "QUERY"}
)


@dataclass(frozen=True, slots=True)
class AnnouncedSchema:
    """An announced table schema as far as the checks need it."""

    schema: str
    table: str
    table_id: int
    version: int
    handle_key: tuple[str, ...]

    @property
    def name(self) -> str:
        return f"{self.schema}.{self.table}"


@dataclass(frozen=True, slots=True)
class DecodedMessage:
    """One decoded message; ``type`` is the protocol's event type (INSERT, ALTER, WATERMARK...).
    ``table_schema`` is the schema the message announces, if any."""

    kind: str
    type: str
    commit_ts: int
    database: str = ""
    table: str = ""
    schema_version: int = 0
    table_schema: AnnouncedSchema | None = None
    data: Mapping[str, Any] | None = None
    old: Mapping[str, Any] | None = None

    @property
    def table_name(self) -> str:
        return f"{self.database}.{self.table}"

    def summary(self) -> str:
        """One line for a violation report."""
        if self.kind == DML:
            return (
                f"{self.type} {self.table_name} commitTs={self.commit_ts} "
                f"schemaVersion={self.schema_version}"
            )
        if self.kind == WATERMARK:
            return f"WATERMARK commitTs={self.commit_ts}"
        schema = self.table_schema
        about = f" {schema.name} version={schema.version}" if schema else ""
        ts = f" commitTs={self.commit_ts}" if self.kind == DDL else ""
        return f"{self.type}{about}{ts}"


def handle_key(indexes: list[Mapping[str, Any]]) -> tuple[str, ...]:
    """TiCDC's handle key from a ``tableSchema``'s indexes: the primary index, else the first
    unique index whose columns are all NOT NULL; () when there is neither."""
    for index in indexes:
        if index.get("primary"):
            return tuple(index["columns"])
    for index in indexes:
        if index.get("unique") and not index.get("nullable"):
            return tuple(index["columns"])
    return ()
