"""What a sink or a provider can do beyond the interfaces, as runtime-checkable Protocols.

The engines ask ``isinstance(sink, NotifiesAcks)`` and the like, never a scheme's name, so a
plugin that implements one of these is treated exactly as the built-ins that do (a sink with
``add_ack_listener`` is notified when acknowledgements arrive instead of polled while a player
drains). ``BatchingSink`` and the MQ sinks already implement what applies to them.

Sinks: ``NotifiesAcks``, ``BackPressured``, ``TracksInflight``, ``RunsTimers``,
``FlushesAtBarriers``, ``WritesBootstraps``, ``ReportsStats``, ``CountsAckedSeconds``,
``TracksAcknowledged``; DDL sinks: ``BootstrapsAtStart``. Providers: ``VerifiableProvider``,
``ReportsLeftovers``, ``FixedPartitions``, ``UpdateSplitting``, ``ChoosesProvider``,
``WritesStorageLayout``, ``OwnsURIParams``, ``HasDefaultProtocol`` (``MQTargetProvider`` is in
``tisink.plugin.mq``). The types their methods take or return come with them.
"""

from tisink.codec.bootstrap import BootstrapSend
from tisink.ddlsink.base import BootstrapsAtStart
from tisink.eventsink.capabilities import (
    BackPressured,
    CountsAckedSeconds,
    FlushesAtBarriers,
    NotifiesAcks,
    ReportsStats,
    RunsTimers,
    TracksAcknowledged,
    TracksInflight,
    WritesBootstraps,
)
from tisink.eventsink.stats import AckedSeconds, AcknowledgedEnds, SinkStats
from tisink.eventsink.storage.config import StorageLayout
from tisink.sink.capabilities import (
    ChoosesProvider,
    FixedPartitions,
    HasDefaultProtocol,
    OwnsURIParams,
    ReportsLeftovers,
    UpdateSplitting,
    VerifiableProvider,
    WritesStorageLayout,
)

__all__ = [
    "AckedSeconds",
    "AcknowledgedEnds",
    "BackPressured",
    "BootstrapSend",
    "BootstrapsAtStart",
    "ChoosesProvider",
    "CountsAckedSeconds",
    "FixedPartitions",
    "FlushesAtBarriers",
    "HasDefaultProtocol",
    "NotifiesAcks",
    "OwnsURIParams",
    "ReportsLeftovers",
    "ReportsStats",
    "RunsTimers",
    "SinkStats",
    "StorageLayout",
    "TracksAcknowledged",
    "TracksInflight",
    "UpdateSplitting",
    "VerifiableProvider",
    "WritesBootstraps",
    "WritesStorageLayout",
]
