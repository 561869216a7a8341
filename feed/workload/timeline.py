"""Schema evolution of a scenario: the DDLEvent (schema after, schema before) of each DDL.

Versions follow TiDB: a DDL sets the table's version to its commit ts, except RENAME, which
keeps it. TRUNCATE moves the table to a new tableID; tableIDs and column IDs come from
counters that advance in schedule order, so every partition of a parallel generation computes
the same IDs.
"""

from __future__ import annotations

from dataclasses import replace

from tisink.feed.workload.errors import ScenarioError
from tisink.feed.workload.scenario import DDLSpec, Scenario
from tisink.feed.workload.types import column_sql
from tisink.model.events import DDLEvent, DDLType
from tisink.model.table import IndexInfo, PartitionInfo, TableInfo

TABLE_ID_BASE = 100
"""The first table's ID; TiDB's user tables also start a little above 100."""

_KINDS = {
    "add_column": DDLType.ALTER,
    "drop_column": DDLType.ALTER,
    "modify_column": DDLType.ALTER,
    "add_index": DDLType.CINDEX,
    "drop_index": DDLType.DINDEX,
    "rename": DDLType.RENAME,
    "truncate": DDLType.TRUNCATE,
    "create_table": DDLType.CREATE,
    "drop_table": DDLType.ERASE,
}


def _partitions(partition: PartitionInfo | None) -> int:
    """How many ids a table's partitions take besides the table's own."""
    return 0 if partition is None else len(partition.definitions)


def _partition_sql(partition: PartitionInfo) -> str:
    """The PARTITION BY clause as TiDB's SHOW CREATE TABLE writes it."""
    columns = ", ".join(f"`{c}`" for c in partition.columns)
    count = len(partition.definitions)
    names = [d.name for d in partition.definitions]
    if partition.kind in ("HASH", "KEY") and names == [f"p{i}" for i in range(count)]:
        return f"PARTITION BY {partition.kind} ({columns}) PARTITIONS {count}"
    defs = []
    for d in partition.definitions:
        if partition.kind.startswith("RANGE"):
            bound = ", ".join("MAXVALUE" if b is None else _literal(b) for b in d.less_than)
            defs.append(f"PARTITION `{d.name}` VALUES LESS THAN ({bound})")
        elif d.default:
            defs.append(f"PARTITION `{d.name}` DEFAULT")
        elif partition.kind.startswith("LIST"):
            listed = ", ".join(
                _literal(values[0])
                if len(values) == 1
                else "(" + ", ".join(_literal(v) for v in values) + ")"
                for values in d.values
            )
            defs.append(f"PARTITION `{d.name}` VALUES IN ({listed})")
        else:
            defs.append(f"PARTITION `{d.name}`")
    return f"PARTITION BY {partition.kind} ({columns}) ({', '.join(defs)})"


