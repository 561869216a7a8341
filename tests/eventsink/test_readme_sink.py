"""The complete plugin of the documentation's "Writing a sink" section, run as written: the demo
workload through the real player into its JSON Lines file."""

from __future__ import annotations

import json
import re
import types
from pathlib import Path

from tisink.core.clock import WallClock
from tisink.feed import play_inline
from tisink.feed.format.records import FeedDDL, FeedRow
from tisink.feed.workload import generate_records
from tisink.sink.config import ChangefeedConfig
from tisink.sink.uri import parse_sink_uri
from tisink.tablesink import TableSink

README = Path(__file__).resolve().parents[2] / "docs" / "sinks.md"


def readme_plugin() -> types.ModuleType:
    section = README.read_text(encoding="utf-8").split("## Writing a sink", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert code is not None, "the section has no python example"
    module = types.ModuleType("tisink_jsonl")
    exec(compile(code.group(1), "docs/sinks.md:tisink_jsonl", "exec"), module.__dict__)
    return module


async def test_the_readme_plugin_writes_every_row_and_ddl(tmp_path):
    plugin = readme_plugin()
    provider = plugin.JsonLinesProvider()
    uri = parse_sink_uri(f"jsonl://{tmp_path}/cdc.jsonl")
    sink = await provider.create_event_sink(uri, ChangefeedConfig(), WallClock())
    assert await provider.create_ddl_sink(uri, ChangefeedConfig(), WallClock()) is sink
    records = list(generate_records("demo", 2, 2000))
    try:
        await play_inline(records, sink, sink, lambda tid: TableSink(tid, sink))
    finally:
        await sink.close()
    lines = [json.loads(line) for line in (tmp_path / "cdc.jsonl").read_text().splitlines()]
    rows = [line for line in lines if "op" in line]
    assert len(rows) == sum(type(r) is FeedRow for r in records)
    assert len(lines) - len(rows) == sum(type(r) is FeedDDL for r in records)
    by_table: dict[str, list[int]] = {}
    for row in rows:
        by_table.setdefault(row["table"], []).append(row["commitTs"])
    assert all(ts == sorted(ts) for ts in by_table.values())
