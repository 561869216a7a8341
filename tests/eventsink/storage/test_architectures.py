"""The two architectures' storage sinks end to end: ``newarch`` (default true, pingcap/ticdc)
and ``newarch=false`` (pingcap/tiflow) write their own order of index and data file; the new
one's ``enable-table-across-nodes`` names files by dispatcher and ``use-table-id-as-path`` names
directories by table id; each folder verifies, and DuckDB reads the new layout's CSV files by
their header line."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.eventsink.storage.support import counts, data_files, demo_feed, play, stored_rows
from tisink.eventsink.storage.config import StorageConfig
from tisink.eventsink.storage.files import ClosedFile, FileWriter
from tisink.eventsink.storage.paths import DataDir, dispatcher_id, parse_data_file_name
from tisink.eventsink.storage.schema_file import SchemaFile
from tisink.model.mysqltypes import TypeFamily
from tisink.sink.errors import SinkURIError
from tisink.sink.factory import SinkFactory
from tisink.verify import verify

BASE = "protocol=csv&date-separator=none&include-commit-ts=true&file-size=4096"
NEW = f"{BASE}&enable-table-across-nodes=true&output-field-header=true"


class _Recording(FileWriter):
    def __init__(self, root: Path, config: StorageConfig) -> None:
        super().__init__(root, sync=False, config=config)
        self.order: list[str] = []

    def _write(self, path: Path, data: bytes) -> None:
        self.order.append(path.name)
        super()._write(path, data)


@pytest.mark.parametrize(
    ("newarch", "want"),
    [(True, ["CDC000001.csv", "CDC.index"]), (False, ["CDC.index", "CDC000001.csv"])],
)
def test_each_architecture_writes_its_order(tmp_path: Path, newarch: bool, want: list[str]) -> None:
    """ticdc #3785 (v8.5.5): the data file, then its index; tiflow: the index first."""
    from tests.eventsink.storage.test_schema_file import TABLE1

    writer = _Recording(tmp_path, StorageConfig(newarch=newarch))
    directory = DataDir("schema1", "table1", 100)
    closed = ClosedFile(
        directory, "CDC000001.csv", b"x\r\n", SchemaFile("schema1", TABLE1, 100), 1, 1
    )
    writer.write(closed)
    assert writer.order[1:] == want
    assert writer.order[0].startswith("schema_100_")


@pytest.fixture(scope="module")
def feed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_feed(tmp_path_factory.mktemp("feed"), 1500)


def _played(feed: Path, out: Path, params: str) -> str:
    uri = f"file://{out}?{params}"
    summary = play(feed, uri)
    assert summary["error"] is None
    assert summary["verified"] is True
    report = verify(uri)
    assert report.ok, report.violations
    return uri


def test_table_across_nodes_names_files_by_dispatcher(feed: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _played(feed, out, NEW)
    files = data_files(out)
    assert files
    dispatchers: dict[str, set[str]] = defaultdict(set)
    for row in stored_rows(feed):  # one dispatcher per physical table (partition)
        dispatchers[row.table.qualified_name].add(dispatcher_id(row.physical_table_id))
    for path in files:
        schema, table = path.relative_to(out).parts[:2]
        parsed = parse_data_file_name(path.name)
        assert parsed is not None
        assert parsed[0] in dispatchers[f"{schema}.{table}"]
        index = path.parent / "meta" / f"CDC_{parsed[0]}.index"
        assert index.exists()
        assert path.read_bytes().startswith(b"ticdc-meta$operation,ticdc-meta$table,")
    assert not list(out.rglob("CDC.index"))


def test_table_id_as_path(feed: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _played(feed, out, f"{BASE}&use-table-id-as-path=true")
    ids = {str(row.table.table_id) for row in stored_rows(feed)}
    top = {p.name for p in out.iterdir() if p.is_dir()}
    assert ids <= top
    for table_id in ids:
        schemas = list((out / table_id / "meta").glob("schema_*.json"))
        assert schemas
        assert orjson.loads(schemas[0].read_bytes())["TableColumnsTotal"] > 0
    assert all(p.relative_to(out).parts[0] in ids for p in data_files(out))


def test_the_classic_layout_verifies(feed: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    _played(feed, out, f"{BASE}&newarch=false")
    assert data_files(out)[0].name.startswith("CDC0")


@pytest.mark.parametrize("key", ["use-table-id-as-path", "enable-table-across-nodes"])
def test_the_classic_layout_refuses_the_new_settings(tmp_path: Path, key: str) -> None:
    with pytest.raises(SinkURIError, match=f"{key} is a setting of TiCDC's new architecture"):
        SinkFactory(f"file://{tmp_path}?{BASE}&newarch=false&{key}=true").storage_layout()


def test_a_classic_index_ahead_of_its_file_is_what_a_cut_write_leaves(
    feed: Path, tmp_path: Path
) -> None:
    """The classic sink writes the index first: a kill between the two leaves an index one
    past the newest file, which verify does not count against the folder."""
    out = tmp_path / "out"
    uri = _played(feed, out, f"{BASE}&newarch=false")
    newest = max(data_files(out), key=lambda p: p.name)
    newest.unlink()
    report = verify(uri)
    assert report.violation_counts["index-newest"] == 0, report.violations


def test_duckdb_reads_the_new_layout_by_its_header(feed: Path, tmp_path: Path) -> None:
    """DuckDB takes the column names from each file's header line."""
    duckdb = pytest.importorskip("duckdb")
    out = tmp_path / "out"
    _played(feed, out, NEW)
    connection = duckdb.connect()
    read: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for path in sorted(data_files(out), key=lambda p: (p.parent, parse_data_file_name(p.name))):
        relation = connection.read_csv(
            str(path),
            header=True,
            delimiter=",",
            quotechar='"',
            escapechar='"',
            na_values=["\\N"],
            all_varchar=True,
        )
        names = relation.columns
        assert names[:4] == [
            "ticdc-meta$operation",
            "ticdc-meta$table",
            "ticdc-meta$schema",
            "ticdc-meta$commit-ts",
        ]
        for row in relation.fetchall():
            values = dict(zip(names, row, strict=True))
            table = f"{values['ticdc-meta$schema']}.{values['ticdc-meta$table']}"
            read[table].append(values)
    expected = stored_rows(feed)
    assert Counter(counts(expected)) == Counter(
        (table, row["ticdc-meta$operation"]) for table, rows in read.items() for row in rows
    )
    # each row's commit ts and first column (its text, for integers and strings) as written
    want: Counter[tuple[Any, ...]] = Counter()
    for event in expected:
        image = event.after if event.after is not None else event.before
        assert image is not None
        first = event.table.stored_columns[0]
        value = image.get(first.name)
        text = str(value) if value is not None and first.family in _TEXTS else "?"
        want[(event.table.qualified_name, event.commit_ts, first.name, text)] += 1
    have: Counter[tuple[Any, ...]] = Counter()
    for table, rows in read.items():
        for row in rows:
            name = list(row)[4]
            value = row[name]
            text = value if value is not None and not _other(want, table, name) else "?"
            have[(table, int(row["ticdc-meta$commit-ts"]), name, text)] += 1
    assert have == want


_TEXTS = (TypeFamily.INT, TypeFamily.BIGINT, TypeFamily.STRING)


def _other(want: Counter[tuple[Any, ...]], table: str, name: str) -> bool:
    """True when the expected rows of ``table`` do not compare column ``name`` by text."""
    return any(k[0] == table and k[2] == name and k[3] == "?" for k in want)
