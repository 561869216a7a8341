"""Streaming reader of change feed files (spec/feed-format.md), validating every record.

A feed is one file or a folder of files read in name order as one stream: schemas and the
commit order carry over from file to file. Each line is parsed with orjson and checked against
the live schema of its table; the first bad record raises FeedError with ``file:line``, the
table and the column, and nothing after it is yielded.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from tisink.feed.errors import FeedError
from tisink.feed.format.checksums import parse_checksum
from tisink.feed.format.records import FeedDDL, FeedRecord, FeedResolved, FeedRow, Source
from tisink.feed.format.row_builder import LightRow
from tisink.feed.format.schemas import SchemaTracker
from tisink.model.errors import SchemaError
from tisink.model.events import MAX_UINT64 as _MAX_TS
from tisink.model.events import DDLEvent, DDLType, RowChangedEvent
from tisink.model.table import TableInfo
from tisink.model.tso import too_late

log = logging.getLogger(__name__)

_ROW_KEYS = frozenset(
    ("type", "commitTs", "startTs", "tableID", "op", "after", "before", "schema", "table")
) | {"checksum"}
_DDL_KEYS = frozenset(("type", "commitTs", "startTs", "ddlType", "query", "table", "preTable"))
_RESOLVED_KEYS = frozenset(("type", "ts"))
_OPS = {"INSERT": (False, True), "UPDATE": (True, True), "DELETE": (True, False)}


def feed_files(path: str | os.PathLike[str]) -> list[Path]:
    """The files of a feed: ``path`` itself, or the visible files of a folder in name order
    (hidden files and Spark-style ``_SUCCESS`` markers are skipped)."""
    root = Path(path)
    if not root.is_dir():
        if not root.is_file():
            raise FeedError(f"feed {root} does not exist")
        return [root]
    files = sorted(p for p in root.iterdir() if p.is_file() and not p.name.startswith((".", "_")))
    if not files:
        raise FeedError(f"feed folder {root} holds no files")
    return files


def check_feed(path: str | os.PathLike[str]) -> None:
    """Fail before a play starts when the feed is missing or holds no record at all (only
    blank lines), instead of after a run that wrote nothing."""
    files = feed_files(path)
    for file in files:
        with file.open("rb") as lines:
            if any(not raw.isspace() for raw in lines):
                return
    what = "feed file" if len(files) == 1 and files[0] == Path(path) else "feed folder"
    raise FeedError(f"{what} {path} holds no records (only empty or blank lines)")


def read_feed(path: str | os.PathLike[str]) -> Iterator[FeedRecord]:
    """Yield the validated records of the feed at ``path`` (a file or a folder of files)."""
    parser = FeedParser()
    for file in feed_files(path):
        log.debug("reading feed file %s", file)
        with file.open("rb") as lines:
            yield from parser.parse_lines(lines, file.name)


class FeedParser:
    """Turns feed lines into records; keeps the schema and commit-order state of one feed."""

    def __init__(self) -> None:
        self.schemas = SchemaTracker()
        self._last_ts = 0
        self._resolved = -1

    def parse_lines(self, lines: Iterable[bytes], name: str) -> Iterator[FeedRecord]:
        """Parse the lines of one file called ``name`` (for messages); blank lines are skipped.

        A common row takes its table's builder right here (the fast path ``read_rows`` has
        too, inline in both: reading through ``read_rows`` cost this reader 0.3 us a row;
        ``tests/feed/format/test_reader.py`` holds them to the same rows); every other line
        (blank, DDL, resolved, a row the builder does not take) goes through ``parse_line``."""
        builders, loads, parse, source = (
            self.schemas.builders,
            orjson.loads,
            self.parse_line,
            tuple.__new__,
        )
        for number, raw in enumerate(lines, 1):
            try:
                obj = loads(raw)
                build = builders.get(obj.get("tableID"))
                event = build and build(
                    obj, self._last_ts, self._resolved, len(raw.rstrip(b"\r\n"))
                )
            except Exception:  # not JSON, not an object, an unhashable tableID: parse_line tells
                event = None
            if event is not None:
                self._last_ts = event.commit_ts
                yield FeedRow(event, source(Source, (name, number)))
            elif raw and not raw.isspace():
                try:
                    yield parse(raw, source(Source, (name, number)))
                except FeedError as err:
                    raise err.at(name, number) from err.__cause__

    def seen_resolved(self, ts: int) -> None:
        """Go on as a reader that has read a ``resolved`` record of ``ts`` (one that starts
        mid-feed, after it): later records must be after it."""
        self._resolved = max(self._resolved, ts)

    def read_rows(
        self, lines: Sequence[bytes], at: int, rows: list[LightRow], indexes: list[int]
    ) -> int:
        """Read the common rows of ``lines`` from index ``at`` on, each through its table's
        light builder (a reader that only routes them: a Spark feed's stage one), appending
        their ``LightRow``s to ``rows`` and their indexes to ``indexes``, up to the first line
        that is not one (blank, DDL, resolved, not JSON, a row the builders do not take): its
        index, or ``len(lines)``. That line is for ``parse_line``, which accepts it or names
        what is wrong; nothing is checked twice on the common path."""
        schemas, loads = self.schemas, orjson.loads
        builders = schemas.light_builders
        add_row, add_index = rows.append, indexes.append
        last_ts, resolved, end = self._last_ts, self._resolved, len(lines)
        while at < end:
            try:
                obj = loads(lines[at])
                table_id = obj.get("tableID")
                build = builders.get(table_id) or schemas.light_builder(table_id)
                row = build and build(obj, last_ts, resolved, 0)
            except Exception:  # not JSON, not an object, an unhashable tableID: parse_line tells
                row = None
            if row is None:
                break
            last_ts = row[0]
            add_row(row)
            add_index(at)
            at += 1
        self._last_ts = last_ts
        return at

    def parse_line(self, raw: bytes, source: Source) -> FeedRecord:
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as err:
            raise _json_error(raw, err) from None
        if type(obj) is not dict:
            raise FeedError("a record must be a JSON object")
        kind = obj.get("type")
        if kind == "row":
            size = len(raw.rstrip(b"\r\n"))
            try:
                return self._row(obj, size, source)
            except FeedError:
                # orjson reads integers beyond 64 bits as floats; name the value as written
                self._checked_row(json.loads(raw), size, source)
                raise
        if kind == "ddl":
            return self._ddl(obj, source)
        if kind == "resolved":
            _only(obj, _RESOLVED_KEYS)
            ts = _ts(obj, "ts")
            self._order(ts)
            self._resolved = max(self._resolved, ts)
            return FeedResolved(ts, source)
        raise FeedError(f"unknown record type {kind!r} (expected row, ddl or resolved)")

    def _order(self, commit_ts: int) -> None:
        if commit_ts <= self._resolved:
            raise FeedError(f"commitTs {commit_ts} is not after resolved ts {self._resolved}")
        if commit_ts < self._last_ts:
            raise FeedError(f"commitTs {commit_ts} goes back (previous {self._last_ts})")
        self._last_ts = commit_ts

    def _row(self, obj: dict[str, Any], size: int, source: Source) -> FeedRow:
        """The common row through its table's builder; anything the builder does not take
        goes to ``_checked_row``, which finds what is wrong in the documented order (or
        accepts it)."""
        table_id = obj.get("tableID")
        build = self.schemas.builders.get(table_id) if type(table_id) is int else None
        event = None if build is None else build(obj, self._last_ts, self._resolved, size)
        if event is None:
            return self._checked_row(obj, size, source)
        self._last_ts = event.commit_ts
        return FeedRow(event, source)

    def _checked_row(self, obj: dict[str, Any], size: int, source: Source) -> FeedRow:
        _only(obj, _ROW_KEYS)
        commit_ts, start_ts = _ts(obj, "commitTs"), _ts(obj, "startTs")
        table_id = obj.get("tableID")
        if type(table_id) is not int:
            raise FeedError(f"tableID must be an integer, got {table_id!r}")
        validator = self.schemas.validator(table_id)
        table = validator.table
        before, after = obj.get("before"), obj.get("after")
        op = obj.get("op")
        if _OPS.get(op) != (before is not None, after is not None):  # type: ignore[arg-type]
            raise FeedError(
                f"op {op!r} does not match the images (INSERT: after, UPDATE: before and after, "
                "DELETE: before)",
                table=table.qualified_name,
            )
        if "schema" in obj or "table" in obj:
            _check_names(obj, table, table_id)
        if after is not None and (problem := validator.problem(after)) is not None:
            raise FeedError(problem[1], table=table.qualified_name, column=problem[0])
        if before is not None and (problem := validator.problem(before)) is not None:
            reason = f"{problem[1]} (before image)"
            raise FeedError(reason, table=table.qualified_name, column=problem[0])
        if start_ts > commit_ts:
            raise FeedError(f"startTs {start_ts} is after commitTs {commit_ts}")
        self._order(commit_ts)
        row = RowChangedEvent(start_ts, commit_ts, table, before, after, approximate_size=size)
        if "checksum" in obj:
            row.checksum = parse_checksum(obj["checksum"], row)
        return FeedRow(row, source)

    def _ddl(self, obj: dict[str, Any], source: Source) -> FeedDDL:
        _only(obj, _DDL_KEYS)
        commit_ts = _ts(obj, "commitTs")
        start_ts = _ts(obj, "startTs") if "startTs" in obj else 0
        try:
            ddl_type = DDLType(obj.get("ddlType"))  # type: ignore[arg-type]  # ValueError below
        except ValueError:
            raise FeedError(
                f"unknown ddlType {obj.get('ddlType')!r} (expected one of "
                f"{' '.join(t.value for t in DDLType)})"
            ) from None
        query = obj.get("query", "")
        if type(query) is not str:
            raise FeedError(f"query must be a string, got {query!r}")
        table, pre_table = _schema(obj, "table"), _schema(obj, "preTable")
        self._order(commit_ts)
        ddl = DDLEvent(commit_ts, ddl_type, query, table, pre_table, start_ts)
        self.schemas.apply(ddl)
        return FeedDDL(commit_ts, start_ts, ddl, source)


def _json_error(raw: bytes, err: orjson.JSONDecodeError) -> FeedError:
    """The column of the first bad character, as an editor counts it; bytes that are not
    UTF-8 are named by their byte position instead (orjson would say character 0)."""
    try:
        raw.decode()
    except UnicodeDecodeError as bad:
        byte = raw[bad.start]
        return FeedError(f"invalid UTF-8 at byte {bad.start + 1} (0x{byte:02x}): {bad.reason}")
    return FeedError(
        f"invalid JSON at column {err.pos + 1}: {err.msg} (a feed is JSON lines, one record a line)"
    )


def _check_names(obj: dict[str, Any], table: TableInfo, table_id: int) -> None:
    """The optional ``schema``/``table`` of a row must name the table of its tableID."""
    for key, expected in (("schema", table.schema), ("table", table.table)):
        given = obj.get(key, expected)
        if given != expected:
            raise FeedError(
                f"{key} {given!r} does not match tableID {table_id}", table=table.qualified_name
            )


def _only(obj: dict[str, Any], allowed: frozenset[str]) -> None:
    unknown = sorted(obj.keys() - allowed)
    if unknown:
        raise FeedError(f"unknown field {unknown[0]!r} in a {obj.get('type')} record")


def _ts(obj: dict[str, Any], key: str) -> int:
    value = obj.get(key)
    if type(value) is not int or not 0 <= value <= _MAX_TS:
        raise FeedError(f"{key} must be an unsigned 64-bit integer, got {value!r}")
    if (late := too_late(value)) is not None:
        raise FeedError(f"{key} {late}")
    return value


def _schema(obj: dict[str, Any], key: str) -> TableInfo | None:
    value = obj.get(key)
    if value is None:
        return None
    if type(value) is not dict:
        raise FeedError(f"{key} must be a TableSchema object")
    try:
        table = TableInfo.from_dict(value)
    except SchemaError as err:
        raise FeedError(f"bad {key} object: {err}") from None
    _check_blank_names(table, key)
    return table


def _check_blank_names(table: TableInfo, key: str) -> None:
    """Schema, table and column names must say something: the protocols leave an empty name
    out of their messages (Simple's ``database``), and no consumer can place such a row."""
    if not table.schema.strip():
        raise FeedError(f"bad {key} object: schema name {table.schema!r} is blank")
    if not table.table.strip():
        raise FeedError(f"bad {key} object: table name {table.table!r} is blank")
    for position, column in enumerate(table.columns, 1):
        if not column.name.strip():
            raise FeedError(
                f"bad {key} object: the name {column.name!r} of column {position} is blank",
                table=table.qualified_name,
            )
