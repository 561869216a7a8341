"""``verify``: read a stream back from a ``kafka://`` or ``file://`` sink and check it."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tisink.core.errors import TisinkError
from tisink.sink import ChangefeedConfig, parse_sink_uri
from tisink.sink.providers import DEFAULT_FILE_TOPIC
from tisink.sink.uri import SinkURI
from tisink.verify.checker import StreamChecker
from tisink.verify.errors import VerifyError
from tisink.verify.report import VerifyReport
from tisink.verify.sources import file_topics, read_file_records
from tisink.verify.topics import select_topics

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_PROTOCOL = "simple"
"""Read a stream whose URI names no protocol as the Kafka sink writes it by default."""


def verify(
    sink_uri: str,
    *,
    protocol: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    topics: Sequence[str] | None = None,
    topic_pattern: str | None = None,
    config_path: Path | None = None,
    max_violations: int = 20,
    acknowledged: Mapping[tuple[str, int], int] | None = None,
) -> VerifyReport:
    """Read every partition of the sink's topics from the beginning and decode them with the
    protocol's decoder (its registry entry), checking the rules of ``tisink.verify.checker``.
    The protocol and its settings come from the URI (over ``config_path``, a changefeed TOML
    whose dispatchers also name topics); without one, a Kafka sink's default (simple).
    ``acknowledged`` ((topic, partition) -> end offset the sink saw acknowledged, from the
    play that wrote the stream) adds the check that the partitions still hold all of it.
    Raises VerifyError when the stream cannot be read; a broken stream gives ``ok`` False."""
    try:
        uri = parse_sink_uri(sink_uri)
        config = ChangefeedConfig.from_toml(config_path) if config_path else ChangefeedConfig()
        config = config.with_uri(uri)
    except TisinkError as err:
        raise VerifyError(f"verify {sink_uri}: {err}") from err
    if protocol and config.protocol and protocol != config.protocol:
        raise VerifyError(
            f"verify {uri.redacted()}: the sink's protocol is {config.protocol!r}, not {protocol!r}"
        )
    config = config.with_protocol_default(protocol or DEFAULT_PROTOCOL)
    spec = config.encoder.spec
    if spec.new_decoder is None:
        raise VerifyError(f"verify cannot read protocol {spec.name!r}: it has no decoder")
    new_decoder = spec.new_decoder
    report = VerifyReport(
        source=uri.redacted(),
        encoding_format=config.encoder.encoding_format,
        max_violations=max_violations,
    )
    # the file sink numbers records 0, 1, 2...; Kafka offsets may skip (batches, compaction)
    checker = StreamChecker(
        report, lambda: new_decoder(config.encoder), continuous_offsets=uri.scheme == "file"
    )
    selection: dict[str, Any] = {
        "topics": tuple(topics or ()),
        "topic_pattern": topic_pattern,
        "rules": config.dispatch_rules,
    }
    if uri.scheme == "file":
        directory = Path(uri.path)
        report.topics = select_topics(
            uri.topic or DEFAULT_FILE_TOPIC, file_topics(directory), **selection
        )
        for record in read_file_records(directory, report.topics):
            checker.check_record(*record)
    elif uri.scheme == "kafka":
        _verify_kafka(uri, config, timeout_s, checker, selection)
    else:
        raise VerifyError(f"verify reads kafka:// and file:// sinks, not {uri.scheme}://")
    if acknowledged:
        checker.check_acknowledged(acknowledged)
    log.info(
        "verified %d messages of %s: %s",
        report.messages,
        ", ".join(report.topics),
        "ok" if report.ok else f"{sum(report.violation_counts.values())} violations",
    )
    return report


def _verify_kafka(
    uri: SinkURI,
    config: ChangefeedConfig,
    timeout_s: float,
    checker: StreamChecker,
    selection: dict[str, Any],
) -> None:
    # imported here: the file path must work where the Kafka client libraries are missing
    from tisink.verify.kafka_source import KafkaRecordReader, consumer_settings

    try:
        kafka = config.kafka.for_target(uri.hosts, uri.topic)
    except TisinkError as err:
        raise VerifyError(f"verify {uri.redacted()}: {err}") from err
    report = checker.report
    settings = consumer_settings(kafka)
    with KafkaRecordReader(
        settings, timeout_s, request_timeout_s=kafka.request_timeout_s
    ) as reader:
        report.topics = select_topics(kafka.topic, reader.partition_counts(), **selection)
        report.unfinished = reader.read(report.topics, checker.check_record)
