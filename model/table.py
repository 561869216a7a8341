"""Table schemas: TableInfo / ColumnInfo / IndexInfo, in the shape of Simple's ``tableSchema``.

A feed file's TableSchema object (spec/feed-format.md) is the Simple Protocol ``tableSchema``
plus optional column ``id`` and ``generated``; ``TableInfo.from_dict`` and ``to_dict`` convert
between that object and the model without losing anything a codec needs.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
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
    partition: PartitionInfo | None = None
    """How TiDB splits the table into physical tables; None for a table of one."""

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
        if self.partition is not None:
            _check_partition(self, self.partition)

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
                partition=partition_from_dict(obj["partition"]) if "partition" in obj else None,
            )
        except SchemaError:
            raise
        except (KeyError, TypeError, ValueError) as err:
            name = f"{obj.get('schema')}.{obj.get('table')}" if isinstance(obj, Mapping) else "?"
            raise SchemaError(f"table {name}: bad table schema: {err!r}") from err

    def to_dict(self) -> dict[str, Any]:
        """The TableSchema object of the feed format (Simple's key order, plus id/generated,
        and ``partition`` for a partitioned table only, so other tables keep their bytes)."""
        out = {
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
        if self.partition is not None:
            out["partition"] = partition_to_dict(self.partition)
        return out

    # --- partitions -------------------------------------------------------------------------

    def renumbered(self, table_id: int) -> TableInfo:
        """This table under a new id (CREATE, TRUNCATE), its partitions renumbered after it."""
        partition = None if self.partition is None else self.partition.numbered(table_id)
        return replace(self, table_id=table_id, partition=partition)

    @cached_property
    def locate(self) -> Callable[[Mapping[str, Any]], int]:
        """The position of the partition an image's values route to, as TiDB routes it
        (SchemaError when no partition holds them); always 0 for a table of one."""
        if self.partition is None:
            return _first
        return _router(self, self.partition)

    def __getstate__(self) -> dict[str, Any]:
        """Pickle without the compiled router (a closure; rebuilt on first use), so a table
        still crosses process boundaries (Spark tasks) after it routed rows."""
        state = dict(self.__dict__)
        state.pop("locate", None)
        return state

    def physical_id(self, image: Mapping[str, Any]) -> int:
        """The physical table id of a row image: its partition's id, else the table's."""
        if self.partition is None:
            return self.table_id
        return self.partition.definitions[self.locate(image)].id


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


# --- partitioned tables ---------------------------------------------------------------------
#
# TiDB keeps a partitioned table's rows in one physical table per partition, each with an id
# of its own, and TiCDC sends each DML row with the id of the physical table it was written
# to (RowChangedEvent.physical_table_id); DDLs carry the logical table id. The rules below
# follow pingcap/tidb pkg/table/tables/partition.go (commit 009ff9ec, locateHashPartition,
# locateRangePartition, locateRangeColumnPartition, locateListPartition, LocateKeyPartition).

PARTITION_KINDS = ("HASH", "KEY", "RANGE", "RANGE COLUMNS", "LIST", "LIST COLUMNS")
_INTEGER_FAMILIES = (TypeFamily.INT, TypeFamily.BIGINT)
_COLUMN_FAMILIES = (*_INTEGER_FAMILIES, TypeFamily.STRING, TypeFamily.DATE, TypeFamily.DATETIME)
_KEY_FAMILIES = (*_INTEGER_FAMILIES, TypeFamily.STRING)
_PAD_SPACE_BIN = ("utf8mb4_bin", "utf8_bin", "ascii_bin", "latin1_bin", "gbk_bin", "gb18030_bin")
"""Binary collations that ignore trailing spaces (PAD SPACE): compared as the trimmed text."""
_NO_PAD_BIN = ("binary", "utf8mb4_0900_bin")
ROUTED_COLLATIONS = (*_PAD_SPACE_BIN, *_NO_PAD_BIN)
"""The collations whose text the router compares and hashes as TiDB does."""


@dataclass(frozen=True, slots=True)
class PartitionDef:
    """One partition: its name, its physical table id and the values it holds."""

    name: str
    id: int = 0
    less_than: tuple[Any, ...] = ()
    """RANGE: the bound of each partitioning column; None stands for MAXVALUE."""
    values: tuple[tuple[Any, ...], ...] = ()
    """LIST: the value tuples listed (one value per partitioning column; None is NULL)."""
    default: bool = False
    """LIST: the DEFAULT partition, which holds what no other lists."""


@dataclass(frozen=True, slots=True)
class PartitionInfo:
    """A table's partitioning, in the terms of TiDB's model.PartitionInfo.

    ``kind`` is HASH, KEY, RANGE, RANGE COLUMNS, LIST or LIST COLUMNS (TiDB takes LINEAR
    HASH and LINEAR KEY as plain HASH and KEY: pingcap/tidb#38450). HASH, RANGE and LIST
    partition by one integer column (an expression is not modelled); the COLUMNS kinds and
    KEY by their columns."""

    kind: str
    columns: tuple[str, ...]
    definitions: tuple[PartitionDef, ...]

    def numbered(self, table_id: int) -> PartitionInfo:
        """The partitions with the ids TiDB gives them: CREATE TABLE and TRUNCATE TABLE take
        one block of global ids, the table's first and then one per partition in order
        (pingcap/tiflow#11874: table 110, partitions 111 and 112)."""
        defs = tuple(replace(d, id=table_id + 1 + i) for i, d in enumerate(self.definitions))
        return replace(self, definitions=defs)


def _first(image: Mapping[str, Any]) -> int:
    return 0


def _check_partition(table: TableInfo, part: PartitionInfo) -> None:
    """Refuse a partitioning the router cannot follow, naming the table and column."""
    name = table.qualified_name
    if part.kind not in PARTITION_KINDS:
        raise SchemaError(f"table {name}: unknown partition type {part.kind!r}")
    if not part.definitions:
        raise SchemaError(f"table {name}: a partitioned table needs partitions")
    if not part.columns or (len(part.columns) > 1 and part.kind in ("HASH", "RANGE", "LIST")):
        raise SchemaError(f"table {name}: PARTITION BY {part.kind} takes one column here")
    families: tuple[TypeFamily, ...] = _KEY_FAMILIES if part.kind == "KEY" else _COLUMN_FAMILIES
    if part.kind in ("HASH", "RANGE", "LIST"):
        families = _INTEGER_FAMILIES
    for column in part.columns:
        col = table.column_by_name.get(column)
        if col is None:
            raise SchemaError(f"table {name}: partitioning column {column!r} is missing")
        if col.family not in families or (
            col.family is TypeFamily.STRING and col.collate not in ROUTED_COLLATIONS
        ):
            raise SchemaError(
                f"table {name}: column {column!r} ({col.mysql_type}, {col.collate}) cannot "
                f"route PARTITION BY {part.kind}"
            )
    width = len(part.columns)
    for definition in part.definitions:
        if part.kind.startswith("RANGE") and len(definition.less_than) != width:
            raise SchemaError(
                f"table {name}: partition {definition.name!r} needs {width} LESS THAN bounds"
            )
        if part.kind.startswith("LIST") and any(len(v) != width for v in definition.values):
            raise SchemaError(
                f"table {name}: partition {definition.name!r} lists values of {width} columns"
            )


def _sort_key(col: ColumnInfo) -> Callable[[Any], Any]:
    """How TiDB compares the column's values: integers as numbers, text under a binary
    collation by code point (PAD SPACE ones without trailing spaces), DATE and DATETIME as
    their fixed-width text (a date-only bound of a DATETIME column is its midnight)."""
    if col.family in _INTEGER_FAMILIES:
        return int
    if col.family is TypeFamily.STRING:
        if col.collate in _PAD_SPACE_BIN:
            return lambda value: str(value).rstrip(" ")
        return str
    if col.family is TypeFamily.DATETIME:
        return lambda value: value if len(str(value)) > 10 else f"{value} 00:00:00"
    return str


def _hash_key(col: ColumnInfo) -> Callable[[Any], bytes]:
    """The bytes KEY partitioning hashes (TiDB's Datum.ToHashKey: the value's text, then the
    collation's sort key: an integer's decimal digits, text as is, PAD SPACE trimmed)."""
    if col.family is TypeFamily.STRING and col.collate in _PAD_SPACE_BIN:
        return lambda value: str(value).rstrip(" ").encode()
    return lambda value: str(value).encode()


def _router(table: TableInfo, part: PartitionInfo) -> Callable[[Mapping[str, Any]], int]:
    """The partition position of an image under ``part`` (see ``TableInfo.locate``)."""
    cols = [table.column_by_name[name] for name in part.columns]
    count = len(part.definitions)
    name = table.qualified_name

    def none_fits(image: Mapping[str, Any]) -> SchemaError:
        shown = ", ".join(f"{c}={image.get(c)!r}" for c in part.columns)
        return SchemaError(f"table {name}: no partition holds the row ({shown})")

    if part.kind == "HASH":
        column = part.columns[0]

        def locate_hash(image: Mapping[str, Any]) -> int:
            # MOD(value, n) of the value as a signed 64-bit integer (an unsigned one past
            # 2^63 wraps, as Datum.GetInt64 reads it), then its absolute value; NULL: 0.
            value = image.get(column)
            if value is None:
                return 0
            value = int(value)
            if value >= 1 << 63:
                value -= 1 << 64
            return abs(value) % count

        return locate_hash
    if part.kind == "KEY":
        keys = [(c.name, _hash_key(c)) for c in cols]

        def locate_key(image: Mapping[str, Any]) -> int:
            # CRC-32 (IEEE) over each column's hash key, NULL as one zero byte, modulo n.
            crc = 0
            for column, key in keys:
                value = image.get(column)
                crc = zlib.crc32(b"\x00" if value is None else key(value), crc)
            return crc % count

        return locate_key
    sort_keys = [(c.name, _sort_key(c)) for c in cols]
    if part.kind.startswith("RANGE"):
        bounds = [
            tuple(
                None if b is None else key(b)
                for b, (_, key) in zip(d.less_than, sort_keys, strict=True)
            )
            for d in part.definitions
        ]

        def below(row: tuple[Any, ...], bound: tuple[Any, ...]) -> bool:
            """Whether ``row`` < ``bound`` as MySQL compares a row with VALUES LESS THAN:
            column by column, NULL below every value, MAXVALUE (None) above every one."""
            for value, limit in zip(row, bound, strict=True):
                if limit is None:
                    return True
                if value is None:
                    return True
                if value != limit:
                    return bool(value < limit)
            return False

        def locate_range(image: Mapping[str, Any]) -> int:
            row = tuple(None if (v := image.get(c)) is None else key(v) for c, key in sort_keys)
            for position, bound in enumerate(bounds):
                if below(row, bound):
                    return position
            raise none_fits(image)

        return locate_range
    listed: dict[tuple[Any, ...], int] = {}
    default = None
    for position, definition in enumerate(part.definitions):
        if definition.default:
            default = position
        for values in definition.values:
            key = tuple(
                None if v is None else k(v) for v, (_, k) in zip(values, sort_keys, strict=True)
            )
            listed.setdefault(key, position)

    def locate_list(image: Mapping[str, Any]) -> int:
        row = tuple(None if (v := image.get(c)) is None else key(v) for c, key in sort_keys)
        found = listed.get(row, default)
        if found is None:
            raise none_fits(image)
        return found

    return locate_list


def partition_from_dict(obj: Mapping[str, Any]) -> PartitionInfo:
    """The ``partition`` object of a TableSchema (see ``partition_to_dict``); a scenario's
    may leave out the ids, which the table's id gives (``PartitionInfo.numbered``)."""
    return PartitionInfo(
        kind=str(obj["type"]),
        columns=tuple(str(c) for c in obj["columns"]),
        definitions=tuple(
            PartitionDef(
                name=str(d["name"]),
                id=int(d.get("id", 0)),
                less_than=tuple(d.get("lessThan") or ()),
                values=tuple(tuple(v) for v in d.get("in") or ()),
                default=bool(d.get("default", False)),
            )
            for d in obj["definitions"]
        ),
    )


def partition_to_dict(part: PartitionInfo) -> dict[str, Any]:
    """``{"type", "columns", "definitions": [{"name", "id", "lessThan" | "in", "default"}]}``:
    a RANGE bound of null is MAXVALUE, a LIST value of null is NULL."""
    definitions = []
    for d in part.definitions:
        entry: dict[str, Any] = {"name": d.name, "id": d.id}
        if part.kind.startswith("RANGE"):
            entry["lessThan"] = list(d.less_than)
        elif part.kind.startswith("LIST"):
            entry["in"] = [list(v) for v in d.values]
            if d.default:
                entry["default"] = True
        definitions.append(entry)
    return {"type": part.kind, "columns": list(part.columns), "definitions": definitions}
