"""Errors of the Kafka producer, topic manager and configuration."""

from tisink.eventsink.errors import EventSinkError


class KafkaSinkError(EventSinkError):
    """Kafka refused or lost something for good; names the topic, partition and cause."""


class KafkaConfigError(KafkaSinkError):
    """A Kafka sink setting (sink URI parameter or ``[sink.kafka-config]`` key) is invalid."""


class KafkaUnreachableError(KafkaSinkError):
    """No bootstrap server answered within the dial timeout."""


class KafkaMessageTooLargeError(KafkaSinkError):
    """A message is over ``max-message-bytes`` (sarama's ErrMessageSizeTooLarge)."""


class KafkaDataLossError(KafkaSinkError):
    """The broker no longer holds messages it acknowledged: an acknowledged offset went back or
    a topic it had acknowledged messages for disappeared."""
