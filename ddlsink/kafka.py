"""Build the Kafka DDL sink: its own producer (TiCDC's DDL path has a separate, synchronous
producer) and codec around an MQDDLSink."""

from __future__ import annotations

from tisink.codec import new_encoder
from tisink.codec.clock import Clock
from tisink.codec.config import EncoderConfig
from tisink.ddlsink.mq import MQDDLSink
from tisink.eventsink.kafka.config import KafkaConfig
from tisink.eventsink.kafka.producer import new_kafka_producer
from tisink.eventsink.kafka.sink import encoder_config_for
from tisink.eventsink.router import EventRouter


async def new_kafka_ddl_sink(
    config: KafkaConfig, encoder_config: EncoderConfig, router: EventRouter, clock: Clock
) -> MQDDLSink:
    """Connect to Kafka and return the DDL sink; closing the sink closes the producer."""
    producer = await new_kafka_producer(config)
    return MQDDLSink(
        producer, new_encoder(encoder_config_for(producer, encoder_config), clock), router
    )
