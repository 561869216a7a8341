"""What differs between the databases the applier writes: one ``Dialect`` per database.

The applier (``sink``, ``rows``, ``schema``, ``meta``) speaks DB-API 2 through a dialect: how to
connect and open a transaction, how a TiDB table and a MySQL column type are named there, the
idempotent row statements (upsert and delete by the handle key), the catalogue look-ups DDL
needs, and which errors are transient. Statements are built once per table version.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from typing import Any, ClassVar

from tisink.eventsink.sql.values import Convert, common_converter, text_literal
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo

DELETE_CHUNK = 1000
"""Keys per ``DELETE ... IN`` statement."""
Cursor = Any
"""A DB-API 2 cursor of the dialect's driver."""
Params = Sequence[Any]
Writer = Callable[[Cursor, list[Params]], None]


class Dialect(ABC):
    """One database's SQL and driver; subclasses are ``sqlite``, ``mysql``, ``postgresql``."""

    name: ClassVar[str]
    mark: ClassVar[str] = "%s"
    """The driver's parameter placeholder."""

    def __init__(self) -> None:
        self.conn: Any = None

    # --- connection and transactions ------------------------------------------------------

    @abstractmethod
    def connect(self) -> None:
        """Open ``self.conn`` (not in autocommit: the applier makes the transactions)."""

    @abstractmethod
    def describe(self) -> str:
        """The database for logs, without secrets."""

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def begin(self, cur: Cursor) -> None:
        """Start a transaction (drivers that start one implicitly need nothing)."""
        return None

    def commit(self, cur: Cursor) -> None:
        self.conn.commit()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Cursor]:
        """One database transaction: committed when the block ends, rolled back on error."""
        assert self.conn is not None, f"{self.name} dialect used before connect()"
        cur = self.conn.cursor()
        try:
            self.begin(cur)
            yield cur
            self.commit(cur)
        except BaseException:
            self.conn.rollback()
            raise
        finally:
            cur.close()

    @abstractmethod
    def is_retriable(self, err: Exception) -> bool:
        """Deadlocks, lock wait timeouts, serialization failures, a busy database."""

    # --- names and types ------------------------------------------------------------------

    def quote(self, identifier: str) -> str:
        return '"' + identifier.replace('"', '""') + '"'

    @abstractmethod
    def table_ref(self, schema: str, table: str) -> str:
        """The quoted name of TiDB's ``schema.table`` in this database."""

    def ref(self, table: TableInfo) -> str:
        return self.table_ref(table.schema, table.table)

    @abstractmethod
    def column_type(self, col: ColumnInfo) -> str:
        """The declared type that holds every value of the MySQL column ``col``."""

    def converter(self, col: ColumnInfo) -> Convert | None:
        """Feed value -> value handed to the driver (None: as it comes)."""
        return common_converter(col)

    def literal(self, col: ColumnInfo, value: Any) -> str:
        """A feed value as an SQL literal of ``col``, for DEFAULT clauses."""
        convert = self.converter(col)
        stored = convert(value) if convert is not None and value is not None else value
        if stored is None:
            return "NULL"
        if isinstance(stored, bool):
            return str(int(stored))
        if isinstance(stored, int | float):
            return repr(stored)
        if isinstance(stored, bytes):
            return self.bytes_literal(stored)
        return text_literal(str(stored))

    def bytes_literal(self, value: bytes) -> str:
        return f"X'{value.hex()}'"

    def column_check(self, col: ColumnInfo) -> str | None:
        """A CHECK that keeps ``col`` to the MySQL type's values where its type is wider."""
        return None

    def table_options(self) -> str:
        return ""

    # --- row statements -------------------------------------------------------------------

    def marks(self, count: int) -> str:
        return ", ".join([self.mark] * count)

    def insert_sql(self, ref: str, names: Sequence[str]) -> str:
        columns = ", ".join(map(self.quote, names))
        return f"INSERT INTO {ref} ({columns}) VALUES ({self.marks(len(names))})"

    @abstractmethod
    def upsert_sql(self, ref: str, names: Sequence[str], key: Sequence[str]) -> str:
        """Writes a whole row image, replacing the row with the same key."""

    def delete_sql(self, ref: str, key: Sequence[str]) -> str:
        match = " AND ".join(f"{self.quote(k)} = {self.mark}" for k in key)
        return f"DELETE FROM {ref} WHERE {match}"

    @abstractmethod
    def delete_one_sql(self, ref: str, names: Sequence[str]) -> str:
        """Deletes one row equal to the image in every column (tables without a key)."""

    def row_writer(self, ref: str, names: Sequence[str], key: Sequence[str]) -> Writer:
        """What writes whole row images of one table version (upserts by ``key``, plain
        inserts without one), built once; the rows of one call have distinct keys. By default
        the driver's ``executemany``."""
        sql = self.upsert_sql(ref, names, key) if key else self.insert_sql(ref, names)

        def write(cur: Cursor, params: list[Params]) -> None:
            cur.executemany(sql, params)

        return write

    def delete_rows(self, cur: Cursor, ref: str, key: Sequence[str], params: list[Params]) -> None:
        """Delete the rows with the keys in ``params``: ``DELETE ... WHERE key IN (...)``, one
        statement per ``DELETE_CHUNK`` keys."""
        columns = ", ".join(map(self.quote, key))
        one = f"({self.marks(len(key))})" if len(key) > 1 else self.mark
        target = f"({columns})" if len(key) > 1 else columns
        for start in range(0, len(params), DELETE_CHUNK):
            chunk = params[start : start + DELETE_CHUNK]
            flat: list[Any] = [value for row in chunk for value in row]
            marks = ", ".join([one] * len(chunk))
            cur.execute(f"DELETE FROM {ref} WHERE {target} IN ({marks})", flat)

    def bad_column(
        self, columns: Sequence[ColumnInfo], rows: Sequence[Params]
    ) -> tuple[str, str] | None:
        """After a data error the database did not pin on a column (and a rollback): the
        column (and why) that cannot hold one of ``rows``' values, when it can be found."""
        return None

    # --- catalogue and DDL ----------------------------------------------------------------

    def ensure_schema(self, cur: Cursor, schema: str) -> None:
        """Create the database / schema that holds TiDB schema ``schema``'s tables."""
        return None

    def check_names(self, table: TableInfo) -> None:
        """Refuse (SQLSinkError naming them) the names of ``table`` this database would not
        keep whole, before anything of it is made."""
        return None

    @abstractmethod
    def table_exists(self, cur: Cursor, schema: str, table: str) -> bool: ...

    @abstractmethod
    def column_names(self, cur: Cursor, schema: str, table: str) -> list[str]: ...

    @abstractmethod
    def managed_indexes(self, cur: Cursor, schema: str, table: str) -> list[str]:
        """The names of the table's secondary indexes this applier may drop."""

    def index_name(self, table: TableInfo, index: IndexInfo) -> str:
        return index.name

    def index_column(self, col: ColumnInfo) -> str | None:
        """How ``col`` appears in an index (None: it cannot be indexed here)."""
        return self.quote(col.name)

    @abstractmethod
    def drop_index_sql(self, schema: str, table: str, index_name: str) -> str: ...

    @abstractmethod
    def rename_sqls(self, old: tuple[str, str], new: tuple[str, str]) -> list[str]:
        """Move table ``old`` (schema, table) to ``new``."""

    def copy_expr(self, source: str, col: ColumnInfo) -> str:
        """The value of column ``source`` of an old table, as ``col`` of the rebuilt one."""
        return self.quote(source)

    def copy_rows(self, cur: Cursor, sql: str) -> None:
        """Run the ``INSERT ... SELECT`` that fills a rebuilt table. Every kept value fits
        its new type (``narrowing`` checked it); fractions are rounded to a new scale."""
        cur.execute(sql)
