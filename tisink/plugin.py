"""``tisink.plugin``: everything a sink plugin imports, and nothing it should not.

A plugin distribution registers a provider under the ``tisink.sinks`` entry point group (the
entry point's name is the URI scheme) and imports only from here, so tisink's internals can
move without breaking it::

    from tisink.plugin import Batch, BatchingSink, SinkURI, ChangefeedConfig, Clock

    class MySink(BatchingSink):
        scheme = "my"

        async def write_batch(self, batch: Batch) -> None: ...

    class MyProvider:                       # a SinkProvider
        async def create_event_sink(self, uri: SinkURI, config: ChangefeedConfig,
                                    clock: Clock) -> MySink: ...

What a provider can do beyond building sinks it declares by implementing a capability: an
``MQTargetProvider`` (``MQSinkProvider`` does the rest given a ``Producer``) gets Spark tasks
that each own one (topic, partition); a ``VerifiableProvider`` (a ``RecordSource``) gets
``tisink verify``; ``UpdateSplitting`` says whether key-changing UPDATEs arrive split. A sink
gets back-pressure, stats and the rest by implementing the protocols of the second group.
"""

from tisink.codec.message import Headers, Message, MessageType, Record
from tisink.core.clock import Clock, FeedClock, FixedClock, WallClock
from tisink.core.errors import ConfigError, TisinkError
from tisink.ddlsink.base import BootstrapsAtStart, DDLSink
from tisink.eventsink.base import CallbackableEvent, EventSink, StateRef, TableSinkState
from tisink.eventsink.batching import Batch, BatchingSink, RetryPolicy
from tisink.eventsink.capabilities import (
    BackPressured,
    CountsAckedSeconds,
    ReportsStats,
    RunsTimers,
    TracksAcknowledged,
    TracksInflight,
)
from tisink.eventsink.errors import EventSinkError, RetriableError, SinkDeadError
from tisink.eventsink.mq.producer import NumbersRecords, Producer
from tisink.eventsink.reading import OnRecord, RecordSource, StreamReadError
from tisink.eventsink.stats import AckedSeconds, AcknowledgedEnds, SinkStats
from tisink.model.events import (
    DDLEvent,
    DDLType,
    Image,
    ResolvedTs,
    RowChangedEvent,
    RowOp,
    SingleTableTxn,
)
from tisink.model.mysqltypes import TypeFamily
from tisink.model.table import ColumnInfo, IndexInfo, TableInfo
from tisink.sink.capabilities import (
    EventSinkProvider,
    HasDefaultProtocol,
    MQTarget,
    MQTargetProvider,
    OpenedProducer,
    OwnsURIParams,
    ReportsLeftovers,
    SinkProvider,
    UpdateSplitting,
    VerifiableProvider,
)
from tisink.sink.config import ChangefeedConfig
from tisink.sink.errors import ChangefeedConfigError, SinkError, SinkURIError
from tisink.sink.mq_provider import MQSinkProvider
from tisink.sink.uri import SinkURI

__all__ = [  # grouped in the module docstring's order; sorted here
    "AckedSeconds",
    "AcknowledgedEnds",
    "BackPressured",
    "Batch",
    "BatchingSink",
    "BootstrapsAtStart",
    "CallbackableEvent",
    "ChangefeedConfig",
    "ChangefeedConfigError",
    "Clock",
    "ColumnInfo",
    "ConfigError",
    "CountsAckedSeconds",
    "DDLEvent",
    "DDLSink",
    "DDLType",
    "EventSink",
    "EventSinkError",
    "EventSinkProvider",
    "FeedClock",
    "FixedClock",
    "HasDefaultProtocol",
    "Headers",
    "Image",
    "IndexInfo",
    "MQSinkProvider",
    "MQTarget",
    "MQTargetProvider",
    "Message",
    "MessageType",
    "NumbersRecords",
    "OnRecord",
    "OpenedProducer",
    "OwnsURIParams",
    "Producer",
    "Record",
    "RecordSource",
    "ReportsLeftovers",
    "ReportsStats",
    "ResolvedTs",
    "RetriableError",
    "RetryPolicy",
    "RowChangedEvent",
    "RowOp",
    "RunsTimers",
    "SingleTableTxn",
    "SinkDeadError",
    "SinkError",
    "SinkProvider",
    "SinkStats",
    "SinkURI",
    "SinkURIError",
    "StateRef",
    "StreamReadError",
    "TableInfo",
    "TableSinkState",
    "TisinkError",
    "TracksAcknowledged",
    "TracksInflight",
    "TypeFamily",
    "UpdateSplitting",
    "VerifiableProvider",
    "WallClock",
]
