"""SinkFactory: from a sink URI and a changefeed config to event, DDL and table sinks.

The one entry point the players, the Spark job, verify and the command line use, so every
scheme (built-in or plugin) is built the same way: parse the URI, let its parameters override
the config, ask the scheme's provider for the sinks. What else a scheme can do (an MQ target
Spark tasks can own, a stream verify can read, the UPDATE split) is asked here too, through the
provider's typed capabilities (``sink/capabilities.py``), never by naming a scheme.
"""

from __future__ import annotations

import logging
from typing import Any

from tisink.core.clock import Clock, WallClock
from tisink.ddlsink.base import DDLSink
from tisink.ddlsink.blackhole import BlackholeDDLSink
from tisink.eventsink.base import EventSink
from tisink.eventsink.capabilities import (
    acked_seconds,
    acknowledged_ends,
    merge_ends,
    merge_seconds,
)
from tisink.eventsink.faults import FaultPlan, InjectedFault, injected_faults, merge_faults
from tisink.eventsink.faults.spec import check_partitions
from tisink.eventsink.reading import RecordSource
from tisink.eventsink.stats import AckedSeconds, AcknowledgedEnds
from tisink.eventsink.storage.config import StorageLayout
from tisink.sink.capabilities import (
    ChoosesProvider,
    EventSinkProvider,
    FixedPartitions,
    HasDefaultProtocol,
    MQTarget,
    MQTargetProvider,
    OpenedProducer,
    OwnsURIParams,
    ReportsLeftovers,
    SinkProvider,
    UpdateSplitting,
    VerifiableProvider,
    WritesStorageLayout,
)
from tisink.sink.config import ChangefeedConfig
from tisink.sink.errors import SinkError
from tisink.sink.registry import load_provider
from tisink.sink.storage_provider import storage_protocols
from tisink.sink.uri import SinkURI, parse_sink_uri
from tisink.tablesink import AckLatency, TableSink
from tisink.tablesink.split import SplitPolicy

log = logging.getLogger(__name__)

_EVENT_SINK_MEMBERS = ("scheme", "wants_txn", "write_events", "error", "close")


