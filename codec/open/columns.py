"""What an Open Protocol column carries besides its value: type code ``t``, flag bits ``f``,
handle ``h`` (ticdc ``open/message.go`` ``initColumnFlags``, ``codec.go``).

Flags are computed once per table version from the schema as ticdc does from TiDB's column
flags: binary charset, generated, nullable, unsigned; then every index marks each of its
(non-generated) columns primary or unique, multiple-key when it has several columns, and
handle-key when the column belongs to the table's handle key. TiDB's own column flags come
first (``_origin``): they reach generated columns too, and mark the first column of a one-column
non-unique index multiple-key, which the index walk does not.
"""

from __future__ import annotations

from dataclasses import dataclass

from tisink.codec.dts.mysql_codes import TYPE_CODES
from tisink.model.table import ColumnInfo, TableInfo

BINARY = 1 << 0
HANDLE_KEY = 1 << 1
GENERATED = 1 << 2
PRIMARY_KEY = 1 << 3
UNIQUE_KEY = 1 << 4
MULTIPLE_KEY = 1 << 5
NULLABLE = 1 << 6
UNSIGNED = 1 << 7


@dataclass(frozen=True, slots=True)
class ColumnSpec:
    """One stored column as the Open Protocol describes it."""

    column: ColumnInfo
    type_code: int
    flag: int
    handle: bool

    @property
    def name(self) -> str:
        return self.column.name


def _own_flags(column: ColumnInfo) -> int:
    flag = 0
    if column.charset == "binary":
        flag |= BINARY
    if column.generated is not None:
        flag |= GENERATED
    if column.nullable:
        flag |= NULLABLE
    if column.unsigned:
        flag |= UNSIGNED
    return flag


def _origin(flags: dict[str, int], columns: tuple[str, ...], primary: bool, unique: bool) -> None:
    """TiDB's PriKeyFlag on every primary key column; UniqueKeyFlag on the column of a
    one-column unique index; MultipleKeyFlag on the first column of any other index."""
    if primary:
        for name in columns:
            flags[name] |= PRIMARY_KEY
    elif unique and len(columns) == 1:
        flags[columns[0]] |= UNIQUE_KEY
    else:
        flags[columns[0]] |= MULTIPLE_KEY


def column_flags(table: TableInfo, newarch: bool = True) -> dict[str, int]:
    """Column name -> ``f`` bits for every column of ``table``. ticdc's index walk skips
    generated columns; tiflow's (``initColumnsFlag``, newarch false) marks them too."""
    flags = {c.name: _own_flags(c) for c in table.columns}
    by_name = table.column_by_name
    handle = set(table.handle_key)
    for index in table.indexes:
        _origin(flags, index.columns, index.primary, index.unique)
    for index in table.indexes:
        for name in index.columns:
            if newarch and by_name[name].generated is not None:
                continue
            flag = flags[name]
            if index.primary:
                flag |= PRIMARY_KEY
            elif index.unique:
                flag |= UNIQUE_KEY
            if len(index.columns) > 1:
                flag |= MULTIPLE_KEY
            if name in handle:
                flag |= HANDLE_KEY
            flags[name] = flag
    return flags


def column_specs(table: TableInfo, newarch: bool = True) -> tuple[ColumnSpec, ...]:
    """The stored columns in table order (virtual generated ones are never written)."""
    flags = column_flags(table, newarch)
    handle = set(table.handle_key)
    return tuple(
        ColumnSpec(c, TYPE_CODES[c.mysql_type], flags[c.name], c.name in handle)
        for c in table.stored_columns
    )
