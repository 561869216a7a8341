"""Issue 44 item 10: ``--append`` after a killed play continues the storage layout from what it
holds (the ``metadata`` checkpoint, then the rows its files hold past it): verify passes and
every row of the feed is stored once."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.eventsink.storage.support import (
    data_files,
    demo_feed,
    kill_mid_play,
    play,
    stored_rows,
)
from tisink.eventsink.storage.resume import read_checkpoint
from tisink.sink.factory import SinkFactory
from tisink.verify import verify
from tisink.verify.storage_rows import read_rows

LAYOUTS = [
    "protocol=csv&date-separator=none&include-commit-ts=true&file-size=8192",
    "protocol=canal-json&enable-tidb-extension=true&date-separator=none&file-size=16384",
    "protocol=canal-json&date-separator=none&file-size=16384",
    # the new architecture's options, and the classic architecture
    "protocol=csv&date-separator=none&include-commit-ts=true&file-size=8192"
    "&enable-table-across-nodes=true&use-table-id-as-path=true&output-field-header=true",
    "protocol=csv&date-separator=none&include-commit-ts=true&file-size=8192&newarch=false",
]


def _stored(uri: str) -> Counter[tuple[str, int]]:
    """(schema.table, commit ts) of every row in the layout's indexed files."""
    layout = SinkFactory(uri).storage_layout()
    assert layout is not None
    found: Counter[tuple[str, int]] = Counter()
    for path in sorted(p for p in data_files(layout.root) if p.suffix == layout.extension):
        data = path.read_bytes()
        for row in read_rows(data, layout.encoder, layout.config.terminator, str(path)):
            assert row.commit_ts is not None
            found[(f"{row.schema}.{row.table}", row.commit_ts)] += 1
    return found


@pytest.mark.parametrize("params", LAYOUTS)
def test_append_after_a_kill_continues_where_the_files_end(tmp_path: Path, params: str) -> None:
    feed = demo_feed(tmp_path, 20000)
    out = tmp_path / "out"
    uri = f"file://{out}?{params}"
    kill_mid_play(feed, out, params)
    checkpoint = read_checkpoint(out)
    assert checkpoint is not None and checkpoint > 0
    summary = play(feed, uri, append=True)
    assert summary["error"] is None
    assert read_checkpoint(out) == max(row.commit_ts for row in stored_rows(feed))
    report = verify(uri)
    assert report.ok, report.violations
    expected = Counter((row.table.qualified_name, row.commit_ts) for row in stored_rows(feed))
    if "include-commit-ts" in params or "tidb-extension" in params:
        assert _stored(uri) == expected  # each row once: none again past the checkpoint


@pytest.mark.parametrize("params", LAYOUTS)
def test_append_skips_the_rows_stored_past_the_checkpoint(tmp_path: Path, params: str) -> None:
    """A run stopped after its files but before ``metadata`` caught up (here: a whole play
    whose checkpoint is set back to the middle of the feed): the rows past the checkpoint
    that the files hold are not written again."""
    feed = demo_feed(tmp_path, 3000)
    out = tmp_path / "out"
    uri = f"file://{out}?{params}"
    assert play(feed, uri)["verified"] is True
    rows = stored_rows(feed)
    middle = rows[len(rows) // 2].commit_ts
    (out / "metadata").write_bytes(b'{"checkpoint-ts":%d}' % middle)
    before = sorted(p.name for p in out.rglob("*"))
    summary = play(feed, uri, append=True)
    assert summary["error"] is None
    assert sorted(p.name for p in out.rglob("*")) == before  # no file written again
    assert read_checkpoint(out) == rows[-1].commit_ts
    assert verify(uri).ok
