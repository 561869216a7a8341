"""``[integrity] corruption-handle-level``: ``warn`` (TiCDC's default) delivers a row marked
corrupted, flagged; ``error`` stops the changefeed before it, naming the row, and the
checkpoint stays below it. Only with ``integrity-check-level = "correctness"``, as in TiCDC,
and the ``corrupt-checksum`` fault, which is the warn level's delivery, is refused beside it."""

from __future__ import annotations

import base64
from pathlib import Path

import orjson
import pytest

from tisink.eventsink.blackhole import BlackholeSink
from tisink.feed.play_spec import PlaySpec
from tisink.feed.workload import generate_feed
from tisink.model.events import ResolvedTs, RowChangedEvent, RowChecksum
from tisink.model.table import ColumnInfo, IndexInfo, make_table
from tisink.model.tso import compose_ts
from tisink.play.errors import PlayFailed
from tisink.play.run import run_play
from tisink.sink.config import ChangefeedConfig
from tisink.sink.errors import ChangefeedConfigError, SinkError
from tisink.sink.factory import SinkFactory
from tisink.tablesink import CorruptedRowError

TABLE = make_table(
    "shop",
    "orders",
    7,
    compose_ts(1_700_000_000_000),
    [ColumnInfo("id", "bigint", nullable=False), ColumnInfo("note", "varchar", "utf8mb4")],
    [IndexInfo("primary", ("id",), unique=True, primary=True)],
)
CHECKSUMS = 'integrity-check-level = "correctness"\n'


def _rows(corrupted_at: int) -> list[RowChangedEvent]:
    ts = compose_ts(1_700_000_000_000)
    return [
        RowChangedEvent(
            ts + n - 1,
            ts + n,
            TABLE,
            None,
            {"id": n, "note": "x"},
            checksum=RowChecksum(2, n == corrupted_at, 1000 + n, 0),
        )
        for n in range(1, 5)
    ]


def _config(level: str, *, checksums: bool = True) -> ChangefeedConfig:
    text = f"[integrity]\n{CHECKSUMS if checksums else ''}corruption-handle-level = {level!r}\n"
    return ChangefeedConfig.from_toml(text.replace("'", '"'))


def test_error_stops_at_the_corrupted_row_and_names_its_key() -> None:
    factory = SinkFactory("blackhole://", _config("error"))
    event_sink = BlackholeSink()
    table_sink = factory.create_table_sink(TABLE.table_id, event_sink)
    rows = _rows(corrupted_at=3)
    table_sink.append_row_changed_events(rows[:2])
    with pytest.raises(CorruptedRowError) as caught:
        table_sink.append_row_changed_events(rows[2:])
    message = str(caught.value)
    assert "shop.orders" in message and "key (id=3)" in message
    assert f"commitTs={rows[2].commit_ts}" in message and '"error"' in message
    table_sink.update_resolved_ts(ResolvedTs.normal(rows[-1].commit_ts))
    assert event_sink.rows == 2, "nothing of the refused batch was buffered"


@pytest.mark.parametrize(("level", "checksums"), [("warn", True), ("error", False)])
def test_warn_or_no_checksums_deliver_the_row(level: str, checksums: bool) -> None:
    factory = SinkFactory("blackhole://", _config(level, checksums=checksums))
    event_sink = BlackholeSink()
    table_sink = factory.create_table_sink(TABLE.table_id, event_sink)
    rows = _rows(corrupted_at=3)
    table_sink.append_row_changed_events(rows)
    table_sink.update_resolved_ts(ResolvedTs.normal(rows[-1].commit_ts))
    assert event_sink.rows == len(rows)


def test_the_level_is_one_of_ticdcs() -> None:
    assert ChangefeedConfig().corruption_handle_level == "warn"
    with pytest.raises(ChangefeedConfigError, match="corruption-handle-level"):
        _config("panic")


def test_the_corrupt_checksum_fault_is_refused_under_error(tmp_path: Path) -> None:
    config = _config("error").with_setting("faults", "corrupt-checksum", "--faults")
    with pytest.raises(SinkError, match="corruption-handle-level"):
        SinkFactory(f"file://{tmp_path}?protocol=simple", config)


@pytest.mark.parametrize("engine", ["inline", "spark"])
def test_a_play_stops_before_a_feeds_corrupted_row(tmp_path: Path, engine: str) -> None:
    feed = tmp_path / "feed.jsonl"
    generate_feed("demo", 3, 400, feed, checksum_version=2, corrupt_nth=150)
    marked = [
        line
        for line in map(orjson.loads, feed.read_bytes().splitlines())
        if line.get("checksum", {}).get("corrupted")
    ]
    first = min(line["commitTs"] for line in marked)
    config = tmp_path / "changefeed.toml"
    config.write_text(f'[integrity]\n{CHECKSUMS}corruption-handle-level = "error"\n')
    out = tmp_path / "out"
    spec = PlaySpec(
        feed=feed,
        sink_uri=f"file://{out}?protocol=simple",
        config_path=config,
        engine=engine,
        master="local[1]",
        clock="feed",
    )
    with pytest.raises(PlayFailed) as caught:
        run_play(spec)
    summary = caught.value.summary.to_dict()
    assert "marked corrupted" in summary["error"] and "corruption-handle-level" in summary["error"]
    assert summary["checkpoint_ts"] < first
    written = [
        orjson.loads(value)
        for path in sorted(out.rglob("*.jsonl"))
        for value in _values(path)
        if value
    ]
    commits = [m["commitTs"] for m in written if m.get("type") in ("INSERT", "UPDATE", "DELETE")]
    assert commits and max(commits) < first


def _values(path: Path) -> list[bytes]:
    out = []
    for line in path.read_bytes().splitlines():
        record = orjson.loads(line)
        value = record.get("value")
        out.append(base64.b64decode(value) if value else b"")
    return out
