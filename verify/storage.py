"""``tisink verify`` of TiCDC's storage layout (``file://...?protocol=csv|canal-json``).

What a storage consumer relies on, checked file by file:

* ``layout-path``: every file is part of the layout (temporary ``.NAME.tmp`` files a crash
  left are listed, not counted against it: consumers skip them);
* ``schema-file``: a schema file's name carries its ``TableVersion`` and the checksum of its
  content, and every data directory's table version has its schema file;
* ``index-newest``: each directory's ``meta/CDC.index`` (each dispatcher's
  ``meta/CDC_{dispatcherID}.index`` with ``enable-table-across-nodes``) names its newest data
  file, and the files are numbered 1, 2, 3... without a gap; in the classic layout
  (``newarch=false``, the index written first) an index one past the newest file, whose file
  is missing, is what a write cut short leaves and is not counted against it;
* ``file-complete``: every data file reads to its end (the last line ends with the terminator)
  and every row names the directory's table and has no more columns than its schema file;
* ``commit-order``: per table (and partition, and dispatcher), the commit ts never goes back
  over its directories and files in order (when the files carry it: CSV ``include-commit-ts``,
  canal-json always via ``es`` or ``_tidb.commitTs``);
* ``row-once``: no row is stored twice (rows with a commit ts), and with the play's
  acknowledged counts, each table holds exactly the rows the sink acknowledged;
* ``checkpoint-honest``: ``metadata`` holds ``{"checkpoint-ts":N}`` and no row at or below N
  lies in a file its directory's index does not yet cover.

The report counts files, not messages: every file of the layout read is one, by kind (``FILE``
data files, ``SCHEMA`` schema files, ``CHECKPOINT`` the metadata file), so the total is the sum
of its parts; the rows of the data files are its events.
"""

from __future__ import annotations

import logging
import zlib
from collections import Counter
from collections.abc import Mapping

import orjson

from tisink.codec.errors import MessageDecodeError
from tisink.eventsink.storage.config import StorageLayout
from tisink.eventsink.storage.layout import DataDirFiles, Listing, list_layout
from tisink.eventsink.storage.paths import DataDir, parse_data_file_name
from tisink.eventsink.storage.schema_file import go_indent
from tisink.verify.report import VerifyReport, Violation
from tisink.verify.storage_rows import StoredRow, read_rows

log = logging.getLogger(__name__)


def _violation(report: VerifyReport, path: str, line: int, rule: str, detail: str) -> None:
    report.add_violation(Violation(path, 0, line, rule, detail, path))


def _count_file(report: VerifyReport, kind: str) -> None:
    """One file of the layout read, of ``kind``: the total and its parts move together."""
    report.messages += 1
    report.kinds[kind] += 1


