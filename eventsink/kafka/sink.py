"""Build the Kafka DML sink: producer, codec and bootstrap cadence around an MQDMLSink.

Kept out of the package ``__init__`` so that the Kafka plumbing imports without the codec.
"""

from __future__ import annotations

import dataclasses

from tisink.codec import new_encoder
from tisink.codec.bootstrap import BootstrapCadence
from tisink.codec.clock import Clock
from tisink.codec.config import EncoderConfig
from tisink.eventsink.kafka.config import KafkaConfig
from tisink.eventsink.kafka.producer import KafkaProducer, new_kafka_producer
from tisink.eventsink.mq.dml_sink import MQDMLSink
from tisink.eventsink.mq.encoder_group import new_encoder_group
from tisink.eventsink.router import EventRouter


def encoder_config_for(producer: KafkaProducer, encoder_config: EncoderConfig) -> EncoderConfig:
    """The encoder must check sizes against the producer's (possibly lowered) limit, as TiCDC
    passes the adjusted ``MaxMessageBytes`` to its encoder."""
    return dataclasses.replace(encoder_config, max_message_bytes=producer.max_message_bytes)


async def new_kafka_dml_sink(
    config: KafkaConfig,
    encoder_config: EncoderConfig,
    router: EventRouter,
    clock: Clock,
    *,
    max_inflight_bytes: int = 64 << 20,
    encoder_concurrency: int = 0,
) -> MQDMLSink:
    """Connect to Kafka and return the DML sink; closing the sink closes the producer."""
    producer = await new_kafka_producer(config)
    encoder_config = encoder_config_for(producer, encoder_config)
    return MQDMLSink(
        producer,
        new_encoder(encoder_config, clock),
        router,
        BootstrapCadence(encoder_config, clock),
        scheme="kafka",
        max_inflight_bytes=max_inflight_bytes,
        encoder_group=new_encoder_group(encoder_config, router, encoder_concurrency, clock),
    )
