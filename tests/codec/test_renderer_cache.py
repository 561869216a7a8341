"""One build per table version, found by identity first; equal tables share it, renames and
changed tables do not."""

from __future__ import annotations

import dataclasses

from tisink.codec.renderer_cache import RendererCache
from tisink.model import ColumnInfo
from tisink.model.table import TableInfo, make_table

TABLE = make_table("shop", "items", 7, 3, [ColumnInfo("id", "int")])


def _counting() -> tuple[RendererCache[tuple[str, int]], list[TableInfo]]:
    built: list[TableInfo] = []

    def build(table: TableInfo) -> tuple[str, int]:
        built.append(table)
        return (table.qualified_name, len(built))

    return RendererCache(build, "test"), built


def test_a_version_is_built_once_and_equal_tables_of_another_origin_share_it() -> None:
    cache, built = _counting()
    first = cache.get(TABLE)
    assert cache.get(TABLE) is first
    twin = TableInfo.from_dict(TABLE.to_dict())
    assert twin is not TABLE and twin == TABLE
    assert cache.get(twin) is first
    assert cache.get(TABLE) is first
    assert built == [TABLE]


def test_a_rename_and_a_new_version_get_their_own_and_the_old_names_keep_theirs() -> None:
    cache, built = _counting()
    old = cache.get(TABLE)
    renamed = dataclasses.replace(TABLE, table="goods")
    assert cache.get(renamed) == ("shop.goods", 2)
    assert cache.get(TABLE) is old
    assert cache.get(dataclasses.replace(TABLE, version=4))[1] == 3
    assert len(built) == 3


def test_a_different_table_under_the_same_key_is_built_anew() -> None:
    cache, built = _counting()
    cache.get(TABLE)
    wider = dataclasses.replace(TABLE, columns=(*TABLE.columns, ColumnInfo("n", "int", id=2)))
    assert cache.get(wider)[1] == 2
    assert built == [TABLE, wider]
