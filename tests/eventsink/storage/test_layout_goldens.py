"""The storage layout's paths against TiCDC's own tests, per architecture (sources, commits and
the tests followed: ``data/README.md``): the new architecture's dispatcher names and
``use-table-id-as-path`` (pingcap/ticdc), the classic names and numbering (pingcap/tiflow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.eventsink.storage.test_schema_file import TABLE1
from tisink.eventsink.storage.config import StorageConfig
from tisink.eventsink.storage.files import FileWriter
from tisink.eventsink.storage.paths import (
    DataDir,
    dispatcher_id,
    parse_data_dir,
    parse_data_file_name,
)
from tisink.eventsink.storage.schema_file import SchemaFile

D = "7337328392341795436" + "1452812829442839047"
"""A dispatcher id as ticdc prints one (``GID.String()``: low and high run together)."""


@pytest.mark.parametrize(
    ("date", "want"),
    [
        ("", f"test/table1/5/CDC_{D}_000001.json"),
        ("2022", f"test/table1/5/2022/CDC_{D}_000001.json"),
        ("2023", f"test/table1/5/2023/CDC_{D}_000001.json"),
        ("2022-12", f"test/table1/5/2022-12/CDC_{D}_000001.json"),
        ("2023-01", f"test/table1/5/2023-01/CDC_{D}_000001.json"),
        ("2022-12-31", f"test/table1/5/2022-12-31/CDC_{D}_000001.json"),
        ("2023-01-01", f"test/table1/5/2023-01-01/CDC_{D}_000001.json"),
    ],
)
def test_ticdc_generate_data_file_path(date: str, want: str) -> None:
    """ticdc ``TestGenerateDataFilePath`` (table across nodes on, file-index-width 6)."""
    assert DataDir("test", "table1", 5, 0, date, D).file_path(1, ".json", 6) == want


def test_ticdc_generate_data_file_path_with_table_id_as_path() -> None:
    """ticdc ``TestGenerateDataFilePathWithTableIDAsPath``."""
    directory = DataDir("test", "table1", 5, 12345, "", D, table_id=12345)
    assert directory.file_path(1, ".json", 6) == f"12345/5/CDC_{D}_000001.json"


@pytest.mark.parametrize(
    ("directory", "separator", "by_id", "want"),
    [
        (
            DataDir("test", "table1", 5, 0, "2023-05-09", D),
            "day",
            False,
            f"test/table1/5/2023-05-09/meta/CDC_{D}.index",
        ),
        (
            DataDir("test", "table1", 5, 12345, "", table_id=12345),
            "none",
            True,
            "12345/5/meta/CDC.index",
        ),
        (
            DataDir("test", "table1", 5, 55, "2023-05-09"),
            "day",
            False,
            "test/table1/5/55/2023-05-09/meta/CDC.index",
        ),
    ],
)
def test_ticdc_generate_and_parse_index_file_path(
    directory: DataDir, separator: str, by_id: bool, want: str
) -> None:
    """ticdc ``TestGenerateAndParseIndexFilePath``: the path, and the directory parsed back
    (a table-id directory has no names until its schema files give them)."""
    assert directory.index_path() == want
    parts = want.split("/")
    parsed = parse_data_dir(
        parts[:-2], separator, by_table_id=by_id, dispatcher=directory.dispatcher
    )
    expected = directory if not by_id else DataDir("", "", 5, 12345, "", table_id=12345)
    assert parsed == expected


@pytest.mark.parametrize(
    ("want", "separator", "by_id", "directory"),
    [
        (
            f"schema1/table1/123456/2023-05-09/CDC_{D}_00000000000000000010.csv",
            "day",
            False,
            DataDir("schema1", "table1", 123456, 0, "2023-05-09", D),
        ),
        (
            f"12345/123456/CDC_{D}_00000000000000000010.csv",
            "none",
            True,
            DataDir("", "", 123456, 12345, "", D, 12345),
        ),
        (
            f"schema1/table1/123456/55/2023-05-09/CDC_{D}_00000000000000000010.csv",
            "day",
            False,
            DataDir("schema1", "table1", 123456, 55, "2023-05-09", D),
        ),
    ],
)
def test_ticdc_generate_dml_file_path(
    want: str, separator: str, by_id: bool, directory: DataDir
) -> None:
    """ticdc ``TestGenerateDMLFilePath`` (path_key_test.go): width 20, file 10, both ways."""
    assert directory.file_path(10, ".csv", 20) == want
    parts = want.split("/")
    name = parse_data_file_name(parts[-1])
    assert name == (D, 10, ".csv")
    assert parse_data_dir(parts[:-1], separator, by_table_id=by_id, dispatcher=name[0]) == (
        directory
    )


@pytest.mark.parametrize("name", ["CDC000011.json", "CDC1000000.json"])
def test_ticdc_parse_file_index_from_file_name(name: str) -> None:
    assert parse_data_file_name(name) == ("", int(name[3:-5]), ".json")


def test_ticdc_schema_file_path_with_table_id() -> None:
    """ticdc ``TestSchemaFileGenFilePath``."""
    database = SchemaFile("schema1", None, 100)
    assert database.path() == "schema1/meta/schema_100_3233644819.json"
    assert database.path(by_table_id=True) == "schema1/meta/schema_100_3233644819.json"
    table = SchemaFile("schema1", TABLE1, 100, table_id=12345)
    assert table.path() == "schema1/table1/meta/schema_100_3752767265.json"
    assert table.path(by_table_id=True) == "12345/meta/schema_100_3752767265.json"


def test_dispatcher_ids_are_ticdc_shaped_and_stable() -> None:
    """Two decimal uint64s run together; the same physical table gets the same id."""
    ident = dispatcher_id(106)
    assert ident.isdigit() and 2 <= len(ident) <= 40
    assert ident == dispatcher_id(106) != dispatcher_id(107)


def _writer(root: Path, **config: bool) -> FileWriter:
    return FileWriter(root, sync=False, config=StorageConfig(**config))  # type: ignore[arg-type]


def test_ticdc_next_file_after_the_index(tmp_path: Path) -> None:
    """ticdc ``TestGenerateDataFilePathWithIndexFile``: the index names 000005, next 000006."""
    directory = DataDir("test", "table1", 5, 0, "2023-03-09", D)
    index = tmp_path / directory.index_path()
    index.parent.mkdir(parents=True)
    index.write_text(f"CDC_{D}_000005.json\n")
    writer = _writer(tmp_path, enable_table_across_nodes=True)
    number = writer.next_number(directory)
    assert directory.file_path(number, ".json", 6) == (
        f"test/table1/5/2023-03-09/CDC_{D}_000006.json"
    )


def test_tiflow_next_file_after_the_index(tmp_path: Path) -> None:
    """tiflow ``TestGenerateDataFilePathWithIndexFile``: the indexed file missing or empty is
    written again under its number, a written one is followed by the next."""
    directory = DataDir("test", "table1", 5, 0, "2023-03-09")
    index = tmp_path / directory.index_path()
    index.parent.mkdir(parents=True)
    index.write_text("CDC000005.json\n")
    data = tmp_path / "test/table1/5/2023-03-09/CDC000005.json"

    def next_path() -> str:
        number = _writer(tmp_path, newarch=False).next_number(directory)
        return directory.file_path(number, ".json", 6)

    assert next_path() == "test/table1/5/2023-03-09/CDC000005.json"
    data.write_bytes(b"")
    assert next_path() == "test/table1/5/2023-03-09/CDC000005.json"
    data.write_bytes(b"test")
    assert next_path() == "test/table1/5/2023-03-09/CDC000006.json"
    assert DataDir("test", "table1", 5).file_path(1, ".json", 6) == "test/table1/5/CDC000001.json"
