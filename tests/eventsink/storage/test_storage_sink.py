"""The storage sink end to end: TiCDC's layout for csv and canal-json on ``file://``, files
closed on ``file-size`` in commit order, one table-version directory and schema file per DDL,
indexes naming the newest file, an honest ``metadata`` checkpoint; and the URI's choices."""

from __future__ import annotations

import asyncio
import csv
import io
from pathlib import Path

import orjson
import pytest

from tests.eventsink.storage.support import counts, demo_feed, feed_ddls, play, stored_rows
from tisink.codec import new_encoder
from tisink.codec.csv.options import CSVOptions
from tisink.core.clock import FixedClock
from tisink.eventsink.storage.config import StorageConfig
from tisink.eventsink.storage.paths import DATA_FILE
from tisink.sink.config import ChangefeedConfig
from tisink.sink.errors import SinkURIError
from tisink.sink.factory import SinkFactory
from tisink.sink.providers import FileProvider
from tisink.verify import verify


def _data_files(root: Path, pattern: str = "CDC*.csv") -> list[Path]:
    return sorted(p for p in root.rglob(pattern) if p.parent.name != "meta")


def test_csv_layout_indexes_schema_files_and_checkpoint(tmp_path: Path) -> None:
    feed = demo_feed(tmp_path, 1500)
    out = tmp_path / "out"
    uri = f"file://{out}?protocol=csv&date-separator=none&include-commit-ts=true&file-size=4096"
    summary = play(feed, uri)
    assert summary["verified"] is True
    files = _data_files(out)
    assert len(files) > 20
    for directory in {f.parent for f in files}:
        numbers = sorted(int(DATA_FILE.fullmatch(f.name)[1]) for f in directory.glob("CDC*"))  # type: ignore[index]
        assert numbers == list(range(1, len(numbers) + 1))
        index = (directory / "meta" / "CDC.index").read_text()
        assert index == f"CDC{numbers[-1]:020d}.csv\n"
    # file-size closes a file once it reaches 4 KiB: only its last transaction goes beyond
    for path in files:
        lines = path.read_bytes().split(b"\r\n")[:-1]
        last_ts = lines[-1].split(b",")[3]
        before_last = [line for line in lines if line.split(b",")[3] != last_ts]
        assert sum(len(line) + 2 for line in before_last) < 4096, path
    assert sum(f.stat().st_size > 4096 for f in files) > 10
    assert orjson.loads((out / "metadata").read_bytes()) == {
        "checkpoint-ts": summary["checkpoint_ts"]
    }
    # every DDL with a table wrote its version's schema file with its query
    schema_files = {
        (p.parent.parent.parent.name, p.parent.parent.name, int(p.name.split("_")[1])): p
        for p in out.glob("*/*/meta/schema_*.json")
    }
    for record in feed_ddls(feed):
        table = record.ddl.table
        if table is None:
            continue
        document = orjson.loads(
            schema_files[(table.schema, table.table, table.version)].read_bytes()
        )
        assert document["Query"] == record.ddl.query
        assert [c["ColumnName"] for c in document["TableColumns"]] == [
            c.name for c in table.columns
        ]
    # the data directories are the table versions the rows carried
    versions = {(r.table.schema, r.table.table, r.table.version) for r in stored_rows(feed)}
    assert {
        (f.parent.parent.parent.name, f.parent.parent.name, int(f.parent.name)) for f in files
    } == versions


def test_canal_json_files_hold_the_encoders_messages(tmp_path: Path) -> None:
    """Each line is the canal-json encoder's message for the row, CRLF-terminated, in commit
    order per table."""
    feed = demo_feed(tmp_path, 600)
    out = tmp_path / "out"
    uri = f"file://{out}?protocol=canal-json&enable-tidb-extension=true&date-separator=none"
    assert play(feed, uri)["verified"] is True
    lines: dict[str, list[bytes]] = {}
    for path in _data_files(out, "CDC*.json"):
        table = f"{path.parent.parent.parent.name}.{path.parent.parent.name}"
        data = path.read_bytes()
        assert data.endswith(b"\r\n")
        lines.setdefault(table, []).extend(data.split(b"\r\n")[:-1])
    factory = SinkFactory(uri)
    encoder = new_encoder(factory.config.encoder, FixedClock(0))
    for table, rows in _by_table(stored_rows(feed)).items():
        got = lines[table]
        assert len(got) == len(rows)
        for row, line in zip(rows, got, strict=True):
            message = orjson.loads(line)
            want = orjson.loads(encoder.encode_rows([row]).records[0][1])
            message.pop("ts"), want.pop("ts")  # the clock's time
            assert message == want


