"""The fast yes/no check of a row image, generated once per table version.

``compile_image_check`` writes one straight-line function per schema: for each stored column
it reads the value and tests it with the column's own constants (range, length, the digit
shapes of ``feed.shapes`` or a regex made for that column), no per-value dispatch and no
closure call. It answers only "valid"; the
reader asks the detailed checks of ``feed.values`` (through ``ImageValidator.problem``) for
the reason when it says no. So it may be stricter than they are, never looser: a True here
means ``problem`` finds nothing (``tests/feed/test_image_check.py`` checks that).
"""

from __future__ import annotations

import binascii
import datetime as dt
import re
from collections.abc import Callable
from typing import Any

from tisink.core.codegen import run_generated
from tisink.feed.format import shapes
from tisink.feed.format.values import FLOAT32_MAX
from tisink.model.mysqltypes import DEFAULT_LENGTH, INTEGER_RANGES, TypeFamily
from tisink.model.table import ColumnInfo, TableInfo

ImageCheck = Callable[[Any], bool]

_TIMESTAMP_YEARS = ("1971", "2038")
"""From the first year whose every instant is within TIMESTAMP's range to the first year past
the last one; 1970 and 2038 are left to the detailed check."""
_TIME_HOURS = r"-?(?:[0-7][0-9]{1,2}|8[0-2][0-9]|83[0-7]|[89][0-9])"
"""Hours below 838; the 838th hour's limit (838:59:59) is left to the detailed check."""
_NUMBER_TYPES = frozenset((int, float))


def _fraction(digits: int) -> str:
    """An optional fraction of at most ``digits`` digits (none at all for 0)."""
    return rf"(?:\.[0-9]{{1,{digits}}})?" if digits else ""


def _decimal_pattern(col: ColumnInfo) -> str:
    precision = col.length or DEFAULT_LENGTH[("decimal", False)]
    whole = precision - col.decimal
    if whole < 0:
        return "(?!)"  # the detailed check refuses every value of such a column
    digits = f"0*[0-9]{{1,{whole}}}" if whole else "0+"
    return ("" if col.unsigned else "-?") + digits + _fraction(col.decimal)


