"""The ``tisink.sinks`` entry point path with a real installed plugin (tests/plugin_dist).

The plugin is built and installed by pip into a temporary target folder; a fresh interpreter
with that folder on its path must list the scheme and build working sinks from ``memory://``,
whose event sink tells its listeners of each acknowledgement.
``test_plugin_capabilities`` plays its MQ target ``queue://`` on Spark and verifies it.
"""

from __future__ import annotations

import json

import pytest

from tests.sink.plugin_support import install_plugin_dist, run_python

CHECK = """
import asyncio, json
from tisink.model.events import ResolvedTs, RowChangedEvent
from tisink.model.table import ColumnInfo, make_table
from tisink.plugin.capabilities import NotifiesAcks
from tisink.sink import SinkFactory
from tisink.sink.capabilities import declared_capabilities
from tisink.sink.registry import available_schemes, load_provider
import tisink_memory_sink

async def main():
    factory = SinkFactory("memory://?name=probe")
    event_sink = await factory.create_event_sink()
    acked = asyncio.Event()
    event_sink.add_ack_listener(acked.set)
    ddl_sink = await factory.create_ddl_sink()
    table = make_table("s", "t", 7, 1, [ColumnInfo("id", "int")])
    table_sink = factory.create_table_sink(7, event_sink)
    table_sink.append_row_changed_events([RowChangedEvent(1, 2, table, after={"id": 1})])
    table_sink.update_resolved_ts(ResolvedTs.normal(2))
    await asyncio.wait_for(acked.wait(), 10)
    await ddl_sink.write_checkpoint_ts(2, [table])
    checkpoint = table_sink.get_checkpoint_ts().resolved_mark
    await table_sink.close()
    await event_sink.close()
    await ddl_sink.close()
    store = tisink_memory_sink.STORES["probe"]
    return {
        "schemes": available_schemes(),
        "sink": type(event_sink).__name__,
        "notifies_acks": isinstance(event_sink, NotifiesAcks),
        "rows": len(store["rows"]),
        "checkpoint": checkpoint,
        "watermarks": store["checkpoints"],
        "closed": store["closed"],
        "declared": {s: declared_capabilities(load_provider(s)) for s in ("memory", "queue")},
    }

print(json.dumps(asyncio.run(main())))
"""


@pytest.mark.timeout(180)
def test_installed_plugin_scheme_is_listed_and_works(tmp_path):
    env = install_plugin_dist(tmp_path)
    result = json.loads(run_python(CHECK, env))
    assert result["schemes"]["memory"] == "tisink-memory-sink"
    assert result["schemes"]["file"] == "built-in"
    assert result["sink"] == "MemoryEventSink" and result["notifies_acks"]
    assert (result["rows"], result["checkpoint"], result["watermarks"]) == (1, 2, [2])
    assert result["closed"] == ["event sink", "ddl sink"]
    assert result["declared"] == {"memory": ["ddl"], "queue": ["ddl", "spark partitions", "verify"]}


def test_without_the_plugin_the_scheme_is_unknown():
    from tisink.sink.registry import available_schemes

    assert "memory" not in available_schemes()