class SinkFactory:
    """Builds the sinks of one changefeed; one provider instance serves all of them."""

    def __init__(
        self, uri: str, config: ChangefeedConfig | None = None, *, clock: Clock | None = None
    ) -> None:
        self.uri: SinkURI = parse_sink_uri(uri)
        self.provider: EventSinkProvider = load_provider(self.uri.scheme)
        # a plugin reads parameters of its own that tisink cannot know, so none is reported
        own_params = self.provider.uri_params if isinstance(self.provider, OwnsURIParams) else None
        self.config: ChangefeedConfig = (config or ChangefeedConfig()).with_uri(
            self.uri, own_params
        )
        if isinstance(self.provider, ChoosesProvider):
            self.provider = self.provider.provider_for(self.uri, self.config)
        self.clock: Clock = clock or WallClock()
        self.ack_latency = AckLatency()
        """Shared by the table sinks this factory builds: every play measures its latency."""
        self._created: list[object] = []
        target = self.mq_target()  # a target its scheme refuses (user:password@) fails here
        self.storage_layout()  # and a storage setting it refuses (date-separator=week)
        if self.config.faults:
            self._check_faults(self.config.faults, target)

    def _check_faults(self, plan: FaultPlan, target: MQTarget | None) -> None:
        """Delivery faults act on topics and partitions: a sink without them is refused, and
        so is a ``partition=`` past a partition count the scheme knows up front."""
        where = f"sink {self.uri.redacted()}"
        if target is None and self.storage_layout() is not None:
            raise SinkError(
                f"{where}: the storage layout (protocol {self.protocol}; the storage sink's "
                f"protocols: {', '.join(storage_protocols())}) writes files by table, without "
                "partitions, so delivery faults (--faults) do not apply; fault a stream: "
                "kafka://, or file:// with a stream protocol"
            )
        if target is None:
            raise SinkError(
                f"{where}: delivery faults (--faults) are injected into topics and partitions; "
                f"the {self.scheme}:// scheme has none (use kafka:// or file://)"
            )
        if isinstance(self.provider, FixedPartitions):
            check_partitions(plan, self.provider.partition_num(target), where)
        if plan.of("corrupt-checksum") is not None and self._stops_on_corrupted():
            raise SinkError(
                f"{where}: the corrupt-checksum fault delivers a row marked corrupted, as TiCDC "
                'does under [integrity] corruption-handle-level = "warn"; with "error" TiCDC '
                "stops the changefeed instead, so the fault cannot happen (use warn)"
            )

    @property
    def scheme(self) -> str:
        return self.uri.scheme

    @property
    def protocol(self) -> str | None:
        """The protocol the sinks encode with: the configured one, else the scheme's default
        (None: the scheme encodes nothing)."""
        if self.config.protocol:
            return self.config.protocol
        provider = self.provider
        return provider.default_protocol if isinstance(provider, HasDefaultProtocol) else None

    async def create_event_sink(self) -> EventSink[Any]:
        sink = await self.provider.create_event_sink(self.uri, self.config, self.clock)
        if not isinstance(sink, EventSink):  # a plugin's sink, checked against the Protocol
            missing = ", ".join(m for m in _EVENT_SINK_MEMBERS if m not in dir(sink))
            raise SinkError(
                f"the {self.scheme!r} provider returned {type(sink).__name__}, "
                f"which lacks EventSink.{missing}"
            )
        log.info("event sink %s ready for %s", type(sink).__name__, self.uri.redacted())
        self._created.append(sink)
        return sink

    async def create_ddl_sink(self) -> DDLSink:
        if not isinstance(self.provider, SinkProvider):
            log.info("scheme %r has no DDL sink; DDL and checkpoints are dropped", self.scheme)
            return BlackholeDDLSink()
        sink = await self.provider.create_ddl_sink(self.uri, self.config, self.clock)
        self._created.append(sink)
        return sink

    def acknowledged_offsets(self) -> AcknowledgedEnds:
        """What the destination acknowledged to the sinks this factory built, per partition
        (for verify's acknowledged-stored check); empty where the sinks do not track it."""
        return merge_ends(*(acknowledged_ends(sink) for sink in self._created))

    def injected_faults(self) -> list[InjectedFault]:
        """The faults the sinks this factory built injected (``--faults``), in offset order."""
        return merge_faults(injected_faults(sink) for sink in self._created)

    def acked_seconds(self) -> AckedSeconds:
        """Messages and bytes the sinks this factory built saw acknowledged, per epoch second
        (empty where the sinks do not count them)."""
        return merge_seconds(acked_seconds(sink) for sink in self._created)

    # --- what the scheme can do beyond its sinks -------------------------------------------

    def split_policy(self) -> SplitPolicy:
        """Whether key-changing UPDATEs are split: the table sinks' and the Spark first
        stage's one policy."""
        provider = self.provider
        splits = provider.splits_key_updates() if isinstance(provider, UpdateSplitting) else True
        return SplitPolicy.of(
            sink_splits=splits,
            output_raw_change_event=self.config.output_raw_change_event,
            newarch=self.config.newarch,
        )

    def mq_target(self) -> MQTarget | None:
        """The topics-and-partitions target of the URI; None when the scheme has none."""
        provider = self.provider
        if not isinstance(provider, MQTargetProvider):
            return None
        return provider.mq_target(self.uri, self.config)

    async def open_producer(self, target: MQTarget) -> OpenedProducer:
        """A new producer to ``target`` (``mq_target()``); the caller closes it."""
        provider = self.provider
        if not isinstance(provider, MQTargetProvider):
            raise SinkError(f"scheme {self.scheme!r} has no topics or partitions")
        return await provider.open_producer(self.uri, target)

    @property
    def verifiable(self) -> bool:
        """True when what the sinks write can be read back: a stream
        (``open_record_source``) or a storage layout (``storage_layout``)."""
        return isinstance(self.provider, VerifiableProvider | WritesStorageLayout)

    def storage_layout(self) -> StorageLayout | None:
        """The storage layout the sinks write; None when the scheme writes a stream."""
        provider = self.provider
        if not isinstance(provider, WritesStorageLayout):
            return None
        return provider.layout(self.uri, self.config)

    def open_record_source(self, config: ChangefeedConfig, timeout_s: float) -> RecordSource:
        """A reader of the stream at the URI, as ``config`` (verify's) describes it."""
        provider = self.provider
        if not isinstance(provider, VerifiableProvider):
            raise SinkError(f"scheme {self.scheme!r} has no reader: its stream cannot be verified")
        return provider.open_record_source(self.uri, config, timeout_s)

    def leftover_topics(self) -> list[str]:
        """Topics an earlier run left at the target (empty where the scheme cannot tell)."""
        provider = self.provider
        if not isinstance(provider, ReportsLeftovers):
            return []
        return provider.leftover_topics(self.uri, self.config)

    def create_table_sink(
        self, table_id: int, event_sink: EventSink[Any], start_ts: int = 0
    ) -> TableSink[Any]:
        return TableSink(
            table_id,
            event_sink,
            start_ts=start_ts,
            split=self.split_policy(),
            latency=self.ack_latency,
            stop_on_corrupted=self._stops_on_corrupted(),
        )

    def _stops_on_corrupted(self) -> bool:
        """TiCDC checks rows against their checksums only with ``integrity-check-level =
        "correctness"``; then ``corruption-handle-level = "error"`` stops on a corrupted one."""
        config = self.config
        return config.encoder.enable_row_checksum and config.corruption_handle_level == "error"