class _Writer:
    """Collects the expression of each column and the constants it names."""

    def __init__(self) -> None:
        self.constants: dict[str, Any] = {
            "_type": type,
            "_len": len,
            "_set": set,
            "_all": all,
            "_map": map,
            "_a2b": binascii.a2b_base64,
            "_number": _NUMBER_TYPES.__contains__,
            "_zeros": shapes.ZEROS,
            "_date": dt.date.fromisoformat,
            "_datetime": dt.datetime.fromisoformat,
        }

    def constant(self, name: str, value: Any) -> str:
        self.constants[name] = value
        return name

    def value_test(self, i: int, col: ColumnInfo) -> str:
        """An expression true when the non-NULL value ``v`` fits ``col``."""
        family = col.family
        if family in (TypeFamily.INT, TypeFamily.BIGINT):
            low, high, unsigned_max = INTEGER_RANGES[col.mysql_type]
            low, high = (0, unsigned_max) if col.unsigned else (low, high)
            return f"_type(v) is int and {low} <= v <= {high}"
        if family is TypeFamily.YEAR:
            return "_type(v) is int and (1901 <= v <= 2155 or v == 0)"
        if family is TypeFamily.BIT:
            return f"_type(v) is int and 0 <= v < {1 << (col.length or 1)}"
        if family in (TypeFamily.FLOAT, TypeFamily.DOUBLE):
            limit = self.constant(
                f"limit{i}", FLOAT32_MAX if col.mysql_type == "float" else float("inf")
            )
            floor = "0" if col.unsigned else f"-{limit}"
            return f"(_type(v) is float or _type(v) is int) and {floor} <= v <= {limit}"
        if family is TypeFamily.DECIMAL:
            whole = (col.length or DEFAULT_LENGTH[("decimal", False)]) - col.decimal
            if whole <= 0:  # shapes cannot tell "0" from "1": a regex for these rare columns
                return f"_type(v) is str and {self._regex(i, _decimal_pattern(col))}"
            return self._shaped(i, shapes.decimal_shapes(whole, col.decimal, col.unsigned))
        if family is TypeFamily.STRING:
            return "_type(v) is str" + self._string_limit(col)
        if family is TypeFamily.BINARY:
            size = f"<= {col.length}" if col.length else ">= 0"  # decoding is the test
            return f"_type(v) is str and _len(_a2b(v, strict_mode=True)) {size}"
        if family is TypeFamily.DATE:
            # the shape pins the format; fromisoformat checks month and day (leap years too)
            return f"{self._shaped(i, frozenset((shapes.DATE,)))} and _date(v) is not None"
        if family in (TypeFamily.DATETIME, TypeFamily.TIMESTAMP):
            # hour 24 spelled out: a later Python may read 24:00:00 as the next midnight
            test = self._shaped(i, shapes.datetime_shapes(col.decimal))
            test += ' and v[11:13] < "24" and _datetime(v) is not None'
            if family is TypeFamily.TIMESTAMP:  # whole years within TIMESTAMP's range
                test += f' and "{_TIMESTAMP_YEARS[0]}" <= v < "{_TIMESTAMP_YEARS[1]}"'
            return test
        if family is TypeFamily.TIME:
            pattern = f"{_TIME_HOURS}:[0-5][0-9]:[0-5][0-9]{_fraction(col.decimal)}"
            return f"_type(v) is str and {self._regex(i, pattern)}"
        if family is TypeFamily.ENUM:
            return (
                f"_type(v) is str and v in {self.constant(f'members{i}', frozenset(col.elements))}"
            )
        if family is TypeFamily.SET:
            members = self.constant(f"members{i}", frozenset(col.elements))
            return f"_type(v) is list and _len(s := _set(v)) == _len(v) and s <= {members}"
        if family is TypeFamily.JSON:
            return "True"  # any JSON value
        if family is TypeFamily.VECTOR:
            return "_type(v) is list and _all(_map(_number, _map(_type, v)))"
        raise AssertionError(f"unhandled type family {family}")  # every family is listed above

    def _shaped(self, i: int, allowed: frozenset[bytes]) -> str:
        shape = "v.encode().translate(_zeros)"
        return f"_type(v) is str and {shape} in {self.constant(f'shapes{i}', allowed)}"

    def _regex(self, i: int, pattern: str) -> str:
        return f"{self.constant(f're{i}', re.compile(pattern).fullmatch)}(v) is not None"

    @staticmethod
    def _string_limit(col: ColumnInfo) -> str:
        limit = col.length
        if not limit:
            return ""
        if col.mysql_type in ("char", "varchar"):
            return f" and _len(v) <= {limit}"
        # at most 4 UTF-8 bytes a character: count the bytes only for long values
        return f" and (_len(v) <= {limit // 4} or _len(v.encode()) <= {limit})"


def image_statements(table: TableInfo, fail: str) -> tuple[list[str], dict[str, Any]]:
    """The statements (unindented) that run ``fail`` (a ``return``) unless ``image`` is a dict
    holding exactly ``table``'s stored columns, each value fitting its column (NULL only where
    nullable), and the constants they name. An odd value may make them raise instead: callers
    run them inside ``try``. The row builders inline them, for an image each."""
    writer = _Writer()
    columns = table.stored_columns
    body = [f"if _type(image) is not dict or _len(image) != {len(columns)}:", f"    {fail}"]
    for i, col in enumerate(columns):
        test = writer.value_test(i, col)
        read = f"image[{writer.constant(f'name{i}', col.name)}]"
        if test == "True":  # any value: only its presence counts, and NULL's
            if col.nullable:
                body.append(read)
            else:
                body += [f"if {read} is None:", f"    {fail}"]
            continue
        if col.nullable:
            test = f"v is None or ({test})"
        body += [f"v = {read}", f"if not ({test}):", f"    {fail}"]
    return body, writer.constants


def compile_image_check(table: TableInfo) -> ImageCheck:
    """A function telling whether an image holds exactly ``table``'s stored columns, each
    value fitting its column (NULL only where nullable)."""
    statements, constants = image_statements(table, "return False")
    body = ["    try:", *(f"        {line}" for line in statements)]
    body += [
        "    except Exception:  # a missing column, a value of an odd type",
        "        return False",
        "    return True",
    ]
    source = "\n".join(["def valid(image):", *body])
    check: ImageCheck = define(source, "valid", constants, f"image check of {table.qualified_name}")
    return check


def define(source: str, name: str, constants: dict[str, Any], what: str) -> Any:
    """The function ``name`` that ``source`` defines, with ``constants`` as its globals.

    Globals, not keyword-only parameters with defaults: Python reads a global through a
    per-instruction cache almost as fast as a local, while every call of a function fills in
    each defaulted keyword-only parameter with a dict lookup (some 10 ns a column)."""
    return run_generated(source, what, dict(constants))[name]
