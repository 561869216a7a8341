"""A generated feed can carry TiCDC's row checksums (issue 47): every row of ``tisink
generate``'s file with its checksum, every Nth marked corrupted; without the option the bytes
are the same as before."""

from __future__ import annotations

from pathlib import Path

from tisink.codec import checksum
from tisink.feed import FeedRow, read_feed
from tisink.feed.workload.generator import generate_feed


def test_a_generated_feed_carries_checksums(tmp_path: Path) -> None:
    plain, carried = tmp_path / "plain.jsonl", tmp_path / "carried.jsonl"
    generate_feed("demo", 3, 400, plain)
    counts = generate_feed("demo", 3, 400, carried, checksum_version=2, corrupt_nth=50)
    assert b'"checksum"' not in plain.read_bytes()
    rows = [r.row for r in read_feed(carried) if isinstance(r, FeedRow)]
    assert len(rows) == counts["rows"]
    assert all(r.checksum is not None and r.checksum.version == 2 for r in rows)
    flagged = [r for r in rows if r.checksum is not None and r.checksum.corrupted]
    assert len(flagged) == len(rows) // 50
    assert all(checksum.mismatches(r) == [] for r in rows if r not in flagged)
    assert all(checksum.mismatches(r)[0] == "corrupted" for r in flagged)
    plain_rows = [r.row for r in read_feed(plain) if isinstance(r, FeedRow)]
    assert [(r.commit_ts, r.before, r.after) for r in plain_rows] == [
        (r.commit_ts, r.before, r.after) for r in rows
    ]
