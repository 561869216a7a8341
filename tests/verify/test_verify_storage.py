"""``tisink verify`` on a storage folder: OK for what the sink wrote, and each way a folder can
be wrong is named by its rule (a cut file, a stale index, a missing or misnamed schema file, a
row twice or out of order, a checkpoint ahead of the indexes, a stranger)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.eventsink.storage.support import demo_feed, play
from tisink.verify import render_text, verify

PARAMS = "protocol=csv&date-separator=none&include-commit-ts=true&file-size=2048"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("storage")
    out = base / "out"
    summary = play(demo_feed(base, 800), f"file://{out}?{PARAMS}")
    assert summary["verified"] is True
    return out


def _copy(played: Path, tmp_path: Path) -> Path:
    out = tmp_path / "copy"
    shutil.copytree(played, out)
    return out


def _directory(out: Path) -> Path:
    """The data directory with the most files."""
    return max({p.parent for p in out.rglob("CDC*.csv")}, key=lambda d: len(list(d.glob("CDC*"))))


def _files(directory: Path) -> list[Path]:
    return sorted(directory.glob("CDC*.csv"))


def _cut(out: Path) -> None:
    path = _files(_directory(out))[0]
    path.write_bytes(path.read_bytes()[:-5])


def _stale_index(out: Path) -> None:
    directory = _directory(out)
    (directory / "meta" / "CDC.index").write_text(_files(directory)[0].name + "\n")


def _no_schema_file(out: Path) -> None:
    next(out.glob("*/*/meta/schema_*.json")).unlink()


def _misnamed_schema_file(out: Path) -> None:
    path = next(out.glob("*/*/meta/schema_*.json"))
    version, checksum = path.stem.split("_")[1:]
    path.rename(path.with_name(f"schema_{version}_{(int(checksum) + 1) % 10**10:010d}.json"))


def _row_twice(out: Path) -> None:
    files = _files(_directory(out))
    first_line = files[0].read_bytes().split(b"\r\n")[0] + b"\r\n"
    files[-1].write_bytes(files[-1].read_bytes() + first_line)


def _rows_out_of_order(out: Path) -> None:
    files = _files(_directory(out))
    first, last = files[0].read_bytes(), files[-1].read_bytes()
    files[0].write_bytes(last)
    files[-1].write_bytes(first)


def _file_beyond_the_index(out: Path) -> None:
    directory = _directory(out)
    files = _files(directory)
    number = len(files) + 1
    shutil.copy(files[0], directory / f"CDC{number:020d}.csv")


def _stranger(out: Path) -> None:
    (out / "notes.txt").write_text("hello")


BREAKS: dict[str, tuple[Callable[[Path], None], str]] = {
    "cut": (_cut, "file-complete"),
    "stale-index": (_stale_index, "index-newest"),
    "no-schema-file": (_no_schema_file, "schema-file"),
    "misnamed-schema-file": (_misnamed_schema_file, "schema-file"),
    "row-twice": (_row_twice, "row-once"),
    "out-of-order": (_rows_out_of_order, "commit-order"),
    "beyond-index": (_file_beyond_the_index, "checkpoint-honest"),
    "stranger": (_stranger, "layout-path"),
}


def test_what_the_sink_wrote_verifies(played: Path, tmp_path: Path) -> None:
    out = _copy(played, tmp_path)
    # a temporary file an interrupted write left is skipped, as consumers skip it
    (_directory(out) / ".CDC00000000000000000099.csv.tmp").write_bytes(b"half a ro")
    report = verify(f"file://{out}?{PARAMS}")
    assert report.ok, report.violations
    assert report.kinds["FILE"] > 10 and report.kinds["CHECKPOINT"] == 1


def test_the_files_counted_are_the_sum_of_their_kinds(played: Path) -> None:
    """Every file of the layout read counts once: data, schema and metadata files."""
    report = verify(f"file://{played}?{PARAMS}")
    files = [p for p in played.rglob("*") if p.is_file()]
    data = [p for p in files if p.name.startswith("CDC") and p.suffix == ".csv"]
    schemas = [p for p in files if p.name.startswith("schema_")]
    assert dict(report.kinds) == {"CHECKPOINT": 1, "FILE": len(data), "SCHEMA": len(schemas)}
    assert report.messages == 1 + len(data) + len(schemas)
    kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(report.kinds.items()))
    assert f"files: {report.messages} ({kinds})" in render_text(report).splitlines()


@pytest.mark.parametrize("case", list(BREAKS))
def test_each_break_is_named_by_its_rule(played: Path, tmp_path: Path, case: str) -> None:
    out = _copy(played, tmp_path)
    breaker, rule = BREAKS[case]
    breaker(out)
    report = verify(f"file://{out}?{PARAMS}")
    assert not report.ok
    assert report.violation_counts[rule] >= 1, report.violations


def test_rows_missing_against_the_acknowledged_counts(played: Path, tmp_path: Path) -> None:
    out = _copy(played, tmp_path)
    report = verify(f"file://{out}?{PARAMS}")
    tables = dict(report.partitions)
    table = next(iter(tables))
    acknowledged = {(t, 0): n for t, n in tables.items()}
    assert verify(f"file://{out}?{PARAMS}", acknowledged=acknowledged).ok
    acknowledged[(table, 0)] += 1
    report = verify(f"file://{out}?{PARAMS}", acknowledged=acknowledged)
    assert report.violation_counts["row-once"] == 1


NEW = f"{PARAMS}&enable-table-across-nodes=true&use-table-id-as-path=true&output-field-header=true"


@pytest.fixture(scope="module")
def played_new(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The new architecture's names: ``{table-id}/{version}/CDC_{dispatcherID}_{num}.csv``,
    ``meta/CDC_{dispatcherID}.index``, files opening with the header line."""
    base = tmp_path_factory.mktemp("storage-new")
    out = base / "out"
    summary = play(demo_feed(base, 800), f"file://{out}?{NEW}")
    assert summary["verified"] is True
    return out


