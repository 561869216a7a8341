"""Records of Kafka topics read with confluent-kafka (librdkafka), from the earliest offset:
the Kafka sink's ``RecordSource`` for ``tisink verify``.

A partition is done when librdkafka reports its end (``enable.partition.eof``) at or past the
high watermark seen at start. The watermark from ListOffsets is only a lower bound: Tansu, the
embedded broker, advances it once per record batch, so it cannot say by itself where the
partition ends; the fetch-time end-of-partition event can. Partitions still owed when no
record has arrived for the timeout are returned as unfinished, never waited for forever; a
long stream that keeps arriving is read to its end, however long that takes.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, cast

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, TopicPartition

from tisink.eventsink.kafka.config import KafkaConfig
from tisink.eventsink.kafka.unreachable import ConnectionFailures, librdkafka_failure
from tisink.eventsink.reading import OnRecord, StreamReadError

log = logging.getLogger(__name__)

_BATCH = 1000
_POLL_S = 0.2


def consumer_settings(config: KafkaConfig) -> dict[str, Any]:
    """librdkafka settings for the sink's brokers, TLS and SASL (the sink URI's names)."""
    settings: dict[str, Any] = {"bootstrap.servers": config.bootstrap_servers}
    if config.uses_tls:
        settings.update(
            {
                k: v
                for k, v in (
                    ("ssl.ca.location", config.ca),
                    ("ssl.certificate.location", config.cert),
                    ("ssl.key.location", config.key),
                )
                if v
            }
        )
        if config.insecure_skip_verify:
            settings["enable.ssl.certificate.verification"] = False
    if config.sasl_mechanism:
        settings["security.protocol"] = "SASL_SSL" if config.uses_tls else "SASL_PLAINTEXT"
        settings["sasl.mechanisms"] = config.sasl_mechanism
        settings["sasl.username"] = config.sasl_user
        settings["sasl.password"] = config.sasl_password
    elif config.uses_tls:
        settings["security.protocol"] = "SSL"
    return settings


class DebugLogger(logging.LoggerAdapter):
    """librdkafka's log lines, whatever their level, as DEBUG records of ``logger``:
    librdkafka repeats each connection failure every few ms, and a failure that matters
    reaches the caller as an error of its own (pass it as a client's ``logger`` setting)."""

    def __init__(self, logger: logging.Logger) -> None:
        super().__init__(logger, {})

    def log(self, level: int, msg: object, *args: object, **kwargs: Any) -> None:
        self.logger.debug(msg, *args, **kwargs)


class KafkaRecordReader:
    """One consumer (no group membership, no commits) over the partitions of some topics."""

    def __init__(
        self, settings: Mapping[str, Any], timeout_s: float, *, request_timeout_s: float = 10.0
    ) -> None:
        self.timeout_s = timeout_s
        """How long reading may go without a record before the partitions not done are given
        up (a million-message stream takes minutes to read; a stalled one should not)."""
        self.request_timeout_s = request_timeout_s
        """Bound of one metadata or offsets request (the sink URI's ``read-timeout``)."""
        self._where = settings.get("bootstrap.servers", "?")
        self._failures = ConnectionFailures()
        """Each broker's last connection failure (``error_cb``), for a request that fails."""
        try:
            self._consumer = Consumer(
                {
                    **settings,
                    "group.id": f"tisink-verify-{uuid.uuid4().hex}",
                    "enable.auto.commit": False,
                    "enable.partition.eof": True,
                    "auto.offset.reset": "earliest",
                    # librdkafka prefetches up to 64 MB a queue by default: reading a million
                    # messages back then held 330 MB; 8 MB keeps up with the checks as well
                    "queued.max.messages.kbytes": 8192,
                    # librdkafka repeats each connection failure every few ms; the failure
                    # that matters reaches the user as a StreamReadError, the rest goes to debug
                    "logger": DebugLogger(log),
                    "error_cb": self._on_error,
                }
            )
        except KafkaException as err:
            raise StreamReadError(f"Kafka {self._where}: bad consumer settings: {err}") from err

    continuous_offsets = False
    """Kafka offsets may skip (transaction markers, compaction)."""

    def __enter__(self) -> KafkaRecordReader:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._consumer.close()

    def _on_error(self, error: KafkaError) -> None:
        """librdkafka's client-level errors (it retries them): kept for the error a failed
        request raises, at debug level otherwise."""
        log.debug("Kafka %s: %s", self._where, error.str())
        self._failures.add_librdkafka(error)

    def topics(self) -> list[str]:
        return list(self.partition_counts())

    def partition_counts(self) -> dict[str, int]:
        """Every topic of the cluster with its partition count (no auto-creation)."""
        started = time.monotonic()
        try:
            metadata = self._consumer.list_topics(timeout=self.request_timeout_s)
        except KafkaException as err:
            raise StreamReadError(
                librdkafka_failure(
                    self._consumer,
                    err,
                    "cannot read metadata",
                    servers=self._where,
                    failures=self._failures,
                    seconds=time.monotonic() - started,
                )
            ) from err
        return {
            name: len(topic.partitions)
            for name, topic in metadata.topics.items()
            if topic.error is None and not name.startswith("__")
        }

    def read(self, topics: Sequence[str], on_record: OnRecord) -> list[str]:
        """Call ``on_record`` for every record of ``topics``; returns the unfinished partitions."""
        counts = self.partition_counts()
        ends: dict[tuple[str, int], int] = {}
        assignment = []
        for topic in topics:
            for partition in range(counts.get(topic, 0)):
                low, high = self.watermarks(topic, partition)
                if high > low:
                    ends[(topic, partition)] = high
                    assignment.append(TopicPartition(topic, partition, OFFSET_BEGINNING))
        positions = dict.fromkeys(ends, -1)
        log.debug("verify reads %s; ends at start %s", self._where, ends)
        if assignment:
            self._consumer.assign(assignment)
        pending = set(ends)
        deadline = time.monotonic() + self.timeout_s
        while pending and time.monotonic() < deadline:
            messages = self._consumer.consume(_BATCH, _POLL_S)
            if messages:
                deadline = time.monotonic() + self.timeout_s
            for message in messages:
                where, part, offset = message.topic(), message.partition(), message.offset()
                error = message.error()
                if error is None and where is not None and part is not None:
                    position = offset if offset is not None else -1
                    positions[(where, part)] = position
                    headers = cast(list[tuple[str, bytes]], message.headers() or [])
                    value, key = message.value(), message.key()
                    on_record(where, part, position, value, key, tuple(headers))
                elif error is None:
                    continue
                elif error.code() == KafkaError._PARTITION_EOF:
                    if (
                        where is not None
                        and part is not None
                        and offset is not None
                        and offset >= ends.get((where, part), 0)
                    ):
                        pending.discard((where, part))
                elif error.fatal() or where is not None:
                    raise StreamReadError(f"Kafka {where}[{part}]: {error.str()}")
                else:
                    # client-level trouble (a dropped connection...) that librdkafka retries
                    log.warning("Kafka %s: %s", self._where, error.str())
        return [
            f"{topic}[{partition}]: {_read_so_far(positions[(topic, partition)])}, "
            f"end at start >= offset {ends[(topic, partition)]}; nothing more came in "
            f"{self.timeout_s}s"
            for topic, partition in sorted(pending)
        ]

    def watermarks(self, topic: str, partition: int) -> tuple[int, int]:
        try:
            return self._consumer.get_watermark_offsets(
                TopicPartition(topic, partition), timeout=self.request_timeout_s
            )
        except KafkaException as err:
            where = f"Kafka {topic}[{partition}]"
            raise StreamReadError(f"{where}: cannot read offsets: {err}") from err


def holding_topics(config: KafkaConfig, topics: Sequence[str], timeout_s: float) -> list[str]:
    """Those of ``topics`` that exist and hold a message; [] when the cluster does not answer
    within ``timeout_s``."""
    reader = KafkaRecordReader(consumer_settings(config), timeout_s, request_timeout_s=timeout_s)
    try:
        counts = reader.partition_counts()
        held = []
        for topic in topics:
            ends = [reader.watermarks(topic, p) for p in range(counts.get(topic, 0))]
            if any(high > low for low, high in ends):
                held.append(topic)
        return held
    except StreamReadError as err:
        log.debug("cannot tell whether %s hold messages: %s", ", ".join(topics), err)
        return []
    finally:
        reader.close()


def _read_so_far(last_offset: int) -> str:
    return "nothing read" if last_offset < 0 else f"read up to offset {last_offset}"


def open_kafka_source(config: KafkaConfig, timeout_s: float) -> KafkaRecordReader:
    """A reader of the cluster of ``config`` (the sink URI's brokers, TLS and SASL)."""
    return KafkaRecordReader(
        consumer_settings(config), timeout_s, request_timeout_s=config.request_timeout_s
    )
