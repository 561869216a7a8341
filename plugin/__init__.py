"""``tisink.plugin``: what a sink plugin imports, and nothing it should not.

A plugin distribution registers a provider under the ``tisink.sinks`` entry point group (the
entry point's name is the URI scheme) and imports only from this package, so tisink's internals
can move without breaking it::

    from tisink.plugin import Batch, BatchingSink, ChangefeedConfig, Clock, SinkURI

    class MySink(BatchingSink):
        scheme = "my"

        async def write_batch(self, batch: Batch) -> None: ...

    class MyProvider:                       # a SinkProvider
        async def create_event_sink(self, uri: SinkURI, config: ChangefeedConfig,
                                    clock: Clock) -> MySink: ...

The core below is the sink interfaces, the provider, the batching kit and the errors a plugin
raises. The rest is in sub-modules, imported as needed:

* ``tisink.plugin.events``: what a sink is handed (rows, transactions, DDLs, table schemas);
* ``tisink.plugin.codec``: the changefeed's protocol, for a sink that encodes what it writes;
* ``tisink.plugin.mq``: an MQ target (a ``Producer``; ``MQSinkProvider`` does the rest) and the
  reader ``tisink verify`` reads its stream with;
* ``tisink.plugin.capabilities``: what a sink or a provider can do beyond the interfaces
  (acknowledgement notifications, back-pressure, stats, Spark partitions, verify...), as typed
  Protocols the engines check for built-in and plugin sinks alike.

tisink's own ``log://`` sink (``logsink/``) is written against this package alone: read it to
write yours.
"""

from tisink.core.clock import Clock
from tisink.ddlsink.base import DDLSink
from tisink.eventsink.base import CallbackableEvent, EventSink
from tisink.eventsink.batching import Batch, BatchingSink, RetryPolicy
from tisink.eventsink.errors import RetriableError, SinkDeadError
from tisink.sink.capabilities import EventSinkProvider, SinkProvider
from tisink.sink.config import ChangefeedConfig
from tisink.sink.errors import SinkError, SinkURIError
from tisink.sink.uri import SinkURI

__all__ = [  # the sink interfaces, the provider, the batching kit, the errors (sorted)
    "Batch",
    "BatchingSink",
    "CallbackableEvent",
    "ChangefeedConfig",
    "Clock",
    "DDLSink",
    "EventSink",
    "EventSinkProvider",
    "RetriableError",
    "RetryPolicy",
    "SinkDeadError",
    "SinkError",
    "SinkProvider",
    "SinkURI",
    "SinkURIError",
]
