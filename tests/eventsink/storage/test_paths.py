"""The layout's paths as TiCDC builds and parses them (``path_key.go``, ``generator.go``)."""

from __future__ import annotations

import pytest

from tisink.eventsink.storage.paths import DataDir, data_file_name, date_text, parse_data_dir

MS_2023_02_09 = 1675900800000 + 3_600_000  # 2023-02-09 01:00 UTC


def test_data_and_index_paths() -> None:
    directory = DataDir("test", "table1", 5, 0, "2023-02-09")
    assert directory.file_path(2, ".csv", 6) == "test/table1/5/2023-02-09/CDC000002.csv"
    assert directory.index_path() == "test/table1/5/2023-02-09/meta/CDC.index"
    partitioned = DataDir("test", "table1", 5, 10, "")
    assert partitioned.file_path(1, ".json", 20) == (
        "test/table1/5/10/CDC00000000000000000001.json"
    )
    assert data_file_name(123, ".csv", 6) == "CDC000123.csv"


@pytest.mark.parametrize(
    ("separator", "want"),
    [("none", ""), ("year", "2023"), ("month", "2023-02"), ("day", "2023-02-09")],
)
def test_date_separators(separator: str, want: str) -> None:
    assert date_text(MS_2023_02_09, separator) == want


@pytest.mark.parametrize(
    ("parts", "separator", "want"),
    [
        (["s", "t", "5"], "none", DataDir("s", "t", 5)),
        (["s", "t", "5", "10"], "none", DataDir("s", "t", 5, 10)),
        (["s", "t", "5", "2023-02-09"], "day", DataDir("s", "t", 5, 0, "2023-02-09")),
        (["s", "t", "5", "10", "2023"], "year", DataDir("s", "t", 5, 10, "2023")),
        (["s", "t", "5", "2023-02"], "day", None),
        (["s", "t", "v5"], "none", None),
        (["s", "t"], "none", None),
    ],
)
def test_parse_data_dir(parts: list[str], separator: str, want: DataDir | None) -> None:
    assert parse_data_dir(parts, separator) == want
    if want is not None:
        assert want.path() == "/".join(parts)
