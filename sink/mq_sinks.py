"""The one assembly of TiCDC's MQ sinks over any producer: encoder, router, bootstrap cadence,
heartbeats, encoder group and the per-partition sequence header.

Used by the built-in MQ schemes (Kafka, files), by Spark's partition owners and by plugins that
bring a producer of their own (``MQSinkProvider``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from tisink.codec import new_encoder
from tisink.codec.bootstrap import BootstrapCadence
from tisink.codec.config import EncoderConfig
from tisink.codec.encoder import use_router_topics
from tisink.core.clock import Clock
from tisink.ddlsink.mq import MQDDLSink
from tisink.eventsink.faults import FaultInjector, FaultyProducer
from tisink.eventsink.mq.dml_sink import MQDMLSink
from tisink.eventsink.mq.encoder_group import new_txn_encoder
from tisink.eventsink.mq.heartbeats import IdlePartitions
from tisink.eventsink.mq.producer import Producer
from tisink.eventsink.mq.senders import PartitionSequences, SequencedProducer
from tisink.eventsink.router import EventRouter
from tisink.sink.config import ChangefeedConfig


def new_router(default_topic: str, config: ChangefeedConfig) -> EventRouter:
    """The topic and partition dispatchers of ``config``'s rules (``[[sink.dispatchers]]``)."""
    return EventRouter(
        default_topic,
        config.dispatch_rules,
        case_sensitive=config.case_sensitive,
        time_zone=config.encoder.time_zone,
        avro_topic_rules=config.encoder.spec.avro_topic_rules,
    )


def new_sequences(config: ChangefeedConfig) -> PartitionSequences | None:
    """The per-partition sequence counters of the protocol's header (DTS ``ps``), if it has
    one; the DML and DDL sinks of one changefeed must share them."""
    header = config.encoder.spec.partition_sequence_header
    return PartitionSequences(header) if header is not None else None


def _encoder_config(config: ChangefeedConfig, max_message_bytes: int | None) -> EncoderConfig:
    """The encoder checks sizes against the producer's limit, which Kafka may have lowered (as
    TiCDC passes the adjusted ``MaxMessageBytes`` to its encoder)."""
    if max_message_bytes is None:
        return config.encoder
    return dataclasses.replace(config.encoder, max_message_bytes=max_message_bytes)


def _sequenced(
    producer: Producer, sequences: PartitionSequences | None, faults: FaultInjector | None
) -> Producer:
    """The producer stamping the protocol's per-partition sequence header, if it has one,
    under the fault injector, if there is one (a copy is a new record to the header)."""
    if sequences is not None:
        producer = SequencedProducer(producer, sequences)
    return producer if faults is None else FaultyProducer(producer, faults)


def new_fault_injector(
    config: ChangefeedConfig, *, owned: Mapping[str, Sequence[int]] | None = None
) -> FaultInjector | None:
    """The injector of ``config.faults``; the DML and DDL sinks of one changefeed share it.
    ``owned``: a Spark owner's real partitions of each topic, in its view's order."""
    if not config.faults:
        return None
    return FaultInjector(config.faults, owned=owned)


def new_mq_dml_sink(
    producer: Producer,
    config: ChangefeedConfig,
    default_topic: str,
    clock: Clock,
    *,
    scheme: str,
    max_message_bytes: int | None = None,
    sequences: PartitionSequences | None = None,
    own_cadence: bool = True,
    faults: FaultInjector | None = None,
    router: EventRouter | None = None,
) -> MQDMLSink:
    """The MQ DML sink over any producer. ``sequences`` must be the object the DDL sink of the
    same changefeed gets. Without ``own_cadence`` the sink sends no BOOTSTRAP of its own (a
    Spark owner writes the feed's planned ones through ``write_bootstrap``). ``faults`` too is
    shared with the DDL sink. ``router``: instead of ``config``'s (a Spark owner's view)."""
    producer = _sequenced(producer, sequences, faults)
    encoder_config = _encoder_config(config, max_message_bytes)
    encoder = new_encoder(encoder_config, clock)
    if router is None:
        router = new_router(default_topic, config)
    use_router_topics(encoder, router.topic_for_table)
    return MQDMLSink(
        producer,
        encoder,
        router,
        BootstrapCadence(encoder_config.bootstrap, clock) if own_cadence else None,
        scheme=scheme,
        txn_encoder=new_txn_encoder(
            encoder_config, encoder, router, config.encoder_concurrency, clock
        ),
        heartbeats=_heartbeats(encoder_config, clock),
    )


def _heartbeats(config: EncoderConfig, clock: Clock) -> IdlePartitions | None:
    """Partition idle timers when the protocol sends heartbeats and they are on."""
    interval_ms = config.heartbeat_interval_ms
    return IdlePartitions(interval_ms, clock) if interval_ms is not None else None


def new_mq_ddl_sink(
    producer: Producer,
    config: ChangefeedConfig,
    default_topic: str,
    clock: Clock,
    *,
    max_message_bytes: int | None = None,
    sequences: PartitionSequences | None = None,
    faults: FaultInjector | None = None,
) -> MQDDLSink:
    """The MQ DDL sink over any producer, with the DML sink's routing."""
    producer = _sequenced(producer, sequences, faults)
    encoder_config = _encoder_config(config, max_message_bytes)
    bootstrap = encoder_config.bootstrap
    return MQDDLSink(
        producer,
        new_encoder(encoder_config, clock),
        new_router(default_topic, config),
        bootstrap_at_start=bootstrap is not None and bootstrap.send_all_bootstrap_at_start,
    )
