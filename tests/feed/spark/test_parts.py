"""Pure parts of the Spark engine: epochs, routing, lineage groups, packing, windows."""

from __future__ import annotations

import orjson

from tisink.feed.spark import plan_epochs
from tisink.feed.spark.source import (
    TABLELESS,
    UNROUTABLE,
    lineage_groups,
    pack_groups,
    route_line,
)
from tisink.model.tso import compose_ts


def test_one_epoch_without_cadence_or_barriers() -> None:
    assert plan_epochs(10, 500, [], None) == [(0, 500)]


def test_barriers_end_an_epoch_just_before_them() -> None:
    assert plan_epochs(10, 500, [100, 300], None) == [(0, 99), (99, 299), (299, 500)]


def test_cadence_cuts_every_epoch_ms_of_commit_time() -> None:
    first, last = compose_ts(1000), compose_ts(3500, 7)
    windows = plan_epochs(first, last, [], 1000)
    assert windows == [
        (0, compose_ts(2000) - 1),
        (compose_ts(2000) - 1, compose_ts(3000) - 1),
        (compose_ts(3000) - 1, last),
    ]


def test_route_line_keys_rows_ddls_and_bad_lines() -> None:
    row = orjson.dumps({"type": "row", "commitTs": 5, "tableID": 7, "op": "INSERT"}).decode()
    query = orjson.dumps({"type": "ddl", "commitTs": 6, "ddlType": "QUERY"}).decode()
    assert route_line(("f", 3, row)) == [(7, (5, "f", 3, "r", row))]
    assert route_line(("f", 4, query))[0][0] == TABLELESS
    assert route_line(("f", 5, "   ")) == []
    key, (_, file, line, kind, reason) = route_line(("f", 6, '{"type": "row"'))[0]
    assert (key, file, line, kind) == (UNROUTABLE, "f", 6, "e")
    assert "JSONDecodeError" in reason


def test_truncate_links_old_and_new_table_ids() -> None:
    def ddl(table_id: int, pre: int | None = None) -> str:
        obj = {"type": "ddl", "table": {"tableID": table_id}}
        if pre is not None:
            obj["preTable"] = {"tableID": pre}
        return orjson.dumps(obj).decode()

    groups = lineage_groups([ddl(5), ddl(9), ddl(12, 5), ddl(20, 12)])
    assert groups == {5: 5, 9: 9, 12: 5, 20: 5}


def test_pack_groups_balances_by_weight() -> None:
    assign = pack_groups({1: 100, 2: 60, 3: 50, 4: 10}, 2)
    loads = [0, 0]
    for group, task in assign.items():
        loads[task] += {1: 100, 2: 60, 3: 50, 4: 10}[group]
    assert loads == [110, 110]  # 100+10 and 60+50: greedy, heaviest first