def verify_storage(
    layout: StorageLayout,
    report: VerifyReport,
    acknowledged: Mapping[tuple[str, int], int] | None = None,
) -> VerifyReport:
    """Check the folder of ``layout`` into ``report`` (see the module docstring)."""
    config = layout.config
    by_id = config.use_table_id_as_path
    listing = list_layout(layout.root, layout.extension, config.date_separator, by_table_id=by_id)
    for path in listing.strangers:
        _violation(report, path, 0, "layout-path", "not a file of TiCDC's storage layout")
    for path in listing.unnamed:
        _violation(report, path, 0, "schema-file", "no schema file names this table id")
    if listing.temp_files:
        log.info("%d temporary file(s) left by an interrupted write", len(listing.temp_files))
    versions = _check_schema_files(layout, listing, report)
    checkpoint = _checkpoint(listing, report)
    stored: Counter[str] = Counter()
    order: dict[tuple[str, str, int, str], tuple[int, str]] = {}
    seen: dict[str, set[bytes]] = {}
    aliases = _table_id_names(listing)
    for directory in sorted(listing.dirs):
        entry = listing.dirs[directory]
        table = f"{directory.schema}.{directory.table}"
        report.tables.add(table)
        report.topics.append(directory.path())
        if (directory.schema, directory.table, directory.version) not in versions:
            _violation(
                report,
                directory.path(),
                0,
                "schema-file",
                f"no schema file {directory.schema}/{directory.table}/meta/"
                f"schema_{directory.version}_*.json for this table version",
            )
        indexed = _check_index(entry, layout.extension, config.newarch, report)
        columns = versions.get((directory.schema, directory.table, directory.version), 0)
        names = {(directory.schema, directory.table)}
        names.update(aliases.get((directory.table_id, directory.version), ()))
        # a directory named by table id is one stream whatever names its versions carry
        stream = ("", "") if directory.table_id else (directory.schema, directory.table)
        key = (*stream, directory.partition, directory.dispatcher)
        for number in sorted(entry.files):
            path = f"{directory.path()}/{entry.files[number]}"
            rows = _read(layout, path, report)
            _count_file(report, "FILE")
            for row in rows:
                _check_row(report, directory, names, path, row, columns)
                report.counts[row.kind] += 1
                own = f"{row.schema}.{row.table}" if (row.schema, row.table) in names else table
                stored[own] += 1
                _check_order(report, order, key, path, row)
                _check_once(report, seen.setdefault(own, set()), path, row)
                _check_covered(report, checkpoint, indexed, number, path, row)
    report.partitions.update(stored)
    if acknowledged:
        _check_acknowledged(report, stored, acknowledged)
    return report


def _read(layout: StorageLayout, path: str, report: VerifyReport) -> list[StoredRow]:
    data = (layout.root / path).read_bytes()
    try:
        return read_rows(data, layout.encoder, layout.config.terminator, path)
    except MessageDecodeError as err:
        _violation(report, path, 0, "file-complete", str(err))
        return []


def _check_schema_files(
    layout: StorageLayout, listing: Listing, report: VerifyReport
) -> dict[tuple[str, str, int], int]:
    """(schema, table, version) -> TableColumnsTotal of each good table schema file."""
    versions: dict[tuple[str, str, int], int] = {}
    for ref in listing.schemas:
        _count_file(report, "SCHEMA")
        try:
            document = orjson.loads((layout.root / ref.path).read_bytes())
            version, total = int(document["TableVersion"]), int(document["TableColumnsTotal"])
            columns = document["TableColumns"] or []
            payload = {
                "Table": document["Table"],
                "Schema": document["Schema"],
                "Version": 0,
                "TableColumns": sorted(columns, key=lambda c: c["ColumnName"].encode()),
                "TableColumnsTotal": total,
            }
        except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, AttributeError) as err:
            _violation(report, ref.path, 0, "schema-file", f"not a TiCDC schema file: {err!r}")
            continue
        checksum = zlib.crc32(go_indent(payload).encode())
        if version != ref.version or checksum != ref.checksum:
            _violation(
                report,
                ref.path,
                0,
                "schema-file",
                f"the name says version {ref.version} checksum {ref.checksum:010d}, the "
                f"content version {version} checksum {checksum:010d}",
            )
        if ref.table:
            versions[(ref.schema, ref.table, ref.version)] = total
    return versions


def _checkpoint(listing: Listing, report: VerifyReport) -> int | None:
    if listing.metadata is None:
        if listing.dirs:
            _violation(report, "metadata", 0, "checkpoint-honest", "no metadata file")
        return None
    _count_file(report, "CHECKPOINT")
    try:
        document = orjson.loads(listing.metadata)
        checkpoint = int(document["checkpoint-ts"])
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as err:
        _violation(report, "metadata", 0, "checkpoint-honest", f"unreadable: {err!r}")
        return None
    return checkpoint


