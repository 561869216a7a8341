"""Change events: rows, DDL, resolved ts and single-table transactions (TiCDC's ``cdc/model``).

Row images are dicts from column name to the value in the feed-file value form
(spec/feed-format.md, "Values"): JSON-native, so a feed line parses straight into an image and
codecs render from one canonical form. Virtual generated columns are absent from images.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum, StrEnum
from typing import Any

from tisink.model.table import TableInfo

Image = dict[str, Any]

MAX_UINT64 = (1 << 64) - 1


class RowOp(StrEnum):
    INSERT = "INSERT"
    UPDATE = "UPDATE"
    DELETE = "DELETE"


class RowChangedEvent:
    """One row change at ``commit_ts`` in a transaction that started at ``start_ts``."""

    __slots__ = (
        "after",
        "approximate_size",
        "before",
        "checksum",
        "commit_ts",
        "partition",
        "physical_table_id",
        "split_txn",
        "start_ts",
        "table",
    )

    def __init__(
        self,
        start_ts: int,
        commit_ts: int,
        table: TableInfo,
        before: Image | None = None,
        after: Image | None = None,
        *,
        split_txn: bool = False,
        physical_table_id: int | None = None,
        approximate_size: int = 0,
        checksum: RowChecksum | None = None,
        partition: int | None = None,
    ) -> None:
        self.start_ts = start_ts
        self.commit_ts = commit_ts
        self.table = table
        self.before = before
        self.after = after
        self.split_txn = split_txn
        self.physical_table_id = table.table_id if physical_table_id is None else physical_table_id
        self.approximate_size = approximate_size
        self.checksum = checksum
        self.partition = partition
        """The partition of its topic a router already gave this row (a Spark task routes its
        rows to find which it plays), so the MQ sink's router does not dispatch it again;
        None: not routed yet. A copy with changes (``replace``) is not routed."""

    @property
    def op(self) -> RowOp:
        if self.before is None:
            return RowOp.INSERT
        if self.after is None:
            return RowOp.DELETE
        return RowOp.UPDATE

    @property
    def is_insert(self) -> bool:
        return self.before is None

    @property
    def is_delete(self) -> bool:
        return self.after is None

    @property
    def is_update(self) -> bool:
        return self.before is not None and self.after is not None

    def replace(self, **changes: Any) -> RowChangedEvent:
        """A copy with ``changes`` (constructor keywords) applied; the images are shared."""
        fields = {name: getattr(self, name) for name in self.__slots__}
        fields["partition"] = None
        fields.update(changes)
        return RowChangedEvent(
            fields.pop("start_ts"), fields.pop("commit_ts"), fields.pop("table"), **fields
        )

    def describe(self) -> str:
        """A short identity for error messages: table, op and timestamps."""
        return (
            f"{self.op.value} on {self.table.qualified_name} "
            f"(startTs={self.start_ts}, commitTs={self.commit_ts})"
        )

    def __repr__(self) -> str:
        return f"RowChangedEvent({self.describe()})"


@dataclass(frozen=True, slots=True)
class RowChecksum:
    """Row checksum as TiCDC carries it when ``integrity-check-level = "correctness"``."""

    version: int
    corrupted: bool
    current: int
    previous: int


class DDLType(StrEnum):
    """The Simple Protocol's DDL type names (spec 1.4)."""

    CREATE = "CREATE"
    RENAME = "RENAME"
    CINDEX = "CINDEX"
    DINDEX = "DINDEX"
    ERASE = "ERASE"
    TRUNCATE = "TRUNCATE"
    ALTER = "ALTER"
    QUERY = "QUERY"


@dataclass(frozen=True, slots=True)
class DDLEvent:
    """A DDL finished at ``commit_ts``; ``table`` is the schema after it, ``pre_table`` before.

    ``is_bootstrap`` marks the synthetic DDL TiCDC builds to announce a schema (commitTs 0).
    """

    commit_ts: int
    ddl_type: DDLType
    query: str = ""
    table: TableInfo | None = None
    pre_table: TableInfo | None = None
    start_ts: int = 0
    is_bootstrap: bool = False

    @classmethod
    def bootstrap(cls, table: TableInfo) -> DDLEvent:
        return cls(commit_ts=0, ddl_type=DDLType.CREATE, table=table, is_bootstrap=True)

    @property
    def qualified_name(self) -> str:
        """The table the DDL is about (after it, else before it), or "" for e.g. CREATE DATABASE."""
        subject = self.table or self.pre_table
        return subject.qualified_name if subject else ""

    def describe(self) -> str:
        return f"{self.ddl_type.value} {self.qualified_name or '-'} (commitTs={self.commit_ts})"


class ResolvedMode(int, Enum):
    NORMAL = 0
    BATCH = 1


@dataclass(frozen=True, slots=True, order=True)
class ResolvedTs:
    """A promise that no later event has commitTs <= ``ts`` (normal mode).

    Batch mode splits a huge transaction: its events up to ``batch_id`` are complete, and the
    reported progress is ``ts - 1``. Ordering is by ``(ts, batch_id)`` with a normal-mode ts
    carrying ``batch_id = MAX_UINT64``, so a batch resolved ts sorts before the normal one at
    the same ts, as in TiCDC.
    """

    ts: int
    batch_id: int = MAX_UINT64
    mode: ResolvedMode = field(default=ResolvedMode.NORMAL, compare=False)

    @classmethod
    def normal(cls, ts: int) -> ResolvedTs:
        return cls(ts)

    @classmethod
    def batch(cls, ts: int, batch_id: int) -> ResolvedTs:
        return cls(ts, batch_id, ResolvedMode.BATCH)

    @property
    def resolved_mark(self) -> int:
        """The checkpoint this resolved ts allows: ``ts`` in normal mode, ``ts - 1`` in batch."""
        return self.ts if self.mode is ResolvedMode.NORMAL else self.ts - 1


@dataclass(slots=True)
class SingleTableTxn:
    """Consecutive rows of one table sharing (startTs, commitTs), as TiCDC's TxnEventAppender
    groups them."""

    start_ts: int
    commit_ts: int
    table: TableInfo
    rows: list[RowChangedEvent]
    physical_table_id: int = 0
    table_info_version: int = 0

    def __len__(self) -> int:
        return len(self.rows)
