"""What both DTS Avro formats derive from one table version: columns, mappings, keys.

Built once per table version: the writers keep it in a ``codec.renderer_cache.RendererCache``.
"""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from tisink.codec.dts.avro.mapping import ValueMapping, value_mapping
from tisink.model.table import TableInfo

PRIMARY = "PRIMARY"
"""The key ``pk_uk_info`` gives the primary key, whatever TiDB calls the index."""


@dataclass(frozen=True, slots=True)
class TableLayout:
    """One table version as DTS describes it. Virtual generated columns are left out of
    ``names``, as they are of TiCDC's row images."""

    table: TableInfo
    names: tuple[str, ...]
    mappings: tuple[ValueMapping, ...]
    primary_key: tuple[str, ...]
    pk_uk_info: str
    """``{"PRIMARY":[...],"<unique index>":[...]}`` in index order (Alibaba's ``tags``)."""


def table_layout(table: TableInfo) -> TableLayout:
    columns = table.stored_columns
    keys: dict[str, list[str]] = {}
    primary: tuple[str, ...] = ()
    for index in table.indexes:
        if index.primary:
            primary = index.columns
            keys[PRIMARY] = list(index.columns)
        elif index.unique:
            keys.setdefault(index.name, list(index.columns))
    return TableLayout(
        table=table,
        names=tuple(c.name for c in columns),
        mappings=tuple(value_mapping(c) for c in columns),
        primary_key=primary,
        pk_uk_info=orjson.dumps(keys).decode(),
    )