def _literal(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("\\", "\\\\").replace("'", "''") + "'"


def _quoted(table: TableInfo) -> str:
    return f"`{table.schema}`.`{table.table}`"


class SchemaTimeline:
    """The live schema of every scenario table while the schedule advances."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.current: list[TableInfo | None] = [None] * len(scenario.tables)
        self._max_column_id = [len(t.columns) for t in scenario.tables]
        self._table_ids = []
        next_id = TABLE_ID_BASE
        for spec in scenario.tables:  # a partitioned table's partitions take the ids after
            self._table_ids.append(next_id)  # its own, as TiDB allocates them
            next_id += 1 + _partitions(spec.partition)
        self._next_table_id = next_id

    def live(self, table: int) -> bool:
        return self.current[table] is not None

    def create(self, table: int, commit_ts: int, start_ts: int) -> DDLEvent:
        spec = self.scenario.tables[table]
        if self.current[table] is not None:
            self._fail(table, "create_table of a table that exists")
        columns = tuple(replace(c.column, id=i + 1) for i, c in enumerate(spec.columns))
        table_id = self._table_ids[table]
        partition = None if spec.partition is None else spec.partition.numbered(table_id)
        info = TableInfo(
            spec.schema, spec.name, table_id, commit_ts, columns, spec.indexes, partition
        )
        self.current[table] = info
        parts = [column_sql(c) for c in columns]
        parts += [_index_sql(i) for i in spec.indexes]
        query = f"CREATE TABLE {_quoted(info)} ({', '.join(parts)})"
        if partition is not None:
            query += " " + _partition_sql(partition)
        return DDLEvent(commit_ts, DDLType.CREATE, query, info, None, start_ts)

    def apply(self, ddl: DDLSpec, commit_ts: int, start_ts: int) -> DDLEvent:
        """The event of ``ddl`` at ``commit_ts``; ScenarioError if it does not fit the schema
        it meets (a missing column, a table already dropped...)."""
        if ddl.action == "create_table":
            return self.create(ddl.table, commit_ts, start_ts)
        pre = self.current[ddl.table]
        if pre is None:
            self._fail(ddl.table, f"{ddl.action} of a table that does not exist at that point")
        kind = _KINDS[ddl.action]
        after, query = getattr(self, "_" + ddl.action)(ddl, pre)
        if kind is DDLType.TRUNCATE:
            after = after.renumbered(self._next_table_id)
            self._next_table_id += 1 + _partitions(after.partition)
        if kind is not DDLType.RENAME:
            after = replace(after, version=commit_ts)
        self.current[ddl.table] = None if kind is DDLType.ERASE else after
        return DDLEvent(commit_ts, kind, query, after, pre, start_ts)

    def _fail(self, table: int, reason: str, column: str | None = None) -> None:
        name = self.scenario.tables[table].qualified_name
        raise ScenarioError(reason, file=self.scenario.source, table=name, column=column)

    def _refuse_partitioning_column(self, ddl: DDLSpec, pre: TableInfo, name: str) -> None:
        """TiDB refuses to drop or retype a column its partitioning reads."""
        if pre.partition is not None and name in pre.partition.columns:
            self._fail(ddl.table, f"{ddl.action} of a partitioning column", name)

    def _column_position(self, ddl: DDLSpec, pre: TableInfo, name: str) -> int:
        for position, col in enumerate(pre.columns):
            if col.name == name:
                return position
        self._fail(ddl.table, "no such column at that point", name)
        raise AssertionError  # _fail raised

    def _add_column(self, ddl: DDLSpec, pre: TableInfo) -> tuple[TableInfo, str]:
        assert ddl.column is not None
        col = ddl.column.column
        if col.name in pre.column_by_name:
            self._fail(ddl.table, "add_column of an existing column", col.name)
        self._max_column_id[ddl.table] += 1
        col = replace(col, id=self._max_column_id[ddl.table])
        after = replace(pre, columns=(*pre.columns, col))
        return after, f"ALTER TABLE {_quoted(pre)} ADD COLUMN {column_sql(col)}"

    def _drop_column(self, ddl: DDLSpec, pre: TableInfo) -> tuple[TableInfo, str]:
        position = self._column_position(ddl, pre, ddl.name)
        self._refuse_partitioning_column(ddl, pre, ddl.name)
        if any(ddl.name in index.columns for index in pre.indexes):
            self._fail(ddl.table, "drop_column of an indexed column", ddl.name)
        columns = pre.columns[:position] + pre.columns[position + 1 :]
        return replace(pre, columns=columns), f"ALTER TABLE {_quoted(pre)} DROP COLUMN `{ddl.name}`"

    def _modify_column(self, ddl: DDLSpec, pre: TableInfo) -> tuple[TableInfo, str]:
        assert ddl.column is not None
        position = self._column_position(ddl, pre, ddl.column.column.name)
        self._refuse_partitioning_column(ddl, pre, ddl.column.column.name)
        if any(ddl.column.column.name in index.columns for index in pre.indexes if index.unique):
            self._fail(ddl.table, "modify_column of a key column", ddl.column.column.name)
        col = replace(ddl.column.column, id=pre.columns[position].id)
        columns = (*pre.columns[:position], col, *pre.columns[position + 1 :])
        return (
            replace(pre, columns=columns),
            f"ALTER TABLE {_quoted(pre)} MODIFY COLUMN {column_sql(col)}",
        )

    def _add_index(self, ddl: DDLSpec, pre: TableInfo) -> tuple[TableInfo, str]:
        assert ddl.index is not None
        index = ddl.index
        if any(i.name == index.name for i in pre.indexes):
            self._fail(ddl.table, f"add_index of an existing index {index.name!r}")
        for name in index.columns:
            self._column_position(ddl, pre, name)
        after = replace(pre, indexes=(*pre.indexes, index))
        columns = ", ".join(f"`{c}`" for c in index.columns)
        return after, f"CREATE INDEX `{index.name}` ON {_quoted(pre)} ({columns})"

    def _drop_index(self, ddl: DDLSpec, pre: TableInfo) -> tuple[TableInfo, str]:
        kept = tuple(i for i in pre.indexes if i.name != ddl.name)
        if len(kept) == len(pre.indexes) or any(
            i.unique for i in pre.indexes if i.name == ddl.name
        ):
            self._fail(
                ddl.table, f"drop_index needs an existing non-unique index, got {ddl.name!r}"
            )
        return replace(pre, indexes=kept), f"DROP INDEX `{ddl.name}` ON {_quoted(pre)}"

    def _rename(self, ddl: DDLSpec, pre: TableInfo) -> tuple[TableInfo, str]:
        schema, _, table = ddl.to.rpartition(".")
        after = replace(pre, schema=schema or pre.schema, table=table)
        return after, f"RENAME TABLE {_quoted(pre)} TO {_quoted(after)}"

    def _truncate(self, ddl: DDLSpec, pre: TableInfo) -> tuple[TableInfo, str]:
        return pre, f"TRUNCATE TABLE {_quoted(pre)}"

    def _drop_table(self, ddl: DDLSpec, pre: TableInfo) -> tuple[TableInfo, str]:
        return pre, f"DROP TABLE {_quoted(pre)}"


def _index_sql(index: IndexInfo) -> str:
    columns = ", ".join(f"`{c}`" for c in index.columns)
    if index.primary:
        return f"PRIMARY KEY ({columns})"
    return f"{'UNIQUE ' if index.unique else ''}KEY `{index.name}` ({columns})"
