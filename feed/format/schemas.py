"""The feed's schema state: the live schema (and its validator) of every tableID.

Rules from spec/feed-format.md: a row uses the latest schema of its tableID seen earlier in the
feed; CREATE registers a table, ALTER-like DDLs replace its schema (RENAME keeps the version, as
TiDB does), TRUNCATE moves the table to a new tableID and retires the old one, ERASE removes it.
A retired or erased tableID takes rows again only after a new CREATE (or a QUERY that brings a
table back, such as RECOVER TABLE).
"""

from __future__ import annotations

from tisink.feed.errors import FeedError
from tisink.feed.format.row_builder import (
    LightRowBuilder,
    RowBuilder,
    compile_light_row_builder,
    compile_row_builder,
)
from tisink.feed.format.validator import ImageValidator
from tisink.model.events import DDLEvent, DDLType
from tisink.model.table import TableInfo


class SchemaTracker:
    """Applies DDL records in feed order and answers "which schema does this row use"."""

    def __init__(self) -> None:
        self.live: dict[int, ImageValidator] = {}
        """The validator of each live tableID (read it; DDLs change it through ``apply``)."""
        self.builders: dict[int, RowBuilder] = {}
        """The row builder of each live tableID (the reader's fast path), kept with ``live``."""
        self.light_builders: dict[int, LightRowBuilder] = {}
        """The light row builders made so far (``light_builder``) of live tableIDs."""
        self._gone: dict[int, tuple[str, str]] = {}  # tableID -> (table name, what happened)

    def validator(self, table_id: int) -> ImageValidator:
        """The compiled validator of the live table ``table_id``; FeedError if there is none."""
        try:
            return self.live[table_id]
        except KeyError:
            gone = self._gone.get(table_id)
            if gone is None:
                raise FeedError(f"unknown tableID {table_id} (no DDL created it)") from None
            name, why = gone
            raise FeedError(f"tableID {table_id} was {why}", table=name) from None

    def light_builder(self, table_id: int) -> LightRowBuilder | None:
        """The light row builder of the live table ``table_id`` (None: not live), made on
        first use: only a reader that routes rows without their events asks for one."""
        validator = self.live.get(table_id)
        if validator is None:
            return None
        build = self.light_builders[table_id] = compile_light_row_builder(validator.table)
        return build

    def apply(self, ddl: DDLEvent) -> None:
        """Check ``ddl`` against the current state and apply it; FeedError names the table."""
        kind, table, pre = ddl.ddl_type, ddl.table, ddl.pre_table
        if kind is DDLType.QUERY:
            if table is not None:
                self._register(table)
            return
        if kind is DDLType.ERASE:
            subject = pre or table
            if subject is None:
                raise FeedError("ERASE needs table or preTable")
            self._retire(subject, f"erased at commitTs {ddl.commit_ts}")
            return
        if table is None:
            raise FeedError(f"{kind.value} needs a table")
        name = table.qualified_name
        if kind is DDLType.CREATE:
            if pre is not None:
                raise FeedError("CREATE carries no preTable", table=name)
            if table.table_id in self.live:
                raise FeedError(f"CREATE of tableID {table.table_id}, which exists", table=name)
            self._register(table)
        elif kind is DDLType.TRUNCATE:
            if pre is None:
                raise FeedError("TRUNCATE needs preTable (the old tableID)", table=name)
            if pre.table_id == table.table_id or table.table_id in self.live:
                raise FeedError(
                    f"TRUNCATE must move tableID {pre.table_id} to a new tableID, "
                    f"got {table.table_id}",
                    table=name,
                )
            why = f"truncated into tableID {table.table_id} at commitTs {ddl.commit_ts}"
            self._retire(pre, why)
            self._register(table)
        else:  # ALTER, RENAME, CINDEX, DINDEX: the same tableID, a new schema
            if pre is not None and pre.table_id != table.table_id:
                raise FeedError(
                    f"{kind.value} changes tableID {pre.table_id} to {table.table_id}", table=name
                )
            self._refuse_gone(table)
            self._register(table)

    def _register(self, table: TableInfo) -> None:
        self.live[table.table_id] = ImageValidator(table)
        self.builders[table.table_id] = compile_row_builder(table)
        self.light_builders.pop(table.table_id, None)
        self._gone.pop(table.table_id, None)

    def _refuse_gone(self, table: TableInfo) -> None:
        gone = self._gone.get(table.table_id)
        if gone is not None:
            raise FeedError(f"tableID {table.table_id} was {gone[1]}", table=gone[0])

    def _retire(self, table: TableInfo, why: str) -> None:
        """Mark ``table``'s id gone. A tableID never seen before is accepted: the feed may
        start after the table's CREATE, and the DDL itself carries the whole schema."""
        self._refuse_gone(table)
        self.live.pop(table.table_id, None)
        self.builders.pop(table.table_id, None)
        self.light_builders.pop(table.table_id, None)
        self._gone[table.table_id] = (table.qualified_name, why)
