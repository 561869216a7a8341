"""Feed folders on Spark: lines with their file and line number, routed to table groups.

Every line is keyed by the table it belongs to (a row's tableID, a DDL's table); DDLs linked by
a TRUNCATE (old tableID -> new tableID) put both IDs in one *group*, so a table's whole
history, across tableIDs, is played by one task in commit order. DDLs without a table (QUERY,
e.g. CREATE DATABASE) are barriers the driver writes itself between epochs. A line that is
not a JSON record with the routing fields cannot be routed: the driver reports it with its
file and line before anything is played.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from tisink.feed.errors import FeedError
from tisink.feed.reader import FeedParser
from tisink.feed.records import FeedRecord, Source

UNROUTABLE = -1
"""Key of a line that cannot be routed (bad JSON, missing fields)."""
TABLELESS = -2
"""Key of a DDL without a table: the driver writes it."""
RESOLVED = -3
"""Key of a ``resolved`` record: the driver's epochs take its place."""

LineKey = tuple[int, str, int]
"""(commitTs, file name, line number): the feed order of a line."""


def number_lines(rows: Iterable[Any]) -> Iterator[tuple[str, int, str]]:
    """(file, line number, text) from Spark text rows ``(file_name, value)`` of one partition;
    files are not split across partitions (maxPartitionBytes is huge), so counting works."""
    counters: dict[str, int] = {}
    for file, value in rows:
        number = counters.get(file, 0) + 1
        counters[file] = number
        yield file, number, value


def route_line(item: tuple[str, int, str]) -> list[tuple[int, tuple[int, str, int, str, str]]]:
    """``[(table key, (commitTs, file, line, kind, text))]``; blank lines give ``[]``."""
    file, number, text = item
    if not text.strip():
        return []
    try:
        obj = orjson.loads(text)
        kind = obj["type"]
        if kind == "resolved":
            return [(RESOLVED, (int(obj["ts"]), file, number, "s", text))]
        ts = obj["commitTs"]
        if type(ts) is not int:
            raise TypeError(f"commitTs must be an integer, got {ts!r}")
        if kind == "row":
            table_id = obj["tableID"]
            if type(table_id) is not int:
                raise TypeError(f"tableID must be an integer, got {table_id!r}")
            return [(table_id, (ts, file, number, "r", text))]
        if kind == "ddl":
            subject = obj.get("table") or obj.get("preTable")
            if subject is None:
                return [(TABLELESS, (ts, file, number, "d", text))]
            return [(int(subject["tableID"]), (ts, file, number, "d", text))]
        raise ValueError(f"unknown record type {kind!r} (expected row, ddl or resolved)")
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        return [(UNROUTABLE, (0, file, number, "e", f"{type(err).__name__}: {err}"))]


def ddl_table_ids(text: str) -> set[int]:
    obj = orjson.loads(text)
    return {int(obj[k]["tableID"]) for k in ("table", "preTable") if obj.get(k)}


def lineage_groups(ddl_texts: Iterable[str]) -> dict[int, int]:
    """tableID -> group (the smallest tableID of its TRUNCATE lineage)."""
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for text in ddl_texts:
        ids = sorted(ddl_table_ids(text))
        if ids:
            find(ids[0])
        for other in ids[1:]:
            a, b = find(ids[0]), find(other)
            parent[max(a, b)] = min(a, b)
    return {table_id: find(table_id) for table_id in list(parent)}


def pack_groups(weights: dict[int, int], slots: int) -> dict[int, int]:
    """Group -> task, heaviest group first onto the lightest task (stable for equal weights)."""
    loads = [0] * max(1, slots)
    out: dict[int, int] = {}
    for group, weight in sorted(weights.items(), key=lambda kv: (-kv[1], kv[0])):
        task = min(range(len(loads)), key=lambda i: (loads[i], i))
        out[group] = task
        loads[task] += max(1, weight)
    return out


def window_records(
    items: Iterable[tuple[tuple[int, str, int, str], str]], low: int, high: int
) -> Iterator[FeedRecord]:
    """Parse one task's sorted lines and yield the records with low < commitTs <= high.

    DDLs at or before ``low`` are parsed too (they build the schemas later rows use); rows
    there were played by an earlier epoch and are skipped unparsed.
    """
    parser = FeedParser()
    for (ts, file, number, kind), text in items:
        if ts > high:
            return
        if ts <= low and kind != "d":
            continue
        source = Source(file, number)
        try:
            record = parser.parse_line(text.encode(), source)
        except FeedError as err:
            raise err.at(file, number) from err.__cause__
        if ts > low:
            yield record
