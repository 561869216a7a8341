"""MQSinkProvider: a sink that cannot be built leaves no producer open."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from tisink.codec.message import Record
from tisink.core.clock import FixedClock
from tisink.core.errors import TisinkError
from tisink.sink.capabilities import MQTarget, OpenedProducer
from tisink.sink.config import ChangefeedConfig
from tisink.sink.mq_provider import MQSinkProvider
from tisink.sink.uri import SinkURI, parse_sink_uri


class Recording:
    """A producer that only records whether it was closed."""

    closed = False

    async def partition_count(self, topic: str) -> int:
        return 1

    async def send(self, topic: str, partition: int, records: Sequence[Record]) -> None:
        return None

    async def close(self) -> None:
        self.closed = True


class Provider(MQSinkProvider):
    def __init__(self) -> None:
        super().__init__()
        self.opened: list[Recording] = []

    def mq_target(self, uri: SinkURI, config: ChangefeedConfig) -> MQTarget:
        return MQTarget("rec", config.with_uri(uri, ()), "t")

    async def open_producer(self, uri: SinkURI, target: MQTarget) -> OpenedProducer:
        producer = Recording()
        self.opened.append(producer)
        return OpenedProducer(producer)


# canal-json's claim-check needs enable-tidb-extension: only its encoder says so
BAD = "rec://x/t?protocol=canal-json&large-message-handle-option=claim-check&claim-check-storage-uri=file:///c"


@pytest.mark.parametrize("role", ["event", "ddl"])
async def test_a_sink_that_cannot_be_built_closes_its_producer(role: str) -> None:
    provider = Provider()
    uri = parse_sink_uri(BAD)
    create = provider.create_event_sink if role == "event" else provider.create_ddl_sink
    with pytest.raises(TisinkError, match="enable-tidb-extension"):
        await create(uri, ChangefeedConfig(), FixedClock(0))
    assert [p.closed for p in provider.opened] == [True]
