"""The Kafka side of the MQ sinks: settings, topic manager, the aiokafka producer, and the
librdkafka reader verify reads a stream back with (``reader.py``).

The sink layer's Kafka provider (``sink.providers``, through ``sink.mq_sinks``) puts the
producer behind the MQ DML and DDL sinks, as the file provider does its file producer.
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