def _by_table(rows: list) -> dict[str, list]:  # type: ignore[type-arg]
    grouped: dict[str, list] = {}  # type: ignore[type-arg]
    for row in rows:
        grouped.setdefault(row.table.qualified_name, []).append(row)
    return grouped


def test_row_counts_per_table_and_operation_match_the_feed(tmp_path: Path) -> None:
    feed = demo_feed(tmp_path, 1200, seed=3)
    out = tmp_path / "out"
    uri = f"file://{out}?protocol=csv&output-old-value=true&include-commit-ts=true"
    summary = play(feed, uri)
    assert summary["verified"] is True
    report = verify(uri)
    assert report.ok
    want = counts(stored_rows(feed))
    events = {"I": "INSERT", "U": "UPDATE", "D": "DELETE"}
    for kind, name in events.items():
        assert report.counts[name] == sum(n for (_, k), n in want.items() if k == kind)
    # the summary's DML messages are the change records written: one per row (an UPDATE's
    # old-value line rides in its record), fewer than the CSV lines
    texts = (path.read_text() for path in out.rglob("CDC*.csv"))
    lines = sum(1 for text in texts for _ in csv.reader(io.StringIO(text, newline="")))
    assert summary["messages"] == {"DML": sum(want.values())}
    assert lines > sum(want.values())


@pytest.mark.parametrize(
    ("uri", "storage"),
    [
        ("file:///x?protocol=csv", True),
        ("file:///x?protocol=canal-json", True),
        ("file:///x?protocol=canal-json&file-layout=partitions", False),
        ("file:///x?protocol=simple", False),
        ("file:///x?protocol=debezium", False),
        ("file:///x", False),
    ],
)
def test_file_uri_picks_the_layout(uri: str, storage: bool) -> None:
    factory = SinkFactory(uri)
    assert (factory.storage_layout() is not None) == storage
    assert isinstance(factory.provider, FileProvider) != storage
    assert (factory.mq_target() is None) == storage


@pytest.mark.parametrize(
    ("uri", "message"),
    [
        ("file:///x?protocol=csv&file-layout=partitions", "only in TiCDC's storage layout"),
        ("file:///x?protocol=simple&file-layout=storage", "takes protocol canal-json or csv"),
        ("file:///x?protocol=csv&file-layout=both", "must be storage or partitions"),
        ("kafka://127.0.0.1:9/t?protocol=csv", "only by the storage sink"),
        ("file:///x?protocol=csv&delimiter=", "delimiter cannot be empty"),
        ("file:///x?protocol=csv&date-separator=week", "expected one of none, year"),
    ],
)
def test_uri_mistakes_are_refused(uri: str, message: str) -> None:
    with pytest.raises(Exception, match=message):
        factory = SinkFactory(uri)
        factory.storage_layout()
        asyncio.run(factory.create_event_sink())


def test_a_file_uri_names_its_layout_in_errors() -> None:
    with pytest.raises(SinkURIError, match="file-layout"):
        SinkFactory("file:///x?protocol=open&file-layout=storage")


def test_a_ticdc_changefeed_file_configures_the_layout(tmp_path: Path) -> None:
    """TiCDC's keys where TiCDC reads them: ``[sink]``, ``[sink.csv]``,
    ``[sink.cloud-storage-config]``; the URI's parameters over them."""
    config = ChangefeedConfig.from_toml(
        "[sink]\nprotocol = 'csv'\nterminator = \"\\n\"\ndate-separator = 'none'\n"
        "enable-partition-separator = false\nfile-index-width = 6\n"
        "[sink.csv]\ndelimiter = '|'\nquote = ''\nnull = 'NULL'\ninclude-commit-ts = true\n"
        "binary-encoding-method = 'hex'\n"
        "[sink.cloud-storage-config]\nfile-size = 2048\nflush-interval = '1m30s'\n"
        "output-column-id = true\n"
    )
    assert not config.ignored_keys
    layout = SinkFactory(f"file://{tmp_path}?file-size=4096", config).storage_layout()
    assert layout is not None
    assert layout.config == StorageConfig(
        flush_interval_ms=90_000,
        file_size=4096,
        date_separator="none",
        enable_partition_separator=False,
        file_index_width=6,
        output_column_id=True,
        terminator="\n",
    )
    assert layout.encoder.options == CSVOptions(
        delimiter="|",
        quote="",
        null="NULL",
        include_commit_ts=True,
        binary_encoding_method="hex",
        terminator="\n",
    )
