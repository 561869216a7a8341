"""Column type strings of scenario files (``"decimal(12,2) unsigned"``) to ColumnInfo.

The dataType fields follow what TiDB reports to TiCDC (the goldens in formats/ticdc-simple):
text types carry utf8mb4/utf8mb4_bin, everything else binary/binary, ``length`` is TiDB's
default Flen when the type string gives none, YEAR is unsigned zerofill, BIT is unsigned.
"""

from __future__ import annotations

import re

from tisink.feed.workload.errors import ScenarioError
from tisink.model.mysqltypes import DEFAULT_LENGTH, TypeFamily, family_of, is_known_type
from tisink.model.table import ColumnInfo

_TYPE = re.compile(r"^\s*([a-z]+)\s*(?:\((.*)\))?\s*((?:\s*(?:unsigned|zerofill))*)\s*$", re.I)
_ELEMENT = re.compile(r"'((?:[^'\\]|\\.|'')*)'")
TEXT_CHARSET = ("utf8mb4", "utf8mb4_bin")
BINARY_CHARSET = ("binary", "binary")
_TEXT_FAMILIES = (TypeFamily.STRING, TypeFamily.ENUM, TypeFamily.SET)
_FSP_FAMILIES = (TypeFamily.DATETIME, TypeFamily.TIMESTAMP, TypeFamily.TIME)
_BASE_FLEN = {"datetime": 19, "timestamp": 19, "time": 10}


def parse_column_type(text: str, name: str) -> ColumnInfo:
    """A ColumnInfo named ``name`` for the type string ``text`` (nullable, no default)."""
    match = _TYPE.match(text)
    if match is None:
        raise ScenarioError(f"cannot parse type {text!r}", column=name)
    mysql_type = match.group(1).lower()
    if not is_known_type(mysql_type):
        raise ScenarioError(f"unknown mysqlType {mysql_type!r}", column=name)
    args_text = match.group(2)
    flags = match.group(3).lower().split()
    unsigned, zerofill = "unsigned" in flags, "zerofill" in flags
    family = family_of(mysql_type)
    charset, collate = TEXT_CHARSET if family in _TEXT_FAMILIES else BINARY_CHARSET
    elements: tuple[str, ...] = ()
    length = decimal = 0
    if family in (TypeFamily.ENUM, TypeFamily.SET):
        elements = tuple(e.replace("''", "'") for e in _ELEMENT.findall(args_text or ""))
        if not elements:
            raise ScenarioError(
                f"{mysql_type} needs members, e.g. {mysql_type}('a','b')", column=name
            )
        widths = [len(e) for e in elements]
        length = max(widths) if family is TypeFamily.ENUM else sum(widths) + len(widths) - 1
    else:
        args = _int_args(args_text, name)
        if family in _FSP_FAMILIES:
            decimal = args[0] if args else 0
            if not 0 <= decimal <= 6:
                raise ScenarioError(f"fractional seconds {decimal} not in 0..6", column=name)
            length = _BASE_FLEN[mysql_type] + (decimal + 1 if decimal else 0)
        elif family is TypeFamily.YEAR:
            length, unsigned, zerofill = 4, True, True
        elif family is TypeFamily.BIT:
            length, unsigned = (args[0] if args else 1), True
            if not 1 <= length <= 64:
                raise ScenarioError(f"bit({length}) not in 1..64", column=name)
        elif family is TypeFamily.VECTOR:
            length = args[0] if args else 0
        else:
            length = args[0] if args else DEFAULT_LENGTH.get((mysql_type, unsigned), 0)
            decimal = args[1] if len(args) > 1 else 0
            if mysql_type in ("varchar", "varbinary") and not args:
                raise ScenarioError(f"{mysql_type} needs a length", column=name)
            if mysql_type in ("char", "binary") and not args:
                length = 1
    return ColumnInfo(
        name=name,
        mysql_type=mysql_type,
        charset=charset,
        collate=collate,
        length=length,
        decimal=decimal,
        elements=elements,
        unsigned=unsigned,
        zerofill=zerofill,
    )


def _int_args(text: str | None, name: str) -> list[int]:
    if not text:
        return []
    try:
        return [int(part) for part in text.split(",")]
    except ValueError:
        raise ScenarioError(f"type arguments {text!r} are not integers", column=name) from None


def column_sql(col: ColumnInfo) -> str:
    """The column's definition as it would appear in CREATE / ALTER TABLE."""
    kind = col.mysql_type.upper()
    family = col.family
    if family in (TypeFamily.ENUM, TypeFamily.SET):
        members = ",".join("'" + e.replace("'", "''") + "'" for e in col.elements)
        kind += f"({members})"
    elif family in _FSP_FAMILIES:
        kind += f"({col.decimal})" if col.decimal else ""
    elif family is TypeFamily.DECIMAL:
        kind += f"({col.length},{col.decimal})"
    elif col.mysql_type in ("char", "varchar", "binary", "varbinary", "bit", "vector"):
        kind += f"({col.length})" if col.length else ""
    if col.unsigned and family not in (TypeFamily.YEAR, TypeFamily.BIT):
        kind += " UNSIGNED"
    sql = f"`{col.name}` {kind}" + ("" if col.nullable else " NOT NULL")
    if col.default is not None:
        sql += f" DEFAULT '{col.default}'"
    return sql
