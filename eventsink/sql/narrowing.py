"""A MODIFY COLUMN whose new type cannot hold a kept value is refused, in every dialect.

TiDB runs in strict SQL mode by default, and there a column type change that would cut or
clamp an existing value fails ("Data Too Long", "Out of range value"): the DDL never commits,
so no TiDB change feed carries it. A feed that does is inconsistent, and applying it anyway
would leave each database its own guess (MySQL outside strict mode clamps, PostgreSQL errors,
SQLite keeps the value whole). So before a table is rebuilt, the kept values of each column
whose type changes are read and checked against the new type: a number out of the DECIMAL or
integer range, a text longer than CHAR/VARCHAR(n), bytes longer than (VAR)BINARY(n) stop the
sink with one line naming the table, the column and the value. Values that fit are converted
as MySQL does: fractions rounded half away from zero to the new scale.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation
from typing import Any

from tisink.codec.dts.mysql_codes import original_type
from tisink.eventsink.sql.dialect import Cursor, Dialect
from tisink.eventsink.sql.errors import SQLSinkError
from tisink.model.mysqltypes import INTEGER_RANGES, TypeFamily
from tisink.model.table import ColumnInfo, TableInfo

FETCH_ROWS = 10_000
HUGE_DIGITS = 100
_WIDE = Context(prec=2 * HUGE_DIGITS, Emax=999_999, Emin=-999_999)


def _shape(col: ColumnInfo) -> tuple[object, ...]:
    return (col.mysql_type, col.length, col.decimal, col.unsigned, col.elements)


def number_of(value: Any) -> Decimal | None:
    """A stored value as an exact number; None for what is no number."""
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal | str):
        return None
    try:
        number = Decimal(repr(value)) if isinstance(value, float) else Decimal(str(value).strip())
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def rounded_decimal(value: Decimal, scale: int) -> Decimal:
    """``value`` at ``scale`` digits after the point, rounded as MySQL rounds DECIMAL (with
    room for DECIMAL(65,30): the default context keeps 28 digits)."""
    return value.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP, context=_WIDE)


def unfit_reason(col: ColumnInfo, value: Any) -> str | None:
    """Why ``col`` (the new type) cannot hold the kept ``value``; None when it can (or when
    the change is not one this check knows to narrow)."""
    family = col.family
    if family is TypeFamily.DECIMAL or col.mysql_type in INTEGER_RANGES:
        number = number_of(value)
        if number is None:  # a text that is no number; other kinds are the database's
            return "not a number" if isinstance(value, str) else None
        if number.adjusted() >= HUGE_DIGITS:  # past any DECIMAL(65,30), too long to round
            return "out of range"
        if family is TypeFamily.DECIMAL:
            precision, scale = col.length or 10, col.decimal
            number = rounded_decimal(number, scale)
            out = number.copy_abs() >= Decimal(1).scaleb(precision - scale)
        else:
            number = rounded_decimal(number, 0)
            low, signed_high, unsigned_high = INTEGER_RANGES[col.mysql_type]
            out = (
                not (0 if col.unsigned else low)
                <= number
                <= (unsigned_high if col.unsigned else signed_high)
            )
        if out or (col.unsigned and number < 0):
            return "out of range"
        return None
    if col.mysql_type in ("char", "varchar") and isinstance(value, str):
        return f"longer than {col.length} characters" if len(value) > col.length else None
    if col.mysql_type in ("binary", "varbinary") and isinstance(value, bytes | memoryview):
        return f"longer than {col.length} bytes" if len(value) > col.length else None
    return None


def check_kept_values(
    d: Dialect, cur: Cursor, pre: TableInfo, table: TableInfo, sources: dict[str, str]
) -> None:
    """SQLSinkError naming the first kept value of ``pre`` (the table as it is) that its
    column of ``table`` (the new shape; ``sources``: new column -> old one) cannot hold."""
    old = pre.column_by_name
    new = table.column_by_name
    for name, source in sources.items():
        col, was = new[name], old.get(source)
        if was is None or _shape(was) == _shape(col):
            continue
        column = d.quote(source)
        cur.execute(f"SELECT {column} FROM {d.ref(pre)} WHERE {column} IS NOT NULL")
        while chunk := cur.fetchmany(FETCH_ROWS):
            for (value,) in chunk:
                reason = unfit_reason(col, value)
                if reason is not None:
                    cur.fetchall()  # no statement left open on the connection
                    raise SQLSinkError(
                        f"table {table.qualified_name} column {name}: MODIFY COLUMN to "
                        f"{original_type(col)} cannot hold the kept value {value!s} "
                        f"({reason}); TiDB refuses such a change in strict mode, so no TiDB "
                        "feed carries it"
                    )
