"""An MQ target: topics and partitions written through a ``Producer``.

A provider that subclasses ``MQSinkProvider`` and implements ``mq_target`` and
``open_producer`` gets TiCDC's MQ sinks over its producer (routing, every protocol, BOOTSTRAPs,
WATERMARKs) and Spark tasks that each own one (topic, partition) (``MQTargetProvider``). With a
``RecordSource`` (``tisink.plugin.capabilities.VerifiableProvider``) ``tisink verify`` reads the
stream back.
"""

from tisink.codec.message import Headers, Record
from tisink.eventsink.mq.producer import NumbersRecords, Producer
from tisink.eventsink.reading import OnRecord, RecordSource, StreamReadError
from tisink.sink.capabilities import MQTarget, MQTargetProvider, OpenedProducer
from tisink.sink.mq_provider import MQSinkProvider

__all__ = [
    "Headers",
    "MQSinkProvider",
    "MQTarget",
    "MQTargetProvider",
    "NumbersRecords",
    "OnRecord",
    "OpenedProducer",
    "Producer",
    "Record",
    "RecordSource",
    "StreamReadError",
]
