"""A correct consumer of TiCDC's Simple Protocol (JSON) into SQLite, for at-least-once delivery.

    python examples/consumers/simple_consumer.py file:///tmp/cdc/tidb-cdc consumer.db
    python examples/consumers/simple_consumer.py kafka://127.0.0.1:9092/tidb-cdc consumer.db

What makes it correct under replays, retries and partitions read at different speeds:

* rows and DDLs are buffered and applied only once every partition's WATERMARK has passed
  them (the *resolved ts*: the smallest of the partitions' newest WATERMARKs), in commit order;
* a WATERMARK lower than one already seen on its partition is ignored;
* a message equal to one already buffered or applied is dropped (replays, retries, BAB), and
  so is any row at or below the resolved ts already applied;
* rows are applied by key: an INSERT or UPDATE writes the whole new image (upsert), a DELETE
  removes the key; DDLs reconcile the table with the schema the message carries.

Tables are created as ``"schema.table"`` with the primary key of their schema, so ``tisink check
--actual sqlite:///consumer.db`` finds them.
"""

from __future__ import annotations

import base64
import json
import sqlite3
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sources import SourceError, partition_count, read

BINARY = {"binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob"}
TEXTUAL = {"char", "varchar", "tinytext", "text", "mediumtext", "longtext"}
INTEGER = {"tinyint", "smallint", "mediumint", "int", "bigint", "year"}
FLOATING = {"float", "double"}
DML = {"INSERT", "UPDATE", "DELETE"}


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class Table:
    """A table's columns as the last schema announced them."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.name = f"{schema['schema']}.{schema['table']}"
        self.table_id = schema["tableID"]
        self.columns = [c["name"] for c in schema["columns"]]
        self.types = {c["name"]: c["dataType"] for c in schema["columns"]}
        primary = [i for i in schema.get("indexes") or [] if i.get("primary")]
        unique = [
            i for i in schema.get("indexes") or [] if i.get("unique") and not i.get("nullable")
        ]
        chosen = (primary or unique or [{"columns": self.columns}])[0]
        self.key = list(chosen["columns"])

    def affinity(self, column: str) -> str:
        data_type = self.types[column]
        kind = data_type["mysqlType"]
        if (kind == "bigint" and data_type.get("unsigned")) or (
            kind == "bit" and data_type.get("length", 64) > 63
        ):
            return "TEXT"  # above 2**63 - 1 SQLite's INTEGER would turn it into a float
        if kind in INTEGER or kind in ("bit", "enum", "set"):  # ENUM index, SET bits
            return "INTEGER"
        if kind in FLOATING:
            return "REAL"
        return "BLOB" if self.is_binary(column) else "TEXT"

    def is_binary(self, column: str) -> bool:
        data_type = self.types[column]
        kind = data_type["mysqlType"]
        return kind in BINARY or (kind in TEXTUAL and data_type.get("charset") == "binary")

    def value(self, column: str, value: Any) -> Any:
        """A Simple JSON value as the column stores it."""
        if value is None:
            return None
        if isinstance(value, dict):  # a TIMESTAMP: {"location": ..., "value": ...}
            return value["value"]
        if self.is_binary(column):
            return base64.b64decode(value)
        return value


class SQLiteTarget:
    """The consumer's database: one SQLite file."""

    def __init__(self, path: str) -> None:
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("BEGIN")

    def commit(self) -> None:
        self.conn.execute("COMMIT")
        self.conn.execute("BEGIN")

    def reconcile(self, table: Table) -> None:
        """Create the table, or add and drop columns to match its schema."""
        have = [r[1] for r in self.conn.execute(f"PRAGMA table_info({quote(table.name)})")]
        if not have:
            columns = [f"{quote(c)} {table.affinity(c)}" for c in table.columns]
            key = ", ".join(map(quote, table.key))
            self.conn.execute(
                f"CREATE TABLE {quote(table.name)} ({', '.join(columns)}, PRIMARY KEY ({key}))"
            )
            return
        for column in table.columns:
            if column not in have:
                added = f"{quote(column)} {table.affinity(column)}"
                self.conn.execute(f"ALTER TABLE {quote(table.name)} ADD COLUMN {added}")
        for column in have:
            if column not in table.columns:
                self.conn.execute(f"ALTER TABLE {quote(table.name)} DROP COLUMN {quote(column)}")

    def upsert(self, table: Table, image: dict[str, Any]) -> None:
        columns = [c for c in table.columns if c in image]
        values = [table.value(c, image[c]) for c in columns]
        marks = ", ".join("?" for _ in columns)
        names = ", ".join(map(quote, columns))
        self.conn.execute(
            f"INSERT OR REPLACE INTO {quote(table.name)} ({names}) VALUES ({marks})", values
        )

    def delete(self, table: Table, image: dict[str, Any]) -> None:
        where = " AND ".join(f"{quote(c)} = ?" for c in table.key)
        self.conn.execute(
            f"DELETE FROM {quote(table.name)} WHERE {where}",
            [table.value(c, image[c]) for c in table.key],
        )

    def ddl(self, message: dict[str, Any], tables: dict[str, Table]) -> None:
        kind = message["type"]
        schema = message.get("tableSchema")
        table = Table(schema) if schema else None
        if kind == "RENAME" and table:
            # the old name is the one the table's id had (TiCDC's new architecture sends no
            # preTableSchema for a RENAME; the classic one does, with the same id)
            old = next((t for t in tables.values() if t.table_id == table.table_id), None)
            if old is not None and old.name != table.name and self._exists(old.name):
                self.conn.execute(f"ALTER TABLE {quote(old.name)} RENAME TO {quote(table.name)}")
                tables.pop(old.name, None)
        if table is None:
            return
        if kind == "ERASE":
            self.conn.execute(f"DROP TABLE IF EXISTS {quote(table.name)}")
            tables.pop(table.name, None)
            return
        tables[table.name] = table
        self.reconcile(table)
        if kind == "TRUNCATE":
            self.conn.execute(f"DELETE FROM {quote(table.name)}")

    def _exists(self, name: str) -> bool:
        return bool(
            self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchall()
        )


