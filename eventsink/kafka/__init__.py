"""The Kafka side of the MQ sinks: settings, topic manager and the aiokafka producer.

``new_kafka_dml_sink`` (in ``eventsink.kafka.sink``) joins them with the codec and router into
an MQDMLSink; ``ddlsink.kafka.new_kafka_ddl_sink`` does the same for DDL and watermarks.
"""

from tisink.eventsink.kafka.config import DEFAULT_PARTITION_NUM, KafkaConfig
from tisink.eventsink.kafka.errors import (
    KafkaConfigError,
    KafkaMessageTooLargeError,
    KafkaSinkError,
    KafkaUnreachableError,
)
from tisink.eventsink.kafka.producer import RECORD_OVERHEAD, KafkaProducer, new_kafka_producer
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