def _new_directory(out: Path) -> Path:
    return max({p.parent for p in out.rglob("CDC_*.csv")}, key=lambda d: len(list(d.glob("*"))))


def _new_stale_index(out: Path) -> None:
    directory = _new_directory(out)
    (index,) = (directory / "meta").glob("CDC_*.index")
    index.write_text(sorted(directory.glob("CDC_*.csv"))[0].name + "\n")


def _new_no_header(out: Path) -> None:
    path = sorted(_new_directory(out).glob("CDC_*.csv"))[0]
    path.write_bytes(path.read_bytes().split(b"\r\n", 1)[1])


def _new_no_schema_file(out: Path) -> None:
    table_id = _new_directory(out).parent.name
    for path in (out / table_id / "meta").glob("schema_*.json"):
        path.unlink()


NEW_BREAKS: dict[str, tuple[Callable[[Path], None], str]] = {
    "stale-index": (_new_stale_index, "index-newest"),
    "no-header": (_new_no_header, "file-complete"),
    "no-schema-file": (_new_no_schema_file, "schema-file"),
}


def test_the_new_layout_verifies(played_new: Path) -> None:
    assert not list(played_new.rglob("CDC.index"))
    report = verify(f"file://{played_new}?{NEW}")
    assert report.ok, report.violations
    assert report.kinds["FILE"] > 10


@pytest.mark.parametrize("case", list(NEW_BREAKS))
def test_each_break_of_the_new_layout_is_named(played_new: Path, tmp_path: Path, case: str) -> None:
    out = _copy(played_new, tmp_path)
    breaker, rule = NEW_BREAKS[case]
    breaker(out)
    report = verify(f"file://{out}?{NEW}")
    assert report.violation_counts[rule] >= 1, report.violations
