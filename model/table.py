"""Table schemas: TableInfo / ColumnInfo / IndexInfo, in the shape of Simple's ``tableSchema``.

A feed file's TableSchema object (spec/feed-format.md) is the Simple Protocol ``tableSchema``
plus optional column ``id`` and ``generated``; ``TableInfo.from_dict`` and ``to_dict`` convert
between that object and the model without losing anything a codec needs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from tisink.model.errors import SchemaError
from tisink.model.mysqltypes import TypeFamily, family_of, is_known_type

GENERATED_KINDS = ("virtual", "stored")


@dataclass(frozen=True, slots=True)
class ColumnInfo:
    """One column: its MySQL type and flags as TiDB reports them to TiCDC."""

    name: str
    mysql_type: str
    charset: str = "binary"
    collate: str = "binary"
    length: int = 0
    decimal: int = 0
    elements: tuple[str, ...] = ()
    unsigned: bool = False
    zerofill: bool = False
    nullable: bool = True
    default: Any = None
    id: int = 0
    generated: str | None = None

    @property
    def family(self) -> TypeFamily:
        return family_of(self.mysql_type)

    @property
    def binary(self) -> bool:
        """TiDB's BinaryFlag: the column holds bytes, not text."""
        return self.family is TypeFamily.BINARY

    @property
    def virtual(self) -> bool:
        """Virtual generated columns are in the schema but never in a row image."""
        return self.generated == "virtual"


@dataclass(frozen=True, slots=True)
class IndexInfo:
    """One index; ``nullable`` is derived from its columns by the table."""

    name: str
    columns: tuple[str, ...]
    unique: bool = False
    primary: bool = False


@dataclass(frozen=True)
class TableInfo:
    """A table at one schema version (TiDB's UpdateTS)."""

    schema: str
    table: str
    table_id: int
    version: int
    columns: tuple[ColumnInfo, ...]
    indexes: tuple[IndexInfo, ...] = ()

    def __post_init__(self) -> None:
        names = (("schema", self.schema), ("table", self.table))
        for kind, name in (*names, *(("column", col.name) for col in self.columns)):
            if "\x00" in name:  # MySQL takes no U+0000 in an identifier; file names neither
                raise SchemaError(
                    f"table {self.schema!r}.{self.table!r}: the {kind} name {name!r} holds "
                    "NUL (U+0000), which no MySQL identifier may hold"
                )
        seen: set[str] = set()
        for col in self.columns:
            if not is_known_type(col.mysql_type):
                raise SchemaError(
                    f"table {self.qualified_name}: column {col.name!r} has unknown "
                    f"mysqlType {col.mysql_type!r}"
                )
            if col.name in seen:
                raise SchemaError(f"table {self.qualified_name}: duplicate column {col.name!r}")
            if col.generated not in (None, *GENERATED_KINDS):
                raise SchemaError(
                    f"table {self.qualified_name}: column {col.name!r} has bad "
                    f"generated kind {col.generated!r}"
                )
            seen.add(col.name)
        for index in self.indexes:
            for name in index.columns:
                if name not in seen:
                    raise SchemaError(
                        f"table {self.qualified_name}: index {index.name!r} names "
                        f"missing column {name!r}"
                    )

    @cached_property
    def qualified_name(self) -> str:
        """``schema.table``: cached, since every encoded message is labelled with it."""
        return f"{self.schema}.{self.table}"

    @cached_property
    def column_by_name(self) -> dict[str, ColumnInfo]:
        return {c.name: c for c in self.columns}

    @cached_property
    def stored_columns(self) -> tuple[ColumnInfo, ...]:
        """Columns present in row images: all but virtual generated ones."""
        return tuple(c for c in self.columns if not c.virtual)

    def index_nullable(self, index: IndexInfo) -> bool:
        """True when any column of the index lacks NOT NULL (Simple's ``nullable``)."""
        by_name = self.column_by_name
        return any(by_name[name].nullable for name in index.columns)

    @cached_property
    def handle_key(self) -> tuple[str, ...]:
        """The columns that identify a row: the primary key, else TiCDC's pick of the first
        unique index whose columns are all NOT NULL; empty when the table has neither."""
        for index in self.indexes:
            if index.primary:
                return index.columns
        for index in self.indexes:
            if index.unique and not self.index_nullable(index):
                return index.columns
        return ()

    @cached_property
    def unique_keys(self) -> tuple[tuple[str, ...], ...]:
        """Primary and NOT NULL unique keys: an UPDATE changing one of them is split (spec 1.3)."""
        keys = []
        for index in self.indexes:
            if index.primary or (index.unique and not self.index_nullable(index)):
                keys.append(index.columns)
        return tuple(keys)

    # --- the feed / Simple ``tableSchema`` object -------------------------------------------

    @classmethod
    def from_dict(cls, obj: Mapping[str, Any]) -> TableInfo:
        """Build from a TableSchema object; raises SchemaError naming what is wrong."""
        try:
            schema, table = str(obj["schema"]), str(obj["table"])
            columns = tuple(
                _column_from_dict(c, position) for position, c in enumerate(obj["columns"])
            )
            indexes = tuple(
                IndexInfo(
                    name=str(i["name"]),
                    columns=tuple(str(n) for n in i["columns"]),
                    unique=bool(i.get("unique", False)),
                    primary=bool(i.get("primary", False)),
                )
                for i in obj.get("indexes") or ()
            )
            return cls(
                schema=schema,
                table=table,
                table_id=int(obj["tableID"]),
                version=int(obj.get("version", 0)),
                columns=columns,
                indexes=indexes,
            )
        except SchemaError:
            raise
        except (KeyError, TypeError, ValueError) as err:
            name = f"{obj.get('schema')}.{obj.get('table')}" if isinstance(obj, Mapping) else "?"
            raise SchemaError(f"table {name}: bad table schema: {err!r}") from err

    def to_dict(self) -> dict[str, Any]:
        """The TableSchema object of the feed format (Simple's key order, plus id/generated)."""
        return {
            "schema": self.schema,
            "table": self.table,
            "tableID": self.table_id,
            "version": self.version,
            "columns": [_column_to_dict(c) for c in self.columns],
            "indexes": [
                {
                    "name": i.name,
                    "unique": i.unique,
                    "primary": i.primary,
                    "nullable": self.index_nullable(i),
                    "columns": list(i.columns),
                }
                for i in self.indexes
            ],
        }


