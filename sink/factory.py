"""SinkFactory: from a sink URI and a changefeed config to event, DDL and table sinks.

The one entry point the player and the command line use, so every scheme (built-in or plugin)
is built the same way: parse the URI, let its parameters override the config, ask the scheme's
provider for the sinks.
"""

from __future__ import annotations

import logging

from tisink.core.clock import Clock, WallClock
from tisink.ddlsink.base import DDLSink
from tisink.ddlsink.blackhole import BlackholeDDLSink
from tisink.eventsink.base import EventSink
from tisink.eventsink.mq.producer import AcknowledgedEnds, acknowledged_ends, merge_ends
from tisink.eventsink.mq.stats import AckedSeconds, acked_seconds, merge_seconds
from tisink.sink.config import ChangefeedConfig
from tisink.sink.errors import SinkError
from tisink.sink.registry import load_provider
from tisink.sink.uri import SinkURI, parse_sink_uri
from tisink.tablesink import AckLatency, TableSink

log = logging.getLogger(__name__)


class SinkFactory:
    """Builds the sinks of one changefeed; one provider instance serves all of them."""

    def __init__(
        self, uri: str, config: ChangefeedConfig | None = None, *, clock: Clock | None = None
    ) -> None:
        self.uri: SinkURI = parse_sink_uri(uri)
        self.provider = load_provider(self.uri.scheme)
        # a plugin reads parameters of its own that tisink cannot know, so none is reported
        own_params = getattr(self.provider, "uri_params", None)
        self.config: ChangefeedConfig = (config or ChangefeedConfig()).with_uri(
            self.uri, own_params
        )
        self.clock: Clock = clock or WallClock()
        self.ack_latency = AckLatency()
        """Shared by the table sinks this factory builds: every play measures its latency."""
        self._created: list[object] = []

    @property
    def scheme(self) -> str:
        return self.uri.scheme

    @property
    def protocol(self) -> str | None:
        """The protocol the sinks encode with: the configured one, else the scheme's default
        (None: the scheme encodes nothing)."""
        return self.config.protocol or getattr(self.provider, "default_protocol", None)

    async def create_event_sink(self) -> EventSink:
        sink = await self.provider.create_event_sink(self.uri, self.config, self.clock)
        for member in ("write_events", "close", "wants_txn"):
            if not hasattr(sink, member):
                raise SinkError(
                    f"the {self.scheme!r} provider returned {type(sink).__name__}, "
                    f"which lacks EventSink.{member}"
                )
        log.info("event sink %s ready for %s", type(sink).__name__, self.uri.redacted())
        self._created.append(sink)
        return sink

    async def create_ddl_sink(self) -> DDLSink:
        create = getattr(self.provider, "create_ddl_sink", None)
        if create is None:
            log.info("scheme %r has no DDL sink; DDL and checkpoints are dropped", self.scheme)
            return BlackholeDDLSink()
        sink: DDLSink = await create(self.uri, self.config, self.clock)
        self._created.append(sink)
        return sink

    def acknowledged_offsets(self) -> AcknowledgedEnds:
        """What the destination acknowledged to the sinks this factory built, per partition
        (for verify's acknowledged-stored check); empty where the sinks do not track it."""
        return merge_ends(*(acknowledged_ends(sink) for sink in self._created))

    def acked_seconds(self) -> AckedSeconds:
        """Messages and bytes the sinks this factory built saw acknowledged, per epoch second
        (empty where the sinks do not count them)."""
        return merge_seconds(acked_seconds(sink) for sink in self._created)

    def create_table_sink(
        self, table_id: int, event_sink: EventSink, start_ts: int = 0
    ) -> TableSink:
        return TableSink(
            table_id,
            event_sink,
            start_ts=start_ts,
            output_raw_change_event=self.config.output_raw_change_event,
            latency=self.ack_latency,
        )
