"""What schemes can do beyond building sinks, asked through the providers' typed capabilities:
the built-ins declare exactly what the engines used to switch on scheme names for."""

from __future__ import annotations

from typing import Any

import pytest

from tisink.codec.message import MessageType
from tisink.core.clock import Clock
from tisink.eventsink.blackhole import BlackholeSink
from tisink.eventsink.reading import FileRecordSource
from tisink.eventsink.stats import SinkStats
from tisink.model.events import ResolvedTs, RowChangedEvent
from tisink.model.table import ColumnInfo, IndexInfo, make_table
from tisink.sink import SinkFactory, registry
from tisink.sink.capabilities import (
    MQTargetProvider,
    ReportsLeftovers,
    SinkProvider,
    UpdateSplitting,
    VerifiableProvider,
)
from tisink.sink.config import ChangefeedConfig
from tisink.sink.errors import SinkError
from tisink.sink.uri import SinkURI
from tisink.tablesink.split import SplitPolicy
from tisink.verify import VerifyError, verify


@pytest.mark.parametrize(
    ("scheme", "mq", "verifiable"),
    [
        ("file", True, True),
        ("kafka", True, True),
        ("log", False, False),
        ("blackhole", False, False),
    ],
)
def test_built_ins_declare_what_they_can_do(scheme: str, mq: bool, verifiable: bool) -> None:
    if scheme == "kafka" and "kafka" not in registry.available_schemes():
        pytest.skip("aiokafka missing")
    provider = registry.load_provider(scheme)
    assert isinstance(provider, SinkProvider)
    assert isinstance(provider, MQTargetProvider) is mq
    assert isinstance(provider, VerifiableProvider) is verifiable


def test_mq_target_and_reader_of_a_file_uri(tmp_path) -> None:
    factory = SinkFactory(f"file://{tmp_path}?partition-num=2&topic=t")
    target = factory.mq_target()
    assert target is not None
    assert (target.scheme, target.default_topic) == ("file", "t")
    assert target.config.encoder.spec.name == "debug"  # the scheme's default protocol
    assert factory.verifiable
    source = factory.open_record_source(factory.config, 1.0)
    assert isinstance(source, FileRecordSource) and source.continuous_offsets
    assert factory.leftover_topics() == []
    assert SinkFactory("log://").mq_target() is None
    with pytest.raises(SinkError, match="cannot be verified"):
        SinkFactory("log://").open_record_source(ChangefeedConfig(), 1.0)


def test_verify_refuses_a_scheme_without_a_reader() -> None:
    with pytest.raises(VerifyError, match="log:// sinks: the scheme has no reader"):
        verify("log://?protocol=simple")


class _WholeUpdates:
    """A MySQL-like destination: UPDATEs reach it whole (TiCDC ``IsMySQLCompatibleScheme``)."""

    async def create_event_sink(self, uri: SinkURI, config: ChangefeedConfig, clock: Clock) -> Any:
        return BlackholeSink()

    def splits_key_updates(self) -> bool:
        return False


def test_one_split_policy_from_the_provider(monkeypatch) -> None:
    assert isinstance(_WholeUpdates(), UpdateSplitting)
    monkeypatch.setattr(registry, "_plugins", lambda: {})
    monkeypatch.setitem(registry._BUILT_INS, "whole", _WholeUpdates)
    classic = ChangefeedConfig(newarch=False)
    assert not SinkFactory("whole://x", classic).split_policy().enabled
    assert SinkFactory("blackhole://", classic).split_policy().enabled
    raw = ChangefeedConfig(output_raw_change_event=True, newarch=False)
    assert not SinkFactory("blackhole://", raw).split_policy().enabled
    # the new architecture splits in its event service for every sink, and only the sinks
    # that are not MySQL-compatible read output-raw-change-event
    assert SinkFactory("whole://x").split_policy() == SplitPolicy(True, True)
    raw = ChangefeedConfig(output_raw_change_event=True)
    assert SinkFactory("whole://x", raw).split_policy().enabled
    assert not SinkFactory("blackhole://", raw).split_policy().enabled


async def test_a_whole_update_reaches_a_sink_that_takes_it_whole(monkeypatch) -> None:
    monkeypatch.setitem(registry._BUILT_INS, "whole", _WholeUpdates)
    factory = SinkFactory("whole://x", ChangefeedConfig(newarch=False))
    seen: list[Any] = []

    class Recording(BlackholeSink):
        def write_events(self, events):  # type: ignore[no-untyped-def]
            seen.extend(e.event for e in events)
            super().write_events(events)

    sink = Recording()
    primary = IndexInfo("primary", ("id",), unique=True, primary=True)
    table = make_table("s", "t", 7, 1, [ColumnInfo("id", "int", nullable=False)], [primary])
    table_sink = factory.create_table_sink(7, sink)
    update = RowChangedEvent(1, 2, table, before={"id": 1}, after={"id": 2})
    table_sink.append_row_changed_events([update])
    table_sink.update_resolved_ts(ResolvedTs.normal(2))
    await table_sink.close()
    assert seen == [update]  # the blackhole takes rows: one UPDATE, not DELETE + INSERT
    assert SinkFactory("blackhole://").split_policy().halves(update) is not None


def test_leftover_topics_of_a_used_file_folder(tmp_path) -> None:
    (tmp_path / "cdc").mkdir()
    (tmp_path / "cdc" / "partition-0.jsonl").write_text("")
    assert SinkFactory(f"file://{tmp_path}").leftover_topics() == ["cdc"]
    assert isinstance(registry.load_provider("file"), ReportsLeftovers)


def test_sink_stats_add_up_by_message_type() -> None:
    a = SinkStats(messages={MessageType.DML: 3}, bytes=10, rows=3)
    b = SinkStats(messages={MessageType.DML: 1, MessageType.WATERMARK: 2}, bytes=5, retries=1)
    total = SinkStats.total([a, b])
    assert total.messages == {MessageType.DML: 4, MessageType.WATERMARK: 2}
    assert (total.bytes, total.rows, total.retries, total.message_count()) == (15, 3, 1, 6)
    assert total.to_dict() == {
        "messages": {"DML": 4, "WATERMARK": 2},
        "bytes": 15,
        "rows": 3,
        "retries": 1,
    }
