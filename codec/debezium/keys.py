"""The Kafka key's columns: TiCDC's handle key (``columnSchema.initIndexColumns``).

Not the model's ``TableInfo.handle_key`` (the first eligible unique index): TiCDC picks, among
the NOT NULL unique indexes of a table without a primary key, the one with the fewest columns,
the lower index id on a tie (spec/debezium.md 1.4). An index over a virtual generated column
is not eligible here, as in tiflow: ticdc accepts it, but no row image holds such a value.
"""

from __future__ import annotations

from tisink.model.table import ColumnInfo, TableInfo


def handle_key_columns(table: TableInfo) -> tuple[ColumnInfo, ...]:
    """TiCDC's handle key in table column order: the primary key; else, among unique indexes
    whose columns are all NOT NULL and stored, the one with the fewest columns (the earlier on
    a tie); none when there is neither."""
    chosen: tuple[str, ...] = ()
    for index in table.indexes:
        if index.primary:
            chosen = index.columns
            break
    else:
        by_name = table.column_by_name
        eligible = [
            index
            for index in table.indexes
            if index.unique
            and all(not by_name[c].nullable and not by_name[c].virtual for c in index.columns)
        ]
        if eligible:
            chosen = min(eligible, key=lambda index: len(index.columns)).columns
    names = set(chosen)
    return tuple(column for column in table.columns if column.name in names)
