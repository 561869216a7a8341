"""A play killed with SIGKILL in the middle leaves a folder a consumer can trust: every data
file under its name is whole (writes go to a temporary name, are fsync'ed, then renamed), and
every row at or below the ``metadata`` checkpoint is in a file its directory's index covers.
Both architectures: the new one (data file, then index) and the classic one (``newarch=false``:
index, then data file)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.eventsink.storage.support import demo_feed, kill_mid_play, stored_rows
from tisink.codec.csv.decoder import parse_row, split_fields
from tisink.codec.csv.options import CSVOptions
from tisink.eventsink.storage.paths import DATA_FILE
from tisink.verify import verify

PARAMS = "protocol=csv&date-separator=none&include-commit-ts=true&file-size=8192"


@pytest.mark.parametrize("params", [PARAMS, f"{PARAMS}&newarch=false"])
def test_a_killed_play_leaves_whole_files_and_an_honest_checkpoint(
    tmp_path: Path, params: str
) -> None:
    feed = demo_feed(tmp_path, 20000)
    out = tmp_path / "out"
    kill_mid_play(feed, out, params)
    report = verify(f"file://{out}?{params}")
    for rule in ("file-complete", "schema-file", "layout-path", "checkpoint-honest"):
        assert report.violation_counts[rule] == 0, report.violations
    # the new index may lag its directory's newest file by the one write the kill cut short
    # (the classic index may name a file not written yet, which verify does not count)
    assert report.violation_counts["index-newest"] <= 1
    checkpoint = int(
        (out / "metadata").read_text().removeprefix('{"checkpoint-ts":').removesuffix("}")
    )
    options = CSVOptions()
    stored: Counter[str] = Counter()
    for index in out.rglob("meta/CDC.index"):
        directory = index.parent.parent
        newest = int(DATA_FILE.fullmatch(index.read_text().strip())[1])  # type: ignore[index]
        table = f"{directory.parent.parent.name}.{directory.parent.name}"
        for path in directory.glob("CDC*.csv"):
            if int(DATA_FILE.fullmatch(path.name)[1]) > newest:  # type: ignore[index]
                continue
            for fields in split_fields(path.read_bytes(), options, str(path)):
                row = parse_row(fields, CSVOptions(include_commit_ts=True))
                stored[table] += row.commit_ts <= checkpoint
    expected = Counter(
        row.table.qualified_name for row in stored_rows(feed) if row.commit_ts <= checkpoint
    )
    assert sum(expected.values()) > 100
    assert stored == expected
