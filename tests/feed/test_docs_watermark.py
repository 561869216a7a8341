"""The Simple Protocol documentation example played inline: the feed's ``resolved`` record at
447984124732375041 gets its WATERMARK in every partition, byte-equal to the documented one
(``golden/docs-examples/watermark.json``) but for ``buildTs``, which is the play's clock."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import orjson

from tests.docs_examples import DOCS_DELETE_TS, DOCS_INSERT_TS, DOCS_UPDATE_TS, docs_row
from tisink.core.clock import FeedClock
from tisink.eventsink.file import read_file_topic
from tisink.feed.format.reader import read_feed
from tisink.feed.inline import play_with_factory
from tisink.sink.factory import SinkFactory

PARTITIONS = 3
BUILD_TS = re.compile(rb'"buildTs":\d+')


def _docs_feed(simple_golden: Path, path: Path, resolved_ts: int) -> Path:
    """The docs' ``simple.new_user`` table: CREATE, INSERT, UPDATE, DELETE, the resolved
    record whose WATERMARK the docs show, and one more row."""
    boot = orjson.loads((simple_golden / "docs-examples" / "bootstrap.json").read_bytes())
    schema = boot["tableSchema"]
    john = {"id": 1, "name": "John Doe", "age": 25, "score": 90.5}
    records = [
        {
            "type": "ddl",
            "commitTs": schema["version"],
            "startTs": schema["version"] - 3,
            "ddlType": "CREATE",
            "query": "CREATE TABLE `simple`.`new_user` (...)",
            "table": schema,
        },
        docs_row(DOCS_INSERT_TS, "INSERT", after=john),
        docs_row(DOCS_UPDATE_TS, "UPDATE", after={**john, "score": 95}, before=john),
        docs_row(DOCS_DELETE_TS, "DELETE", before={**john, "score": 95}),
        {"type": "resolved", "ts": resolved_ts},
        # a later row, so the play's final point is not the resolved ts itself
        docs_row(resolved_ts + (2000 << 18), "INSERT", after={**john, "id": 2}),
    ]
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


def test_the_docs_resolved_record_gets_the_documented_watermark(
    simple_golden: Path, tmp_path: Path
) -> None:
    golden = (simple_golden / "docs-examples" / "watermark.json").read_bytes().strip()
    resolved_ts = orjson.loads(golden)["commitTs"]
    feed = _docs_feed(simple_golden, tmp_path / "docs.jsonl", resolved_ts)
    out = tmp_path / "out"
    uri = f"file://{out}?protocol=simple&partition-num={PARTITIONS}"
    asyncio.run(play_with_factory(read_feed(feed), SinkFactory(uri, clock=FeedClock())))

    watermarks: dict[int, list[bytes]] = {}
    for partition, _, _, value in read_file_topic(out, "tidb-cdc"):
        if orjson.loads(value)["type"] == "WATERMARK":
            watermarks.setdefault(partition, []).append(value)
    assert sorted(watermarks) == list(range(PARTITIONS))
    expected = BUILD_TS.sub(b"", golden)
    for partition, values in watermarks.items():
        at_resolved = [v for v in values if orjson.loads(v)["commitTs"] == resolved_ts]
        assert len(at_resolved) == 1, (partition, values)
        assert BUILD_TS.sub(b"", at_resolved[0]) == expected
        # and every WATERMARK of the play carries a point, in order
        stamps = [orjson.loads(v)["commitTs"] for v in values]
        assert stamps == sorted(set(stamps))