def _check_index(
    entry: DataDirFiles, extension: str, newarch: bool, report: VerifyReport
) -> int | None:
    """The number the index names (None: no usable index)."""
    path = entry.directory.index_path()
    numbers = sorted(entry.files)
    if numbers != list(range(1, len(numbers) + 1)):
        _violation(report, path, 0, "index-newest", f"data files numbered {numbers[:8]}...")
    if entry.index is None:
        _violation(report, path, 0, "index-newest", "no index file")
        return None
    name = entry.index.removesuffix("\n")
    parsed = parse_data_file_name(name)
    if (
        parsed is None
        or parsed[0] != entry.directory.dispatcher
        or parsed[2] != extension
        or not entry.index.endswith("\n")
    ):
        _violation(report, path, 0, "index-newest", f"names no data file: {entry.index!r}")
        return None
    number = parsed[1]
    newest = numbers[-1] if numbers else 0
    if not newarch and number == newest + 1:
        log.info("%s names %s, not written yet (the classic index goes first)", path, name)
        return number
    if number != newest or entry.files.get(number) != name:
        _violation(
            report, path, 0, "index-newest", f"names {name}; the newest file is number {newest}"
        )
    return number


def _table_id_names(listing: Listing) -> dict[tuple[int, int], set[tuple[str, str]]]:
    """(table id, version) -> the names its schema files carry (``use-table-id-as-path``: a
    RENAME TABLE keeps the id, and the rows of one version may carry either name)."""
    names: dict[tuple[int, int], set[tuple[str, str]]] = {}
    for ref in listing.schemas:
        if ref.table_id:
            names.setdefault((ref.table_id, ref.version), set()).add((ref.schema, ref.table))
    return names


def _check_row(
    report: VerifyReport,
    directory: DataDir,
    names: set[tuple[str, str]],
    path: str,
    row: StoredRow,
    columns: int,
) -> None:
    if (row.schema, row.table) not in names:
        _violation(
            report,
            path,
            row.line,
            "file-complete",
            f"a row of {row.schema}.{row.table} in the directory of "
            f"{directory.schema}.{directory.table}",
        )
    elif columns and row.columns > columns:
        _violation(
            report,
            path,
            row.line,
            "file-complete",
            f"{row.columns} columns; the schema file has {columns}",
        )


def _check_order(
    report: VerifyReport,
    order: dict[tuple[str, str, int, str], tuple[int, str]],
    key: tuple[str, str, int, str],
    path: str,
    row: StoredRow,
) -> None:
    if row.commit_ts is None:
        return
    last = order.get(key)
    if last is not None and row.commit_ts < last[0]:
        _violation(
            report,
            path,
            row.line,
            "commit-order",
            f"commit ts {row.commit_ts} after {last[0]} (in {last[1]})",
        )
    order[key] = (row.commit_ts, path)


def _check_covered(
    report: VerifyReport,
    checkpoint: int | None,
    indexed: int | None,
    number: int,
    path: str,
    row: StoredRow,
) -> None:
    """A row at or below the checkpoint must be in a file its index covers."""
    if checkpoint is None or indexed is None or number <= indexed:
        return
    if row.commit_ts is not None and row.commit_ts <= checkpoint:
        _violation(
            report,
            path,
            row.line,
            "checkpoint-honest",
            f"commit ts {row.commit_ts} <= checkpoint {checkpoint} lies in a file the index "
            f"(CDC{indexed}) does not cover",
        )


def _check_once(report: VerifyReport, seen: set[bytes], path: str, row: StoredRow) -> None:
    if row.commit_ts is None or not row.identity:
        return
    if row.identity in seen:
        _violation(report, path, row.line, "row-once", "the same row is stored again")
    seen.add(row.identity)


def _check_acknowledged(
    report: VerifyReport, stored: Counter[str], acknowledged: Mapping[tuple[str, int], int]
) -> None:
    for (table, _), rows in sorted(acknowledged.items()):
        if stored[table] != rows:
            _violation(
                report,
                table,
                0,
                "row-once",
                f"the files hold {stored[table]} rows; the sink acknowledged {rows}",
            )
