"""The Kafka side of the MQ sinks: settings, topic manager and the aiokafka producer.

The sink layer's MQ assembly (``sink.providers``) puts a producer behind the MQ DML and DDL
sinks, as it does for the file producer.
"""

from tisink.core.framing import RECORD_OVERHEAD
from tisink.eventsink.kafka.config import DEFAULT_PARTITION_NUM, KafkaConfig
from tisink.eventsink.kafka.errors import (
    KafkaConfigError,
    KafkaMessageTooLargeError,
    KafkaSinkError,
    KafkaUnreachableError,
)
from tisink.eventsink.kafka.producer import KafkaProducer, new_kafka_producer
from tisink.eventsink.kafka.topic_manager import KafkaTopicManager

__all__ = [
    "DEFAULT_PARTITION_NUM",
    "RECORD_OVERHEAD",
    "KafkaConfig",
    "KafkaConfigError",
    "KafkaMessageTooLargeError",
    "KafkaProducer",
    "KafkaSinkError",
    "KafkaTopicManager",
    "KafkaUnreachableError",
    "new_kafka_producer",
]