class Consumer:
    """Buffers a stream's changes and applies them once every partition resolved them."""

    def __init__(self, target: SQLiteTarget, partitions: int) -> None:
        self.target = target
        self.watermarks = dict.fromkeys(range(partitions), 0)
        self.tables: dict[str, Table] = {}
        self.buffer: dict[bytes, tuple[int, int, dict[str, Any]]] = {}
        self.applied_ts = 0
        self.arrivals = 0

    def on_message(self, partition: int, value: bytes) -> None:
        message = json.loads(value)
        kind = message["type"]
        if kind == "WATERMARK":
            if message["commitTs"] > self.watermarks[partition]:
                self.watermarks[partition] = message["commitTs"]
                self.flush(min(self.watermarks.values()))
        elif kind == "BOOTSTRAP":
            table = Table(message["tableSchema"])
            self.tables.setdefault(table.name, table)
            self.target.reconcile(self.tables[table.name])
        else:
            self.buffer_change(message, value)

    def buffer_change(self, message: dict[str, Any], value: bytes) -> None:
        if message["commitTs"] <= self.applied_ts:
            return  # already applied: a replay from before a restart
        identity = value if message["type"] not in DML else _without_build_ts(message)
        if identity not in self.buffer:
            self.arrivals += 1
            self.buffer[identity] = (message["commitTs"], self.arrivals, message)

    def flush(self, resolved: int) -> None:
        ready = sorted((ts, n, key) for key, (ts, n, _) in self.buffer.items() if ts <= resolved)
        for _, _, key in ready:
            self.apply(self.buffer.pop(key)[2])
        self.applied_ts = max(self.applied_ts, resolved)
        self.target.commit()

    def apply(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind not in DML:
            self.target.ddl(message, self.tables)
            return
        table = self.tables[f"{message['database']}.{message['table']}"]
        if kind == "DELETE":
            self.target.delete(table, message["old"])
        elif kind == "UPDATE":
            self.update(table, message["data"], message["old"])
        else:
            self.target.upsert(table, message["data"])

    def update(self, table: Table, new: dict[str, Any], old: dict[str, Any]) -> None:
        if any(new.get(c) != old.get(c) for c in table.key):
            self.target.delete(table, old)
        self.target.upsert(table, new)

    def run(self, records: Iterable[tuple[int, bytes]]) -> None:
        for partition, value in records:
            self.on_message(partition, value)
        self.flush(min(self.watermarks.values()))


def _without_build_ts(message: dict[str, Any]) -> bytes:
    """A row's identity: the message without ``buildTs`` (a re-encoded copy may differ there)."""
    return json.dumps({k: v for k, v in message.items() if k != "buildTs"}, sort_keys=True).encode()


def main(argv: list[str], consumer_type: type[Consumer] = Consumer) -> None:
    if len(argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} file:///dir/topic|kafka://host:port/topic DATABASE.db")
    source, database = argv
    try:
        partitions = partition_count(source)
    except SourceError as err:
        sys.exit(f"{Path(sys.argv[0]).name}: {err}")
    consumer = consumer_type(SQLiteTarget(database), partitions)
    consumer.run(read(source))


if __name__ == "__main__":
    main(sys.argv[1:])
