"""The generator draws no value a later MODIFY COLUMN of its scenario cannot hold: TiDB (in
strict mode) refuses such a change, so a feed that carries one cannot come from TiDB, and the
SQL sinks refuse it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tisink.eventsink.sql.narrowing import unfit_reason
from tisink.feed.format.records import FeedDDL, FeedRow
from tisink.feed.workload import generate_records
from tisink.feed.workload.draws import row_seed
from tisink.feed.workload.values import SHARED, column_code
from tisink.model.events import DDLType
from tisink.model.table import ColumnInfo


def unfit_at_modifies(workload: str, seed: int, rows: int) -> tuple[int, list[str]]:
    """(MODIFY COLUMNs met, the live values each could not hold)."""
    live: dict[int, dict[Any, dict[str, Any]]] = {}
    modifies, unfit = 0, []
    for record in generate_records(workload, seed, rows):
        if type(record) is FeedRow:
            row = record.row
            table = live.setdefault(row.table.table_id, {})
            key = row.table.handle_key
            if row.before is not None:
                table.pop(tuple(row.before[k] for k in key), None)
            if row.after is not None:
                table[tuple(row.after[k] for k in key)] = row.after
        elif type(record) is FeedDDL and record.ddl.ddl_type is DDLType.ALTER:
            pre, new = record.ddl.pre_table, record.ddl.table
            assert pre is not None and new is not None
            old = pre.column_by_name
            for col in new.stored_columns:
                if col.name in old and old[col.name].mysql_type != col.mysql_type:
                    modifies += 1
                    for image in live.get(new.table_id, {}).values():
                        value = image.get(col.name)
                        if value is not None and unfit_reason(col, value) is not None:
                            unfit.append(f"{new.qualified_name}.{col.name} = {value!r}")
    return modifies, unfit


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 2**32))
def test_the_demo_modify_finds_every_kept_value_fits(seed: int) -> None:
    modifies, unfit = unfit_at_modifies("demo", seed, 2500)
    assert modifies == 1
    assert unfit == []


def draws(col: ColumnInfo, later: list[ColumnInfo], count: int = 300) -> list[Any]:
    """``count`` values of ``col``'s draw, run as the generator runs its statements."""
    code = column_code(col, (0, 40), "v", later)
    source = "def draw_one(s):\n"
    source += "".join(f"    {line}\n" for line in code.lines) + "    return v\n"
    scope: dict[str, Any] = {**SHARED, **code.tables}
    exec(source, scope)
    return [scope["draw_one"](row_seed(7, number)) for number in range(count)]


@given(
    st.sampled_from(["double", "float", "int", "bigint", "decimal"]),
    st.integers(1, 9),
    st.integers(0, 4),
    st.booleans(),
)
def test_numbers_drawn_fit_a_later_decimal(kind: str, whole: int, scale: int, unsigned: bool):
    is_decimal = kind == "decimal"
    col = ColumnInfo("c", kind, length=18 if is_decimal else 0, decimal=6 if is_decimal else 0)
    later = ColumnInfo("c", "decimal", length=whole + scale, decimal=scale, unsigned=unsigned)
    values = draws(col, [later])
    assert all(unfit_reason(later, value) is None for value in values)
    assert len(set(values)) > 1


def test_texts_drawn_fit_a_later_shorter_varchar() -> None:
    later = ColumnInfo("c", "varchar", length=5)
    values = draws(ColumnInfo("c", "varchar", length=64), [later])
    assert all(len(value) <= 5 for value in values) and max(map(len, values)) == 5


def exact(value: float | str) -> Decimal:
    return Decimal(repr(value) if isinstance(value, float) else value)


def test_the_before_images_after_a_modify_are_what_the_database_holds() -> None:
    """A value kept through the demo's MODIFY COLUMN score DECIMAL(8,2) comes back in a later
    UPDATE's or DELETE's before image as the database converted it, not as a new draw."""
    held: dict[Any, Any] = {}
    compared = 0
    for record in generate_records("demo", 3, 6000):
        if type(record) is not FeedRow or record.row.table.table != "customers":
            continue
        row = record.row
        if row.before is not None and row.before["id"] in held:
            was = held[row.before["id"]]
            now = row.before["score"]
            assert (was is None) == (now is None)
            if was is not None:
                assert exact(was) == exact(now)
                compared += isinstance(was, float) and isinstance(now, str)
        if row.before is not None:
            held.pop(row.before["id"], None)
        if row.after is not None:
            held[row.after["id"]] = row.after["score"]
    assert compared > 10  # doubles written before the MODIFY, read back as DECIMAL text