def _column_from_dict(obj: Mapping[str, Any], position: int) -> ColumnInfo:
    data_type = obj["dataType"]
    return ColumnInfo(
        name=str(obj["name"]),
        mysql_type=str(data_type["mysqlType"]),
        charset=str(data_type.get("charset", "binary")),
        collate=str(data_type.get("collate", "binary")),
        length=int(data_type.get("length", 0)),
        decimal=int(data_type.get("decimal", 0)),
        elements=tuple(str(e) for e in data_type.get("elements") or ()),
        unsigned=bool(data_type.get("unsigned", False)),
        zerofill=bool(data_type.get("zerofill", False)),
        nullable=bool(obj.get("nullable", True)),
        default=obj.get("default"),
        id=int(obj.get("id", position + 1)),
        generated=obj.get("generated"),
    )


def _column_to_dict(col: ColumnInfo) -> dict[str, Any]:
    data_type: dict[str, Any] = {
        "mysqlType": col.mysql_type,
        "charset": col.charset,
        "collate": col.collate,
    }
    if col.length:
        data_type["length"] = col.length
    if col.decimal:
        data_type["decimal"] = col.decimal
    if col.elements:
        data_type["elements"] = list(col.elements)
    if col.unsigned:
        data_type["unsigned"] = True
    if col.zerofill:
        data_type["zerofill"] = True
    out: dict[str, Any] = {
        "name": col.name,
        "dataType": data_type,
        "nullable": col.nullable,
        "default": col.default,
        "id": col.id,
    }
    if col.generated:
        out["generated"] = col.generated
    return out


def make_table(
    schema: str,
    table: str,
    table_id: int,
    version: int,
    columns: Sequence[ColumnInfo],
    indexes: Sequence[IndexInfo] = (),
) -> TableInfo:
    """Convenience constructor that numbers columns without an id by position."""
    numbered = tuple(
        c if c.id else ColumnInfo(**{**_fields(c), "id": pos + 1}) for pos, c in enumerate(columns)
    )
    return TableInfo(schema, table, table_id, version, numbered, tuple(indexes))


def _fields(col: ColumnInfo) -> dict[str, Any]:
    return {name: getattr(col, name) for name in ColumnInfo.__slots__}
